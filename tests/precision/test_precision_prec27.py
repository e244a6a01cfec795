"""Issue 28, the ledger's last fp judged by measurement (task prec27).

- TFD101: a model built in the scope and compiled after it with a string optimizer, in a model
  class with a Keras 2 style `train_step` of its own, in an unpinned notebook: Keras 3 (what a
  fresh run gets) raises at the first step (benchmarks/probe_compile_after_scope_slots.py), so
  it stays reported; a notebook that installs a Keras 2 TensorFlow is not.
- TFD503: a save the chief reaches alone after the others `sys.exit()`, in a script whose
  strategy comes from a dictionary of hyper-parameters defaulting to one device: the
  multi-worker arm is one the script offers, and there the save fails (tf-keras:
  `UnavailableError`, benchmarks/probe_chief_saves_after_exit.py): reported, with a message
  that says it may fail, not only hang.

The CI's legacy-Keras switch (TFD504) is tests/target/test_ci_legacy_switch.py; a frozen platform
image (TFD401) is tests/rules/test_platform_pinned_notebooks.py.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook

if TYPE_CHECKING:
    from pathlib import Path

# TFD101: compile after the scope, in a model class stepping its optimizer itself -----------------

_OWN_STEP_CELLS = (
    "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n",
    "class Wrapped(tf.keras.Model):\n"
    "    def __init__(self, inner):\n"
    "        super().__init__()\n"
    "        self.inner = inner\n\n"
    "    def train_step(self, data):\n"
    "        x, y = data\n"
    "        with tf.GradientTape() as tape:\n"
    "            loss = self.compiled_loss(y, self.inner(x))\n"
    "        grads = tape.gradient(loss, self.inner.trainable_variables)\n"
    "        self.optimizer.apply_gradients(zip(grads, self.inner.trainable_variables))\n"
    "        return {'loss': loss}\n",
    "with strategy.scope():\n"
    "    model = Wrapped(tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)]))\n"
    "model.compile(optimizer='adam', loss='mse')\n"
    "model.fit(features, labels, epochs=2)\n",
)


def _notebook_codes(path: Path, cells: tuple[str, ...]) -> list[str]:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    text = json.dumps({"cells": [{**cell, "source": c} for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    path.write_text(text)
    result = analyse_notebook(str(path), text, Config(select=("TFD101",)), fix=False, unsafe=False)
    return [f.code for f in result.findings]


def test_compile_after_the_scope_in_an_unpinned_notebook_is_reported(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    assert _notebook_codes(tmp_path / "sam.ipynb", _OWN_STEP_CELLS) == ["TFD101"]


def test_control_the_same_notebook_installing_a_keras_2_tensorflow_is_not_reported(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    cells = ("!pip install -q tensorflow==2.15.1\n", *_OWN_STEP_CELLS)
    assert _notebook_codes(tmp_path / "sam.ipynb", cells) == []


# TFD503: the chief saves alone after the others exit, strategy from hyper-parameters ------------

_BY_HPARAMS = """\
import argparse
import json
import sys

import tensorflow as tf

DEFAULTS = dict(epochs=1, distribute_strategy="single")


def get_strategy(name):
    if name == "single":
        return tf.distribute.OneDeviceStrategy("/cpu:0")
    if name == "multi":
        return tf.distribute.MultiWorkerMirroredStrategy()
    raise RuntimeError(name)


def is_chief(strategy):
    resolver = strategy.cluster_resolver
    return resolver is None or (resolver.task_type == "chief" and resolver.task_id == 0)


parser = argparse.ArgumentParser()
parser.add_argument("--hparams", default={}, type=json.loads)
hparams = {**DEFAULTS, **parser.parse_args().hparams}
strategy = get_strategy(hparams["distribute_strategy"])
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
model.fit(x, y, epochs=hparams["epochs"])
if not is_chief(strategy):
    sys.exit()
model.save("gs://bucket/model")
"""


def test_a_chief_alone_after_the_others_exit_on_an_offered_multi_worker_arm_is_reported():
    (finding,) = [f for f in check_source("train.py", _BY_HPARAMS).findings if f.code == "TFD503"]
    assert finding.start.line == len(_BY_HPARAMS.splitlines())
    assert "may wait forever or fail" in finding.message and len(finding.message) <= 200


def test_control_without_a_multi_worker_arm_nothing_is_reported():
    source = _BY_HPARAMS.replace('    if name == "multi":\n        return tf.distribute.MultiWorkerMirroredStrategy()\n', "")
    assert [f.code for f in check_source("train.py", source).findings if f.code == "TFD503"] == []
