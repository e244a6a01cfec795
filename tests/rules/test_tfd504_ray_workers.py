"""TFD504 under Ray: a `fit` that runs in Ray worker processes keeps its finding but gets advice
(the worker environment, the runtime_env) instead of a TF_USE_LEGACY_KERAS line at the top of
the driver, which does not reach workers of a cluster it connects to
(benchmarks/probe_ray_worker_environment.py). The plain script keeps the rewrite."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook

if TYPE_CHECKING:
    from pathlib import Path

TRAIN = """\
def train_func(config):
    import tensorflow as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y)
"""
HELPER = """\
import tensorflow as tf

def build_and_fit():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y)
"""

SHAPES = {
    "trainer keyword": "import ray\nfrom ray.train.tensorflow import TensorflowTrainer\n"
    + TRAIN
    + "ray.init('ray://head:10001')\nTensorflowTrainer(train_loop_per_worker=train_func, scaling_config=s).fit()\n",
    "trainer positional": "from ray.train.tensorflow import TensorflowTrainer\n"
    + TRAIN
    + "TensorflowTrainer(train_func, scaling_config=s).fit()\n",
    "remote decorator": "import ray\n\n@ray.remote(num_cpus=1)\n" + TRAIN + "ray.get(train_func.remote({}))\n",
    "remote wrap": "import ray\n" + TRAIN + "task = ray.remote(train_func)\n",
    "helper of a remote function": "import ray\n"
    + HELPER
    + "\n@ray.remote\ndef work():\n    build_and_fit()\n",
}


def _tfd504(path: Path, source: str) -> list:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / ".git").mkdir(exist_ok=True)
    path.write_text(source)
    return [f for f in check_source(str(path), source).findings if f.code == "TFD504"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_fit_in_ray_workers_gets_advice_not_the_switch(tmp_path, shape):
    (finding,) = _tfd504(tmp_path / "driver.py", SHAPES[shape])
    assert finding.fix is None
    assert "runs in Ray workers" in finding.message and "runtime_env" in finding.message
    assert len(finding.message) <= 200


def test_control_the_same_fit_in_a_plain_function_keeps_the_rewrite(tmp_path):
    (finding,) = _tfd504(tmp_path / "train.py", HELPER + "build_and_fit()\n")
    assert finding.fix is not None and "Ray" not in finding.message
    # A function of the same name in a Ray-using module that Ray does not run: the rewrite stays.
    (kept,) = _tfd504(tmp_path / "b" / "train.py", "import ray\n" + HELPER + "ray.init()\nbuild_and_fit()\n")
    assert kept.fix is not None


def test_a_ray_client_notebook_gets_no_edit(tmp_path):
    cells = [
        "import ray\nray.init('ray://raycluster-head-svc:10001')",
        TRAIN,
        "from ray.train.tensorflow import TensorflowTrainer\n"
        "trainer = TensorflowTrainer(train_loop_per_worker=train_func, scaling_config=s)\ntrainer.fit()",
    ]
    made = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells]
    notebook = tmp_path / "ray_mnist.ipynb"
    (tmp_path / ".git").mkdir()
    text = json.dumps({"cells": made, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    notebook.write_text(text)
    findings = [f for f in analyse_notebook(str(notebook), text, Config(), fix=False, unsafe=False).findings if f.code == "TFD504"]
    assert len(findings) == 1 and findings[0].fix is None and "Ray workers" in findings[0].message
