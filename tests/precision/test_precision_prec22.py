"""Issue 28, ledger8a classes 2, 3 and 4 (task prec22): saves to a folder of each worker's own
container (TFD502), a strategy chosen by a flag whose default is one device, and a notebook's
single-device baseline that runs before the cell that creates the strategy (TFD101/TFD103).

Each program is a minimal shape written for this suite; each wrong finding has a control that
stays reported.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook
from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

_TRAINED = """\
import argparse
import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
model.fit(x, y)
"""


def _tfd502_lines(source: str) -> list[int]:
    return [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD502"]


def _save_line(source: str) -> int:
    return len(source.splitlines())


# Class 2: SageMaker's model folder is each instance's own ---------------------------------------


@pytest.mark.parametrize(
    "save",
    [
        "model.save(os.environ['SM_MODEL_DIR'])",
        "model.save(os.path.join(os.environ.get('SM_MODEL_DIR'), '1'))",
        "model.save('/opt/ml/model/1')",
        "export = os.getenv('SM_MODEL_DIR') + '/export'\nmodel.save(export)",
    ],
)
def test_a_save_under_the_sagemaker_model_folder_is_per_container(save):
    assert _tfd502_lines(_TRAINED + save + "\n") == []


def test_a_flag_defaulting_to_the_sagemaker_model_folder_is_per_container():
    flag = (
        "parser = argparse.ArgumentParser()\nparser.add_argument('--model_dir', default=os.environ['SM_MODEL_DIR'])\n"
    )
    source = flag + _TRAINED + "args = parser.parse_args()\nmodel.save(os.path.join(args.model_dir, 'model'))\n"
    assert _tfd502_lines(source) == []


@pytest.mark.parametrize(
    "save",
    [
        "model.save(os.environ['AIP_MODEL_DIR'])",
        "model.save('gs://bucket/model')",
        "model.save(os.path.join('s3://bucket', 'model'))",
        "model.save('/tmp/model')",
    ],
)
def test_shared_storage_and_a_local_path_without_a_per_pod_job_stay_reported(save):
    source = _TRAINED + save + "\n"
    assert _tfd502_lines(source) == [_save_line(source)]


def test_a_flag_defaulting_to_a_bucket_stays_reported():
    flag = "parser = argparse.ArgumentParser()\nparser.add_argument('--model-dir', default='gs://bucket/m')\n"
    source = flag + _TRAINED + "args = parser.parse_args()\nmodel.save(args.model_dir)\n"
    assert _tfd502_lines(source) == [_save_line(source)]


# Class 2: a script a per-pod job runs --------------------------------------------------------------

_TFJOB = """\
apiVersion: kubeflow.org/v1
kind: TFJob
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: tensorflow
              command: ["python", "/app/train.py"]
"""

_COMPONENT = """\
kind: component
run:
  kind: tfjob
  worker:
    replicas: 2
    container:
      command: ["python", "-u", "train.py"]
