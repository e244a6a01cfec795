"""Regression tests for issue 28 (prec24): the sub-shapes of its classes that had no test yet, in
our own words, each with the control that keeps the finding where it is right.

- Class 3, "TF_CONFIG removed in an imported module before the strategy": a script imports a
  project module whose top level deletes TF_CONFIG, then runs an op and builds a
  `MultiWorkerMirroredStrategy`: one local worker, which TensorFlow creates after other ops
  (measured on 2.21, `docs/probes.md`), so not TFD105.
- Class 4, "a `shuffle` ... on `image_dataset_from_directory`": that loader gives batches, so a
  `.shuffle()` on its result reorders whole batches, and auto-sharding by data hands each worker
  its part of every batch: the workers stay disjoint (`benchmarks/probe_shuffle_before_shard.py`,
  `.batch(4).shuffle(4)`); the loader's own shuffle is a library's (TFD204's Known limits). Not TFD204.

docs/precision-classes.md maps every class and sub-shape of issue 28 to the tests that pin it.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from checked_codes import codes_of

from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path

_SCRIPT = """
    import {module}
    import tensorflow as tf

    scale = tf.constant(2.0)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """


def _tfd105(tmp_path: Path, helper: str) -> list[str]:
    (tmp_path / "cluster_setup.py").write_text(textwrap.dedent(helper))
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(_SCRIPT.format(module="cluster_setup")))
    findings = check_source(str(script), script.read_text()).findings
    return [f.code for f in findings if f.code == "TFD105"]


def test_an_imported_module_that_pops_tf_config_makes_the_strategy_a_single_worker(tmp_path):
    assert _tfd105(tmp_path, 'import os\nos.environ.pop("TF_CONFIG", None)\n') == []


def test_an_imported_module_that_deletes_or_empties_tf_config_makes_a_single_worker(tmp_path):
    assert _tfd105(tmp_path, 'import os\nif "TF_CONFIG" in os.environ:\n    del os.environ["TF_CONFIG"]\n') == []
    assert _tfd105(tmp_path, 'import os\nos.environ["TF_CONFIG"] = "{}"\n') == []


def test_control_an_imported_module_that_sets_a_cluster_keeps_tfd105(tmp_path):
    assert _tfd105(tmp_path, 'import os\nos.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]\n') == ["TFD105"]


def test_control_a_module_that_deletes_then_sets_tf_config_again_keeps_tfd105(tmp_path):
    helper = 'import os\nos.environ.pop("TF_CONFIG", None)\nos.environ.update({"TF_CONFIG": open("c.json").read()})\n'
    assert _tfd105(tmp_path, helper) == ["TFD105"]


def test_control_a_deletion_inside_a_function_of_the_module_does_not_run_on_import(tmp_path):
    helper = 'import os\n\ndef reset():\n    os.environ.pop("TF_CONFIG", None)\n'
    assert _tfd105(tmp_path, helper) == ["TFD105"]


def test_control_the_script_setting_tf_config_after_the_import_keeps_tfd105(tmp_path):
    (tmp_path / "cluster_setup.py").write_text('import os\nos.environ.pop("TF_CONFIG", None)\n')
    script = tmp_path / "train.py"
    text = textwrap.dedent(_SCRIPT.format(module="cluster_setup")).replace(
        "scale =", 'import os\nos.environ["TF_CONFIG"] = os.environ["CLUSTER_SPEC"]\nscale ='
    )
    script.write_text(text)
    assert [f.code for f in check_source(str(script), text).findings if f.code == "TFD105"] == ["TFD105"]


_IMAGE_FOLDER = """
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    images = {loader}
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
        model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    model.fit(images, epochs=2)
    """


def test_a_shuffling_image_folder_loader_and_a_shuffle_of_its_batches_are_not_tfd204():
    loader = 'tf.keras.utils.image_dataset_from_directory("photos", image_size=(64, 64), batch_size=32, shuffle=True)'
    assert "TFD204" not in codes_of(_IMAGE_FOLDER.replace("{loader}", loader))
    assert "TFD204" not in codes_of(_IMAGE_FOLDER.replace("{loader}", loader + ".shuffle(8)"))


def test_control_a_shuffle_after_unbatching_the_loader_or_of_an_unbatched_loader_is_tfd204():
    loader = 'tf.keras.utils.image_dataset_from_directory("photos", image_size=(64, 64){size})'
    unbatched = loader.replace("{size}", "") + ".unbatch().shuffle(256).batch(32)"
    assert "TFD204" in codes_of(_IMAGE_FOLDER.replace("{loader}", unbatched))
    single = loader.replace("{size}", ", batch_size=None") + ".shuffle(256).batch(32)"
    assert "TFD204" in codes_of(_IMAGE_FOLDER.replace("{loader}", single))


def test_control_shuffling_elements_before_batching_is_tfd204():
    loader = "tf.data.Dataset.range(1024).shuffle(1024).batch(32)"
    assert "TFD204" in codes_of(_IMAGE_FOLDER.replace("{loader}", loader))
