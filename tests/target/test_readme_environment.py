"""A README's environment line naming the TensorFlow release in prose, and a dated TF 2.0 preview
package (issue 28, ledger11a classes 1-2, ledger11b classes 1 and 3): each shape with a control."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.target import target_for
from fixer.target.readme import read_readme
from tests.project_trees import tree as project

if TYPE_CHECKING:
    from pathlib import Path


def decided(text: str) -> list[tuple[int, tuple[int, int]]]:
    return [(e.line, e.allowed.newest()) for e in read_readme(text, "README.md")]


ENVIRONMENT_BULLETS = """\
# Image retrieval

## Training Environment

- Google Cloud
- VM instance: n1-standard-1 (1 vCPU, 3.75GB memory), tensorflow 2.3
- TPU: v3-8
"""

LABELLED_BESIDE_A_BARE_INSTALL = """\
# MNIST on a cluster

TensorFlow version: Version 2.3

Make a virtual environment:

```
python -m venv env && env/bin/pip install tensorflow
```
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (ENVIRONMENT_BULLETS, [(6, (2, 3))]),
        (LABELLED_BESIDE_A_BARE_INSTALL, [(3, (2, 3))]),  # the stated release; the bare install says nothing
        ("# Models\n\nThe library is tested on Python 3.7+ and TensorFlow 2.7.\n", [(3, (2, 7))]),
        ("# A\n\nRun it in a virtual environment with TensorFlow 2.3 installed.\n", [(3, (2, 3))]),
        (
            "# A\n\n## Environment\n\n| what | version |\n|---|---|\n| libs | Tensorflow==2.4.1 / Python 3.7 |\n",
            [(7, (2, 4))],
        ),
        ("# A\n\n## Requirements\n\n- Tensorflow==2.4.1 / Python 3.7\n", [(5, (2, 4))]),
        ("# A\n\nWe tested with tensorflow-gpu 2.2.0 on a V100.\n", [(3, (2, 2))]),
    ],
)
def test_an_environment_line_states_the_release(text, expected):
    assert decided(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "# A\n\nThis works with TensorFlow 2 and PyTorch.\n",  # no release
        "# A\n\n## Requirements\n\n- TensorFlow 2.x\n- TensorFlow 2.4+\n- tensorflow >= 2.7.0\n",  # families, ranges
        "# A\n\n## Requirements\n\n- TensorFlow 2.4 or later\n",
        "# A\n\n## Features\n\n- Supports TensorFlow 2.4 mixed precision\n",  # a bullet under another heading
        "# A\n\nThe TensorFlow 2.4 release notes describe the change.\n",  # prose, no environment phrase
        "# A\n\nWe upgraded the code to TensorFlow 2.4.\n",  # a migration
        "# A\n\nTested on TensorFlow 2.3 and TensorFlow 2.4.\n",  # two releases: which one?
        "# A\n\nThis was once tested with Tensorflow 2.3 by a reader.\n",  # not the project's own statement
        "# A\n\n## Environment\n\n- tensorflow_hub 0.9\n- Python 3.7\n",  # not TensorFlow
        "# A\n\n```\n# tested on TensorFlow 2.3\n```\n",  # a comment in a code block
        "# A\n\n## Requirements\n\n- Tensorflow 2.2/2.3/2.4\n- TensorFlow 2.6, 2.7, or 2.8\n",  # lists of releases
        "# A\n\n* The tutorial was tested using the Jupyter Tensorflow 2.1 image\n",  # an image: another step's
        "# A\n\nThis code has been tested with Tensorflow 2.5.0. Going forward,\nwe target the latest release.\n",
        "# A\n\nThis code was tested with TensorFlow 1.11.0.\n",  # TensorFlow 1 shows itself in the code
        "# A\n\nWeights pre-trained on ImageNet with TensorFlow 2.3 are in the release.\n",  # the weights' history
    ],
)
def test_other_prose_says_nothing(text):
    assert decided(text) == []


def test_the_readme_decides_the_folder_and_a_pin_file_still_beats_it(tmp_path):
    root = project(tmp_path, {"README.md": LABELLED_BESIDE_A_BARE_INSTALL})
    target = target_for(root / "mnist.py")
    assert (target.version, target.keras, target.assumed) == ((2, 3), 2, False)
    assert target.tensorflow_from is not None and target.tensorflow_from.text == "TensorFlow version: Version 2.3"
    (root / "requirements.txt").write_text("tensorflow==2.12.0\n")
    assert target_for(root / "sub" / "mnist.py").version == (2, 12)


@pytest.mark.parametrize(
    "install",
    [
        "pip install tf-nightly-gpu-2.0-preview==2.0.0.dev20190526",
        "pip install tf-nightly-2.0-preview",
        "pip install tensorflow-gpu==2.0.0-alpha0",
        "pip install tensorflow==2.0.0-beta1",
        "pip install tensorflow-gpu==2.0.0-rc0",
    ],
)
def test_a_tf_2_0_preview_install_is_tensorflow_2_0(tmp_path, install):
    root = project(tmp_path, {"README.md": f"# Tutorial\n\n```\nvirtualenv venv\n{install}\n```\n"})
    target = target_for(root / "train.py")
    assert (target.version, target.keras, target.assumed) == ((2, 0), 2, False)


