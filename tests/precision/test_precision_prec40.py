"""Regression tests for issue 28 (prec40): ledger15a/15b classes, in our own words, each with the
control that keeps the finding where it is right.

- TFD111: Keras's `ImageDataGenerator` and its `flow` / `flow_from_directory` /
  `flow_from_dataframe` iterators start no runtime (benchmarks/probe_image_generator_runtime.py),
  so a device split after them is accepted.
- TFD101's unsafe move of a functional `Model(inputs, outputs)` (and its `compile`) into the scope
  when its layers make their weights in statements the move leaves (called on the input or on a
  batch, or an application model constructed there): `fit` then raises ValueError
  (benchmarks/probe_functional_layers_outside_scope.py); advice naming those lines, no edit. And
  with a strategy the program never uses, the model's `compile` (and recompile) is the same
  mistake as its construction: one finding per model (ledger15b's noise).
- Target (ledger15a): an AWS Deep Learning Container tag (`.../tensorflow-training:2.7.1-gpu-...`) in a
  Dockerfile or job configuration states that TensorFlow release, as a `tensorflow/tensorflow:X.Y.Z` image does.
- TFD402 (ledger15a): `strategy.run(callback)` with no arguments, outside any loop of a function no loop calls
  (a profiler start before the training loop) runs once; compiled, a no-argument callback would run only while
  tracing (benchmarks/probe_ledger15a_premises.py). Not the finding; the loop's `strategy.run` is.
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook
from fixer.target import target_for
from fixer.target.sources import read_job_config
from tests.project_trees import tree

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding


def _findings(text: str, code: str, path: str = "train.py") -> list[Finding]:
    return [f for f in check_source(path, textwrap.dedent(text)).findings if f.code == code]


# -- TFD111: an image generator before the device configuration -------------------------------------

_SPLIT_AFTER = """
import numpy as np
import tensorflow as tf
from tensorflow.keras.preprocessing.image import ImageDataGenerator

augment = ImageDataGenerator(rescale=1 / 255, horizontal_flip=True)
{before}
cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy()
"""


def test_an_image_generator_and_its_iterators_do_not_start_the_runtime() -> None:
    before = (
        'folders = augment.flow_from_directory("photos/train", batch_size=64)\n'
        "arrays = augment.flow(np.zeros((8, 4, 4, 3)), np.arange(8), batch_size=4)\n"
        'frames = augment.flow_from_dataframe(table, directory="photos")\n'
    )
    assert _findings(_SPLIT_AFTER.format(before=before), "TFD111") == []


def test_a_tensor_after_the_image_generator_still_starts_it() -> None:
    found = _findings(_SPLIT_AFTER.format(before="mean = tf.constant([0.5, 0.5, 0.5])\n"), "TFD111")
    assert [f.start.line for f in found] == [10]


# -- TFD101: a functional model whose layers make their weights in statements the fix leaves ---------


def _notebook_findings(*cells: str) -> list[Finding]:
    data = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    result = analyse_notebook("course.ipynb", json.dumps(data), Config(select=("TFD101",)), fix=False, unsafe=True)
    return [f for f in result.findings if f.code == "TFD101"]


_TPU_OR_DEFAULT = (
    "import tensorflow as tf\n"
    "try:\n"
    "    resolver = tf.distribute.cluster_resolver.TPUClusterResolver()\n"
    "    strategy = tf.distribute.TPUStrategy(resolver)\n"
    "except ValueError:\n"
    "    strategy = tf.distribute.get_strategy()\n"
    'print("replicas:", strategy.num_replicas_in_sync)\n'
)
_BACKBONE = (
    "backbone = tf.keras.applications.MobileNetV2(input_shape=(96, 96, 3), include_top=False)\n"
    "features = backbone(sample_images)\n"
)
_HEAD = "classifier = tf.keras.layers.Dense(5)\nscores = classifier(tf.reduce_mean(features, axis=[1, 2]))\n"
_ASSEMBLE = (
    "pixels = tf.keras.Input(shape=(96, 96, 3))\n"
    "pooled = tf.keras.layers.GlobalAveragePooling2D()(backbone(pixels, training=False))\n"
    "logits = classifier(pooled)\n"
    "net = tf.keras.Model(pixels, logits)\n"
    "net.compile(optimizer='adam', loss='mse')\n"
)
_RECOMPILE = "backbone.trainable = True\nnet.compile(optimizer=tf.keras.optimizers.Adam(1e-5), loss='mse')\n"


def test_a_model_assembled_from_layers_built_in_earlier_cells_gets_no_move() -> None:
    found = _notebook_findings(_TPU_OR_DEFAULT, _BACKBONE, _HEAD, _ASSEMBLE, "net.fit(images, labels)\n")
    (model,) = found
    assert model.start.line == 4 and model.fix is None
    assert "cell 2, line 1" in model.message and "cell 3, line 2" in model.message
    assert "build the layers in the scope too" in model.message


def test_the_compile_and_recompile_of_that_model_are_not_findings_of_their_own() -> None:
    found = _notebook_findings(_TPU_OR_DEFAULT, _BACKBONE, _HEAD, _ASSEMBLE, _RECOMPILE, "net.fit(images)\n")
    assert [(f.cell, f.start.line) for f in found] == [(4, 4)]


def test_a_used_strategy_keeps_the_compile_finding() -> None:
    """Control: the strategy distributes the dataset, so the model's message is not "build and
    compile it in the scope" and the compile outside the scope stays a finding."""
    fit = "net.fit(strategy.experimental_distribute_dataset(images))\n"
    found = _notebook_findings(_TPU_OR_DEFAULT, _BACKBONE, _HEAD, _ASSEMBLE, fit)
    assert sorted((f.cell, f.start.line) for f in found) == [(4, 4), (4, 5)]


