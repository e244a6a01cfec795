"""TFD504 needs a sign of a cluster: a MultiWorkerMirroredStrategy with no TF_CONFIG, no resolver and
no multi-node job anywhere is one worker on its local devices, where Keras 3 `fit` and `evaluate` work
(benchmarks/probe_ledger9b_premises.py). Each silent case has a control that stays reported."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.conftest import run_distfix

if TYPE_CHECKING:
    from pathlib import Path

ONE_MACHINE = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(loss="mse")
model.fit(x, y, epochs=2)
model.evaluate(x, y)
"""
READS_TF_CONFIG = 'import json, os\nworkers = json.loads(os.environ["TF_CONFIG"])["cluster"]["worker"]\n'


def _tfd504_lines(root: Path, files: dict[str, str]) -> list[str]:
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    result = run_distfix("check", "--no-cache", "--select", "TFD504", str(root))
    assert result.returncode in (0, 1), result.stderr
    return [line for line in result.stdout.splitlines() if "TFD504" in line]


def test_no_sign_of_a_cluster_anywhere_is_one_worker(tmp_path):
    files = {"train.py": ONE_MACHINE, "run.sh": "python train.py --epochs 2\n", "utils.py": "import os\n"}
    assert _tfd504_lines(tmp_path, files) == []


@pytest.mark.parametrize(
    "files",
    [
        pytest.param({"train.py": READS_TF_CONFIG + ONE_MACHINE}, id="the script reads TF_CONFIG"),
        pytest.param(
            {
                "train.py": "from cluster import setup\n" + ONE_MACHINE,
                "cluster.py": 'def setup():\n    os.environ["TF_CONFIG"] = "{}"\n',
            },
            id="a helper module of the tree writes TF_CONFIG",
        ),
        pytest.param(
            {"train.py": ONE_MACHINE, "job.pbs": "#PBS -l select=2:ngpus=1\nmpirun -np 2 python train.py\n"},
            id="a two-node PBS job runs the script",
        ),
        pytest.param(
            {"train.py": ONE_MACHINE, "submit.sh": "#SBATCH --nodes=4\nsrun python train.py\n"},
            id="a four-node Slurm job runs the script",
        ),
        pytest.param(
            {
                "train.py": ONE_MACHINE,
                "tfjob.yaml": "kind: TFJob\nspec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: 2\n"
                "      template:\n        spec:\n          containers:\n          - command: [python, train.py]\n",
            },
            id="a TFJob runs the script",
        ),
        pytest.param(
            {
                "train.py": ONE_MACHINE.replace(
                    "MultiWorkerMirroredStrategy()", "MultiWorkerMirroredStrategy(cluster_resolver=resolver)"
                )
            },
            id="a cluster resolver is passed",
        ),
    ],
)
def test_control_a_sign_of_a_cluster_keeps_the_finding(tmp_path, files):
    assert len(_tfd504_lines(tmp_path, files)) == 2, "fit and evaluate"


def test_a_multi_node_job_running_another_script_is_no_sign_for_this_one(tmp_path):
    files = {"train.py": ONE_MACHINE, "job.pbs": "#PBS -l select=2\nmpirun python other.py\n"}
    assert _tfd504_lines(tmp_path, files) == []
