"""TFD401 and TFD504 judge a project against its target: the pin, or `--target-version`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fixer.config import Config
from fixer.engine import check_source

RUN_V2 = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
result = strategy.experimental_run_v2(step, args=(1,))
"""
EXPERIMENTAL_CLASSES = """\
import tensorflow as tf

workers = tf.distribute.experimental.MultiWorkerMirroredStrategy()
tpu = tf.distribute.experimental.TPUStrategy(resolver)
"""
STALE_IMPORT = """\
from tensorflow.distribute import MirroredStrategy

strategy = MirroredStrategy()
"""
MWMS_FIT = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.fit(x, y)
"""


def findings(tmp_path: Path, source: str, pin: str | None, target: tuple[int, int] | None = None, code: str = "TFD401"):
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    if pin is not None:
        (tmp_path / "requirements.txt").write_text(f"tensorflow=={pin}\n")
    config = replace(Config(), target_version=target)
    return [f for f in check_source(str(tmp_path / "train.py"), source, config).findings if f.code == code]


def test_no_rename_to_run_in_a_tensorflow_2_1_project(tmp_path):
    assert findings(tmp_path, RUN_V2, "2.1.0") == []


def test_deprecated_not_removed_in_a_tensorflow_2_3_project(tmp_path):
    (finding,) = findings(tmp_path, RUN_V2, "2.3.0")
    assert finding.message == "`experimental_run_v2` is deprecated; use `run`" and finding.fix is not None


def test_removed_in_the_version_the_project_runs(tmp_path):
    (finding,) = findings(tmp_path, RUN_V2, "2.5.0")
    assert finding.message == "`experimental_run_v2` is removed in TensorFlow 2.5 (`AttributeError`); use `run`"


def test_class_renames_only_to_names_the_target_has(tmp_path):
    # TensorFlow 2.3 has tf.distribute.TPUStrategy but not tf.distribute.MultiWorkerMirroredStrategy.
    (finding,) = findings(tmp_path, EXPERIMENTAL_CLASSES, "2.3.4")
    assert "TPUStrategy" in finding.message and finding.start.line == 4


def test_an_upgrade_target_reports_what_breaks_on_upgrade(tmp_path):
    (finding,) = findings(tmp_path, RUN_V2, "2.1.0", target=(2, 21))
    assert finding.message == (
        "on upgrade to TF 2.21: `experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`); use `run`"
    )


@pytest.mark.parametrize(("pin", "target", "reported"), [(None, None, True), ("2.15.0", None, False), ("2.15.0", (2, 21), True)])
def test_stale_imports_are_judged_where_measured(tmp_path, pin, target, reported):
    found = findings(tmp_path, STALE_IMPORT, pin, target)
    assert bool(found) is reported
    if reported:
        assert "raises `ImportError` on TensorFlow 2.21" in found[0].message and found[0].fix is None


def test_tfd504_is_an_upgrade_finding_for_a_keras_2_project(tmp_path):
    assert findings(tmp_path, MWMS_FIT, "2.12.0", code="TFD504") == []
    (finding,) = findings(tmp_path, MWMS_FIT, "2.12.0", target=(2, 21), code="TFD504")
    assert finding.message.startswith("on upgrade to TF 2.21: Keras 3 `fit`")
    assert "add `tf-keras~=2.21.0` to requirements.txt" in finding.message


def test_tfd504_follows_a_dockerfile_that_selects_tf_keras(tmp_path):
    (tmp_path / "Dockerfile").write_text("FROM tensorflow/tensorflow:2.17.0\nENV TF_USE_LEGACY_KERAS=1\n")
    assert findings(tmp_path, MWMS_FIT, None, code="TFD504") == []


COMPILE_OUTSIDE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    metric = tf.keras.metrics.MeanAbsoluteError()
model.compile(optimizer=make_optimizer(), loss="mse", metrics=[metric])
model.fit(x, y)
"""


def test_tfd101_compile_outside_the_scope_is_fine_under_tf_keras(tmp_path):
    # tf-keras's compile enters the model's own strategy scope (benchmarks/probe_compile_outside_scope.py).
    assert findings(tmp_path, COMPILE_OUTSIDE, "2.10.0", code="TFD101") == []
    (finding,) = findings(tmp_path, COMPILE_OUTSIDE, "2.10.0", target=(2, 21), code="TFD101")
    assert "compile()" in finding.message


def test_a_finding_the_pinned_version_has_too_is_no_upgrade_finding(tmp_path):
    (run_v2,) = findings(tmp_path / "a", RUN_V2, "2.5.0", target=(2, 21))
    assert run_v2.message == "`experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`); use `run`"
    (deprecated,) = findings(tmp_path / "b", RUN_V2, "2.3.0", target=(2, 21))
    assert deprecated.message.startswith("on upgrade to TF 2.21: `experimental_run_v2` is removed")
    (fit,) = findings(tmp_path / "c", MWMS_FIT, "2.17.0", target=(2, 21), code="TFD504")
    assert fit.message.startswith("Keras 3 `fit`")


def test_a_message_citing_an_assumed_version_says_so(tmp_path):
    (finding,) = findings(tmp_path, RUN_V2, None)
    assert finding.message == "`experimental_run_v2` is removed in TensorFlow 2.21 (`AttributeError`; 2.21 assumed: no pin found); use `run`"


TF1_METHODS = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
iterator = strategy.make_dataset_iterator(dataset)
out = strategy.experimental_run(step_fn, iterator)
"""


def test_tensorflow_1_strategy_methods_get_their_tf2_form_without_an_edit(tmp_path):
    found = findings(tmp_path, TF1_METHODS, "2.15.0")
    assert [(f.start.line, f.fix) for f in found] == [(4, None), (5, None)]
    assert "experimental_distribute_dataset" in found[0].message and "strategy.run(" in found[1].message


def test_tensorflow_1_strategy_methods_are_right_before_run_exists(tmp_path):
    assert findings(tmp_path, TF1_METHODS, "2.1.0") == []


def test_tensorflow_1_strategy_methods_of_a_compat_v1_strategy_are_not_reported(tmp_path):
    source = TF1_METHODS.replace("tf.distribute.MirroredStrategy()", "tf.compat.v1.distribute.MirroredStrategy()")
    assert findings(tmp_path, source, "2.15.0") == []


PARAMETER_SERVER = """\
import tensorflow as tf

strategy = tf.distribute.experimental.ParameterServerStrategy()
"""


@pytest.mark.parametrize(("pin", "reported"), [("2.15.0", True), ("2.3.0", False)])
def test_parameter_server_strategy_without_a_resolver_is_judged_from_tensorflow_2_4(tmp_path, pin, reported):
    found = findings(tmp_path, PARAMETER_SERVER, pin, code="TFD604")
    assert [f.message for f in found] == (
        ["`ParameterServerStrategy` needs `cluster_resolver`: it raises `TypeError` without it"] if reported else []
    )