def test_todays_nightly_is_still_no_release(tmp_path):
    root = project(tmp_path, {"README.md": "# Tutorial\n\n```\npip install tf-nightly\n```\n"})
    assert target_for(root / "train.py").version == (2, 21)


MWMS = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""


def codes(root: Path, name: str, source: str) -> list[str]:
    (root / name).write_text(source)
    return [f.code for f in check_source(str(root / name), source, Config(select=("TFD101", "TFD401"))).findings]


def test_no_stable_mwms_rename_under_a_preview_or_a_stated_2_3(tmp_path):
    preview = project(
        tmp_path / "a", {"README.md": "```\npip install tf-nightly-gpu-2.0-preview==2.0.0.dev20190526\n```\n"}
    )
    stated = project(tmp_path / "b", {"README.md": LABELLED_BESIDE_A_BARE_INSTALL})
    control = project(tmp_path / "c", {"README.md": "# MNIST\n\n```\npip install tensorflow\n```\n"})
    assert "TFD401" not in codes(preview, "train.py", MWMS)
    assert "TFD401" not in codes(stated, "train.py", MWMS)
    assert "TFD401" in codes(control, "train.py", MWMS)  # nothing stated: today's TF, where it is deprecated


# A TPU script of the 2.3 era: Keras 2 only names in the file, an optimizer made in `compile` outside the scope.
KERAS2_TPU_SCRIPT = """\
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
strategy = tf.distribute.TPUStrategy(resolver)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
schedule = tf.keras.experimental.CosineDecay(0.1, 1000)
model.compile(optimizer=tf.keras.optimizers.Adam(schedule), loss="mse", experimental_steps_per_execution=50)
model.fit(features, labels)
"""


def test_a_stated_2_3_with_keras_2_names_is_keras_2_and_tfd101_is_silent(tmp_path):
    stated = project(tmp_path / "a", {"README.md": ENVIRONMENT_BULLETS})
    assert target_for(stated / "train.py").keras == 2
    assert "TFD101" not in codes(stated, "train.py", KERAS2_TPU_SCRIPT)
    control = project(tmp_path / "b", {"README.md": "# Image retrieval\n\nRuns on a TPU v3-8.\n"})
    assert "TFD101" in codes(control, "train.py", KERAS2_TPU_SCRIPT)  # nothing stated: today's Keras 3


# ledger18b class 1: a README that calls the project an implementation for one TensorFlow 2 release.
CALLS_ITSELF_A_2_1_IMPLEMENTATION = """\
# Causal text models in TF2
This is a reference Tensorflow 2.1 / Keras implementation of the method described in [a paper](arxiv.org/abs/0).
It estimates effects from text.

The authors' original code is linked [here](https://example.org). (In Tensorflow 1.13)
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (CALLS_ITSELF_A_2_1_IMPLEMENTATION, [(2, (2, 1))]),  # the TF 1 mention on another line stays ignored
        ("# SimCLR\n\nThis repository is an unofficial TensorFlow 2.3 implementation of SimCLR.\n", [(3, (2, 3))]),
        ("# ViT\n\nIt is a TF 2.4 (Keras) implementation of ViT.\n", [(3, (2, 4))]),
    ],
)
def test_the_project_calling_itself_an_implementation_for_one_release(text, expected):
    assert decided(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "# A\n\nThis is a TensorFlow >= 2.1 implementation of the paper.\n",  # a minimum
        "# A\n\nThis is a TensorFlow 2.1+ implementation of the paper.\n",
        "# A\n\nThis is a PyTorch port of the official TensorFlow 2.3 implementation.\n",  # another project's
        "# A\n\nThis is a PyTorch version. The authors' code is a TensorFlow 2.3 implementation.\n",
        "# A\n\nThis is based on a TensorFlow 2.3 implementation by the authors.\n",
        "# A\n\nThis is a TensorFlow 1.13 implementation of the paper.\n",  # TensorFlow 1: the code shows it
        "# A\n\nThis is a TensorFlow 2.2/2.3 implementation of the paper.\n",  # two releases
    ],
)
def test_other_implementation_sentences_say_nothing(text):
    assert decided(text) == []


RUN_V2_STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


@tf.function
def train_step(batch):
    return strategy.experimental_run_v2(step_fn, args=(batch,))
"""


def test_no_run_v2_rename_in_a_stated_2_1_implementation(tmp_path):
    stated = project(tmp_path / "a", {"README.md": CALLS_ITSELF_A_2_1_IMPLEMENTATION})
    control = project(tmp_path / "b", {"README.md": "# Causal text models\n\nAn implementation of a paper.\n"})
    assert "TFD401" not in codes(stated, "train.py", RUN_V2_STEP)  # 2.1 has no `run`: the rename would break it
    assert "TFD401" in codes(control, "train.py", RUN_V2_STEP)
