"""Versions a project states for a range of releases or outside pin files (issue 28, ledger9b class
1): one image per supported release, a multi-backend Keras requirement, a README's run form and a
README heading that names the release (docs/target.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from fixer.engine import check_source
from fixer.target import target_for
from fixer.target.release_images import release_in_name

if TYPE_CHECKING:
    from pathlib import Path

EXPERIMENTAL_MWMS = """\
import tensorflow as tf

# This branch serves TF 1.15 and TF 2.x alike.
strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""
# A base image the image tables do not know; TensorFlow comes from a script the text does not name.
UNKNOWN_BASE = "FROM ubuntu:20.04\nCOPY install_tf.sh /tmp/\nRUN bash /tmp/install_tf.sh\n"


def codes(path: Path, source: str) -> list[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return [f.code for f in check_source(str(path), source).findings]


@pytest.mark.parametrize(
    ("name", "release"),
    [
        ("Dockerfile_tf112", (1, 12)),
        ("Dockerfile_tf115", (1, 15)),
        ("Dockerfile_paitf115", (1, 15)),
        ("Dockerfile_tf210", (2, 10)),
        ("Dockerfile-tf2.3-gpu", (2, 3)),
        ("tf1.15.Dockerfile", (1, 15)),
        ("Dockerfile", None),
        ("Dockerfile.gpu", None),
        ("Dockerfile_tf2", None),
        ("Dockerfile_tf116", None),
        ("Dockerfile_py36tf115", None),
    ],
)
def test_a_dockerfile_name_states_a_release(name, release):
    assert release_in_name(f"/project/docker/{name}") == release


def _one_image_per_release(root: Path, images: dict[str, str]) -> None:
    (root / ".git").mkdir(parents=True)
    (root / "docker").mkdir()
    for name, text in images.items():
        (root / "docker" / name).write_text(text)
    (root / "lib").mkdir()
    (root / "lib" / "__init__.py").write_text("")


def test_one_image_per_release_is_a_range_renames_need_its_oldest_release(tmp_path):
    _one_image_per_release(
        tmp_path,
        {
            "Dockerfile_tf112": UNKNOWN_BASE,
            "Dockerfile_tf115": UNKNOWN_BASE,
            "Dockerfile_tf211": UNKNOWN_BASE,
            "Dockerfile_tf212": "FROM tensorflow/tensorflow:2.12.0\n",
        },
    )
    target = target_for(tmp_path / "lib" / "strategies.py")
    # The newest image is judged (a TF 2 rule still applies there), the oldest bounds renames.
    assert target.version == (2, 12)
    assert target.floor == (1, 12)
    assert not target.has("tensorflow.distribute.MultiWorkerMirroredStrategy")
    assert "TFD401" not in codes(tmp_path / "lib" / "strategies.py", EXPERIMENTAL_MWMS)


def test_one_image_per_release_all_of_tf2_four_keeps_the_rename(tmp_path):
    _one_image_per_release(tmp_path, {"Dockerfile_tf24": UNKNOWN_BASE, "Dockerfile_tf212": UNKNOWN_BASE})
    assert target_for(tmp_path / "lib" / "strategies.py").floor == (2, 4)
    assert "TFD401" in codes(tmp_path / "lib" / "strategies.py", EXPERIMENTAL_MWMS)


def test_a_single_release_named_dockerfile_is_that_release(tmp_path):
    _one_image_per_release(tmp_path, {"Dockerfile_tf212": UNKNOWN_BASE})
    target = target_for(tmp_path / "lib" / "strategies.py")
    assert (target.version, target.floor) == ((2, 12), None)
    assert "TFD401" in codes(tmp_path / "lib" / "strategies.py", EXPERIMENTAL_MWMS)


def test_the_image_a_dockerfile_names_beats_its_file_name(tmp_path):
    _one_image_per_release(tmp_path, {"Dockerfile_tf115": "FROM tensorflow/tensorflow:2.12.0\n"})
    assert target_for(tmp_path / "lib" / "strategies.py").version == (2, 12)


def test_images_beside_another_pin_file_keep_the_oldest_statement(tmp_path):
    _one_image_per_release(tmp_path, {"Dockerfile_tf115": UNKNOWN_BASE, "Dockerfile_tf212": UNKNOWN_BASE})
    (tmp_path / "docker" / "requirements.txt").write_text("")  # not in the walk: the docker folder's own
    (tmp_path / "requirements.txt").write_text("tensorflow==2.6.0\n")
    target = target_for(tmp_path / "lib" / "strategies.py")
    assert (target.version, target.floor) == ((1, 15), None)


EXPERIMENTAL_TPU = """\
import tensorflow as tf

strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""


@pytest.mark.parametrize("requirement", ["keras<=2.3.1", "keras==2.2.4", "keras<2.4"])
def test_a_multi_backend_keras_requirement_caps_tensorflow_at_2_2(tmp_path, requirement):
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.py").write_text(f"setup(name='lib', install_requires=['{requirement}'])\n")
    target = target_for(tmp_path / "pretrain.py")
    assert (target.version, target.keras, target.floor) == ((2, 2), 2, (1, 13))
    # `tf.distribute.TPUStrategy` is from 2.3, `run` from 2.2: neither exists on the 1.x backends.
    assert not target.has("tensorflow.distribute.TPUStrategy")
    assert not target.has("run")
    assert "TFD401" not in codes(tmp_path / "pretrain.py", EXPERIMENTAL_TPU)


@pytest.mark.parametrize(("requirement", "version"), [("keras==2.14.0", (2, 14)), ("keras==2.4.3", (2, 15))])
def test_a_keras_requirement_from_2_4_on_keeps_its_tensorflow(tmp_path, requirement, version):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text(f"{requirement}\n")
    target = target_for(tmp_path / "pretrain.py")
    assert (target.version, target.floor) == (version, None)
    assert "TFD401" in codes(tmp_path / "pretrain.py", EXPERIMENTAL_TPU)


def test_a_multi_backend_keras_requirement_caps_an_open_tensorflow_requirement(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("tensorflow>=1.14\nkeras<=2.3.1\n")
    assert target_for(tmp_path / "pretrain.py").version == (2, 2)
    (tmp_path / "requirements.txt").write_text("tensorflow==2.4.1\nkeras<=2.3.1\n")  # the project chose
    assert target_for(tmp_path / "pretrain.py").version == (2, 4)


RUN_FORM = """\
# Distributed MNIST

Create a job with these settings:

- Framework: Tensorflow
- Version:
    - For mirrored : 2.0.0-gpu
    - For multiworker : 2.3.0-gpu
- Start-up script:
    - For mirrored : python mirrored_mnist.py
    - For multiworker : python multiworker_mnist.py

Then press Submit.
"""
MWMS_FIT = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
model.fit(x, y)
"""


def test_a_readme_run_form_names_the_release_the_oldest_tag_decides(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text(RUN_FORM)
    target = target_for(tmp_path / "mnist" / "multiworker_mnist.py")
    assert target.version == (2, 0)
    assert [e.text for e in target.evidence] == ["- For mirrored : 2.0.0-gpu", "- For multiworker : 2.3.0-gpu"]
    # On 2.0 and 2.3 the stable MWMS name does not exist, and Keras 2 `fit` works under MWMS.
    found = codes(tmp_path / "mnist" / "multiworker_mnist.py", MWMS_FIT)
    assert "TFD401" not in found
    assert "TFD504" not in found


def test_a_run_form_version_on_the_bullet_itself(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("* **Framework**: TensorFlow\n* **Version**: 2.3.0-gpu\n")
    assert target_for(tmp_path / "train.py").version == (2, 3)


@pytest.mark.parametrize(
    "readme",
    [
        "- Framework: PyTorch\n- Version:\n    - 1.13.0-gpu\n",  # another framework's form
        "- Version:\n    - 2.3.0-gpu\n",  # no framework named: a version of what?
        "- Framework: Tensorflow\n\nWe used version 2.3.0 in our tests.\n- Version: 2.3.0\n",  # prose ends the form
    ],
)
def test_other_version_bullets_say_nothing(tmp_path, readme):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text(readme)
    target = target_for(tmp_path / "train.py")
    assert target.assumed
    assert "TFD504" in codes(tmp_path / "train.py", MWMS_FIT)


ADAM_IN_STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    generator = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    generator_optimizer = tf.keras.optimizers.Adam(2e-4)


@tf.function
def train_step(batch):
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(generator(x))
        grads = tape.gradient(loss, generator.trainable_variables)
        generator_optimizer.apply_gradients(zip(grads, generator.trainable_variables))

    strategy.run(step, args=(batch,))
"""


@pytest.mark.parametrize(
    ("readme", "version"),
    [
        ("# UPDATED for Tensorflow 2.3.\n\n# CycleGAN implementation in Tensorflow 2.3 with MirroredStrategy\n", (2, 3)),
        ("CycleGAN in TensorFlow 2.3.0\n============================\n\nSome text.\n", (2, 3)),
        ("A GAN written for tensorflow v2.2\n\nMore prose.\n", (2, 2)),  # the first line is the title
    ],
)
def test_a_readme_title_names_the_release_where_nothing_installs_one(tmp_path, readme, version):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text(readme)
    target = target_for(tmp_path / "train.py")
    assert (target.version, target.keras) == (version, 2)


@pytest.mark.parametrize(
    "readme",
    [
        "# A CycleGAN\n\nThis was once tested with Tensorflow 2.3 by a reader.\n",  # prose, not a heading
        "# Migrating from Tensorflow 1.15 to Tensorflow 2.3\n",  # two releases: which one?
        "# Works with Tensorflow 2.x\n",  # no release
        "# A GAN\n\n```\n# built on Tensorflow 2.3\n```\n",  # a comment in a code block
    ],
)
def test_other_mentions_of_a_release_say_nothing(tmp_path, readme):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text(readme)
    assert target_for(tmp_path / "train.py").assumed


def test_a_readme_install_beats_its_title_and_a_pin_file_beats_both(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "README.md").write_text("# A GAN in Tensorflow 2.3\n\n```\npip install tensorflow==2.6.0\n```\n")
    assert target_for(tmp_path / "a" / "train.py").version == (2, 6)
    (tmp_path / "requirements.txt").write_text("tensorflow==2.12.0\n")
    assert target_for(tmp_path / "b" / "train.py").version == (2, 12)


def test_tfd109_follows_a_readme_title_release(tmp_path):
    # Keras 2 (TF 2.3) makes an Adam's slots in the compiled step's replica context: no TFD109 there.
    (tmp_path / "titled" / ".git").mkdir(parents=True)
    (tmp_path / "titled" / "README.md").write_text("# CycleGAN implementation in Tensorflow 2.3\n")
    assert "TFD109" not in codes(tmp_path / "titled" / "train.py", ADAM_IN_STEP)
    (tmp_path / "untitled" / ".git").mkdir(parents=True)
    (tmp_path / "untitled" / "README.md").write_text("# CycleGAN implementation\n")
    assert "TFD109" in codes(tmp_path / "untitled" / "train.py", ADAM_IN_STEP)