_FUNCTIONAL = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
features = tf.keras.Input(shape=(8,))
{layers}
model.compile(optimizer="adam", loss="mse")
model.fit(dataset)
"""


def test_a_functional_model_whose_layers_are_called_before_it_gets_no_move() -> None:
    layers = "hidden = tf.keras.layers.Dense(16)(features)\nmodel = tf.keras.Model(features, hidden)"
    (model,) = _findings(_FUNCTIONAL.format(layers=layers), "TFD101")
    assert model.fix is None and "(line 6)" in model.message


def test_a_functional_model_whose_layers_are_called_in_its_own_line_keeps_the_move() -> None:
    """Control: the only layer call is in the moved statement, so its weights are made in the scope."""
    layers = "model = tf.keras.Model(features, tf.keras.layers.Dense(16)(features))"
    model = next(f for f in _findings(_FUNCTIONAL.format(layers=layers), "TFD101") if f.start.line == 6)
    assert model.fix is not None and "weights" not in model.message


# -- target: AWS Deep Learning Container tags name a TensorFlow release ----------------------------

_AWS_IMAGE = "763104351884.dkr.ecr.us-west-2.amazonaws.com/tensorflow-training:2.7.1-gpu-py38-cu112-ubuntu20.04"


def _version(path: Path) -> tuple[int, int] | None:
    target = target_for(path)
    return None if target.assumed else target.version


def test_a_dockerfile_from_an_aws_training_container_states_its_release(tmp_path: Path) -> None:
    root = tree(tmp_path, {"Dockerfile": f"FROM {_AWS_IMAGE}\nCOPY . /opt/ml/code\n", "train.py": ""})
    assert _version(root / "train.py") == (2, 7)


def test_a_job_config_naming_an_aws_container_states_its_release() -> None:
    config = f"image_uri: {_AWS_IMAGE.replace('2.7.1', '2.3.1')}\n# {_AWS_IMAGE}\n"
    assert [(e.line, e.allowed.newest()) for e in read_job_config(config, "job.yml")] == [(1, (2, 3))]


def test_another_framework_s_aws_container_states_nothing(tmp_path: Path) -> None:
    """Control: a PyTorch container of the same registry names no TensorFlow release."""
    image = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:1.8.1-gpu-py36-cu111-ubuntu18.04"
    root = tree(tmp_path, {"Dockerfile": f"FROM {image}\n", "train.py": ""})
    assert _version(root / "train.py") is None


# -- TFD402: a one-off `strategy.run` of a no-argument callback before the loop -------------------

_PROFILED_LOOP = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD()


def replica_step(features, labels):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(features) - labels) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def training_loop(profiler, dataset):
    strategy.run(profiler.start)
    for features, labels in dataset:
        {step}
    strategy.run(profiler.stop)
"""


def test_a_one_off_callback_run_is_not_the_finding_the_loop_s_step_is() -> None:
    text = _PROFILED_LOOP.format(step="strategy.run(replica_step, args=(features, labels))")
    assert [f.start.line for f in _findings(text, "TFD402")] == [21]


def test_a_no_argument_step_run_in_the_loop_is_still_reported() -> None:
    """Control: no arguments, but run on every pass of the loop: the per-step cost is there."""
    text = _PROFILED_LOOP.format(step="strategy.run(replica_step)").replace("    strategy.run(profiler.start)\n", "")
    assert [f.start.line for f in _findings(text, "TFD402")] == [20]