"""

_SHELL = "#!/bin/sh\nfor i in 0 1; do\n  TF_CONFIG=$(./config.sh $i) python train.py &\ndone\nwait\n"


def _project_lines(root: Path, launcher: str, text: str, save: str) -> list[int]:
    (root / "train.py").write_text(_TRAINED + save + "\n")
    (root / launcher).parent.mkdir(parents=True, exist_ok=True)
    (root / launcher).write_text(text)
    (result,) = [r for r in run([root / "train.py"], Job(use_cache=False, project_roots=(str(root),)), jobs=1)]
    return [f.start.line for f in result.findings if f.code == "TFD502"]


@pytest.mark.parametrize(("launcher", "text"), [("k8s/job.yaml", _TFJOB), ("polyaxonfile.yaml", _COMPONENT)])
def test_a_local_path_in_a_script_a_tfjob_runs_is_per_pod(tmp_path, launcher, text):
    assert _project_lines(tmp_path, launcher, text, "model.save('/tmp/model')") == []


def test_a_bucket_in_a_script_a_tfjob_runs_stays_reported(tmp_path):
    lines = _project_lines(tmp_path, "k8s/job.yaml", _TFJOB, "model.save('gs://bucket/model')")
    assert lines == [_save_line(_TRAINED) + 1]


def test_a_local_path_of_processes_on_one_host_stays_reported(tmp_path):
    lines = _project_lines(tmp_path, "run.sh", _SHELL, "model.save('/tmp/model')")
    assert lines == [_save_line(_TRAINED) + 1]


# Class 4: a notebook's single-device baseline before the strategy's cell ------------------------


def _notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c}
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def _notebook_findings(*cells: str, fix: bool = False) -> list[tuple[str, int | None, int, int]]:
    result = analyse_notebook("baseline.ipynb", _notebook(*cells), Config(), fix=fix, unsafe=fix)
    return [(f.code, f.cell, f.start.line, f.start.column) for f in result.findings]


_SETUP = (
    "import tensorflow as tf",
    "x = tf.random.normal((64, 4))\ny = tf.random.normal((64, 1))\n"
    "ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)",
    "model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])",
    "loss_func = tf.keras.losses.MeanSquaredError()\noptimizer = tf.keras.optimizers.Adam()",
    "@tf.function\ndef train_step(a, b):\n    with tf.GradientTape() as tape:\n"
    "        loss = loss_func(b, model(a))\n    grads = tape.gradient(loss, model.trainable_variables)\n"
    "    optimizer.apply_gradients(zip(grads, model.trainable_variables))\n    return loss",
    "def train(epochs):\n    for _ in range(epochs):\n        for a, b in ds:\n"
    "            loss = train_step(a, b)\n    return loss",
    "train(2)",
    "strategy = tf.distribute.MirroredStrategy()",
)
_REBUILT = (
    "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])\n"
    "    model.compile(optimizer='adam', loss='mse')\nmodel.fit(ds, epochs=1)"
)


def test_a_step_run_only_before_the_strategy_cell_is_a_single_device_baseline():
    assert [f for f in _notebook_findings(*_SETUP, _REBUILT) if f[0] in ("TFD101", "TFD103")] == []


def test_the_same_step_run_again_after_the_strategy_cell_stays_reported_once():
    rebuilt_with_its_optimizer = (
        "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])\n"
        "    optimizer = tf.keras.optimizers.Adam()"
    )
    findings = [f for f in _notebook_findings(*_SETUP, rebuilt_with_its_optimizer, "train(1)") if f[0] == "TFD103"]
    assert [f[1] for f in findings] == [6]
    assert len(set(findings)) == len(findings)


def test_a_keyword_named_like_the_optimizer_is_not_a_use_of_it():
    # `compile(optimizer="adam")` in the scope does not read the baseline's `optimizer` variable.
    assert [f for f in _notebook_findings(*_SETUP, _REBUILT) if f[0] == "TFD101" and f[1] == 4] == []


def test_the_baseline_optimizer_handed_to_compile_in_the_scope_stays_reported():
    compiled = (
        "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])\n"
        "    model.compile(optimizer=optimizer, loss='mse')\nmodel.fit(ds, epochs=1)"
    )
    assert [f[:2] for f in _notebook_findings(*_SETUP, compiled) if f[0] == "TFD101"] == [("TFD101", 4)]


def test_a_strategy_made_in_a_function_keeps_the_step_reported():
    # The strategy is not a module-level name: when the step runs is not a question of cells.
    source = (
        "import tensorflow as tf\n\n"
        "def main(ds):\n    strategy = tf.distribute.MirroredStrategy()\n    with strategy.scope():\n"
        "        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])\n"
        "        optimizer = tf.keras.optimizers.SGD()\n\n"
        "    def step(a, b):\n        with tf.GradientTape() as tape:\n"
        "            loss = tf.reduce_mean((model(a) - b) ** 2)\n"
        "        grads = tape.gradient(loss, model.trainable_variables)\n"
        "        optimizer.apply_gradients(zip(grads, model.trainable_variables))\n\n"
        "    for a, b in ds:\n        step(a, b)\n\nmain(None)\n"
    )
    assert [f.code for f in check_source("train.py", source).findings if f.code == "TFD103"] == ["TFD103"]


def _eager_step_findings(run_before_the_strategy: bool) -> list:
    """TFD103 with its fixes computed, for the eager step (a rewrite is offered for it)."""
    rebuilt = (
        "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])\n"
        "    optimizer = tf.keras.optimizers.SGD()"
    )
    cells = [c.replace("@tf.function\n", "") for c in _SETUP if run_before_the_strategy or c != "train(2)"]
    config = Config(select=("TFD103",))
    result = analyse_notebook("baseline.ipynb", _notebook(*cells, rebuilt, "train(1)"), config, fix=False, unsafe=True)
    return list(result.findings)


def test_no_rewrite_names_the_strategy_where_a_run_comes_before_its_cell():
    (finding,) = _eager_step_findings(run_before_the_strategy=True)
    assert finding.fix is None
    assert "not rewritten: it also runs before `strategy` exists" in finding.message


def test_a_loop_run_only_after_the_strategy_cell_keeps_its_rewrite():
    (finding,) = _eager_step_findings(run_before_the_strategy=False)
    assert finding.fix is not None


# Class 3: a strategy chosen by a flag whose default is one device ---------------------------------

_BY_FLAG = """\
import argparse

import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--distribute", default="single")
args = parser.parse_args()
if args.distribute == "single":
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
elif args.distribute == "mirror":
    strategy = tf.distribute.MirroredStrategy()
elif args.distribute == "multi":
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
model.fit(x, y)
model.save("gs://bucket/model")
"""


def _flag_project_lines(root: Path, launchers: dict[str, str], source: str = _BY_FLAG) -> list[int]:
    (root / "task.py").write_text(source)
    for name, text in launchers.items():
        (root / name).write_text(text)
    (result,) = run([root / "task.py"], Job(use_cache=False, project_roots=(str(root),)), jobs=1)
    return [f.start.line for f in result.findings if f.code == "TFD502"]


@pytest.mark.parametrize(
    "launchers",
    [
        {},
        {"run.sh": "#!/bin/sh\npython task.py --epochs 3\n"},
        {"run.sh": "#!/bin/sh\npython task.py --distribute=mirror\n"},
    ],
)
def test_a_multi_worker_arm_no_launcher_selects_is_not_the_strategy_at_the_save(tmp_path, launchers):
    assert _flag_project_lines(tmp_path, launchers) == []


@pytest.mark.parametrize(
    "launcher",
    [
        "#!/bin/sh\npython task.py --distribute multi\n",
        "import subprocess\nsubprocess.run(['python', 'task.py', '--distribute', 'multi'])\n",
    ],
)
def test_a_launcher_passing_the_multi_worker_value_keeps_the_save_reported(tmp_path, launcher):
    name = "run.sh" if launcher.startswith("#!") else "launch.py"
    assert _flag_project_lines(tmp_path, {name: launcher}) == [len(_BY_FLAG.splitlines())]


def test_the_else_arm_of_the_default_value_runs_only_when_a_launcher_passes_the_flag(tmp_path):
    source = _BY_FLAG.replace(
        'elif args.distribute == "mirror":\n    strategy = tf.distribute.MirroredStrategy()\n'
        'elif args.distribute == "multi":\n',
        "else:\n",
    )
    assert _flag_project_lines(tmp_path, {}, source) == []
    passed = {"run.sh": "#!/bin/sh\npython task.py --distribute multi\n"}
    assert _flag_project_lines(tmp_path, passed, source) == [len(source.splitlines())]


def test_a_flag_defaulting_to_the_multi_worker_value_keeps_the_save_reported(tmp_path):
    source = _BY_FLAG.replace('default="single"', 'default="multi"')
    assert _flag_project_lines(tmp_path, {}, source) == [len(source.splitlines())]
