"""Regression tests for issue 28, blind round ledger22b (task fix22c): HPC job scripts and notebooks.

1. An environment module named `<name>/py3/<release>` (a Python-flavour folder between the package
   and its release, as one national centre names every framework module) is that release.
2. A job script that activates a conda environment (or a virtualenv) whose name states TensorFlow and
   a release (`.../miniconda-tf2.3`) runs the script on that release.
3. An ipyparallel `%%px` cell is Python run on every engine: its body is analysed, not masked.

Each test is a minimal project in our own words of a shape found in public code, with a control
that keeps today's reading where it is right. Premises: benchmarks/probe_ledger22b_premises.py and
codemods/api/renamed_distribute_api.py's table (the stable MultiWorkerMirroredStrategy is 2.4's).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import analyse_notebook
from fixer.target import target_for
from fixer.target.shell_scripts import read_shell_script
from tests.project_trees import tree

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding


def _newest(script: str) -> list[tuple[int, int]]:
    return [e.allowed.newest() for e in read_shell_script(script, "job.slurm")]


def _codes(path: Path) -> list[str]:
    return [f.code for f in check_source(str(path), path.read_text()).findings]


# --- 1. A Python-flavour folder between the module's name and its release -------------------------

_FIT_UNDER_MWMS = """import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.SlurmClusterResolver())
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
    model.compile(optimizer="sgd", loss="mse")
model.fit(tf.zeros([8, 4]), tf.zeros([8, 10]), epochs=1)
"""


@pytest.mark.parametrize(
    ("module", "release"),
    [
        ("tensorflow-gpu/py3/2.4.0", (2, 4)),
        ("tensorflow/py2/1.14", (1, 14)),
        ("tensorflow/python3.8/2.6.2", (2, 6)),
        ("tensorflow/gpu-2.2.0-py37", (2, 2)),  # a build flavour in front of the release
        ("tensorflow/intel-1.15.0-py37", (1, 15)),
    ],
)
def test_a_flavour_segment_before_the_release_is_skipped(module, release):
    assert _newest(f"module purge\nmodule load {module}\n") == [release]


@pytest.mark.parametrize(
    "module",
    [
        "tensorflow-gpu/py3",  # no release: the site's default
        "tensorflow/nvidia/20.07",  # a container release, not TensorFlow's
        "tensorflow/nvidia-20.07-tf2-py3",
        "pytorch-gpu/py3/2.4.0",  # another framework's release
        "tensorflow/cuda11.2/2.4",  # a segment the reader does not know stays unread
    ],
)
def test_segments_that_do_not_state_a_tensorflow_release_stay_unread(module):
    assert _newest(f"module load {module}\n") == []


def test_a_job_loading_a_py3_module_runs_its_program_on_keras_2(tmp_path):
    job = "#!/bin/bash\n#SBATCH --nodes=2\nmodule purge\nmodule load tensorflow-gpu/py3/2.4.0\nsrun python train.py\n"
    root = tree(tmp_path, {"job.slurm": job, "train.py": _FIT_UNDER_MWMS})
    assert target_for(root / "train.py").version == (2, 4)
    assert "TFD504" not in _codes(root / "train.py")


def test_a_job_loading_an_unversioned_py3_module_keeps_the_finding(tmp_path):
    # Control: without a release the module is the site's default, which changes.
    job = "#!/bin/bash\nmodule load tensorflow-gpu/py3\nsrun python train.py\n"
    root = tree(tmp_path, {"job.slurm": job, "train.py": _FIT_UNDER_MWMS})
    assert "TFD504" in _codes(root / "train.py")


# --- 2. A conda environment (or virtualenv) named for its TensorFlow -------------------------------

_EXPERIMENTAL_MWMS = """import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.SlurmClusterResolver())
"""


@pytest.mark.parametrize(
    ("command", "release"),
    [
        ("conda activate /apps/site/sandboxes/someone/miniconda-tf2.3", (2, 3)),
        ("conda activate tf2.6", (2, 6)),
        ("source activate tensorflow-2.4", (2, 4)),
        ("mamba activate tf-2.3.0", (2, 3)),
        ("conda activate --stack envs/py38_tf_2.5/", (2, 5)),
        ("conda activate tensorflow-gpu-2.2", (2, 2)),
        ("source $HOME/venvs/tf2.7-cuda11/bin/activate", (2, 7)),
        (". ./tf-1.15/bin/activate", (1, 15)),
        ("source /opt/conda/bin/activate tf2.4", (2, 4)),  # conda's script, the environment as argument
    ],
)
def test_an_environment_named_for_a_tensorflow_release_is_that_release(command, release):
    assert _newest(f"#!/bin/bash\n{command}\nsrun python train.py\n") == [release]


@pytest.mark.parametrize(
    "command",
    [
        "conda activate tf2",  # a major version alone
        "conda activate tf2-gpu",
        ". tf-rocm5.4.1-env/bin/activate",  # ROCm's release
        "conda activate tf",
        "conda activate tf-gpu",
        "conda activate tfx-1.4",  # another tool's release
        "conda activate tfp-0.12",
        "conda activate tf-agents-0.9",
        "conda activate tflite-2.4",
        "conda activate /opt/tf2.3/envs/analysis",  # the environment is `analysis`
        "conda activate py3.8",
        "conda activate stf-2.3",
        "conda deactivate",
        "source ~/.bashrc",
        "source /opt/tf2.3/setup.sh",
        "source /opt/tf2.3-conda/bin/activate analysis",  # the environment is `analysis`
        "echo conda activate tf2.3",
    ],
)
def test_names_that_do_not_state_tensorflow_and_a_release_stay_unread(command):
    assert _newest(f"#!/bin/bash\n{command}\n") == []


def test_a_job_activating_a_tf_2_3_environment_keeps_its_experimental_strategy(tmp_path):
    job = "#!/bin/bash -l\n#SBATCH --nodes=4\n\nconda activate /apps/sandbox/miniconda-tf2.3\nsrun python -u bench.py\n"
    root = tree(tmp_path, {"bench.sh": job, "bench.py": _EXPERIMENTAL_MWMS})
    assert target_for(root / "bench.py").version == (2, 3)
    assert "TFD401" not in _codes(root / "bench.py")


def test_a_job_activating_an_environment_without_a_release_keeps_the_rename(tmp_path):
    # Control: `tf2` names a major version only; nothing else states the TF, so the rule reports.
    job = "#!/bin/bash -l\nconda activate tf2\nsrun python -u bench.py\n"
    root = tree(tmp_path, {"bench.sh": job, "bench.py": _EXPERIMENTAL_MWMS})
    assert "TFD401" in _codes(root / "bench.py")


# --- 3. `%%px` cells run their body as Python on every engine --------------------------------------


def _notebook(path: Path, cells: list[str]) -> Path:
    body = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
            for source in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    path.write_text(json.dumps(body))
    return path


def _findings(notebook: Path) -> list[Finding]:
    return analyse_notebook(str(notebook), notebook.read_text(), Config(), fix=False, unsafe=False).findings


@pytest.mark.parametrize("magic", ["%%px", "%%px --local", "%%px --targets 0 --block"])
def test_a_px_cell_body_is_analysed(tmp_path, magic):
    notebook = _notebook(
        tmp_path / "train.ipynb",
        [
            "%ipcluster start -n 2 --mpi",
            f"{magic}\nimport tensorflow as tf\nstrategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()",
        ],
    )
    findings = _findings(notebook)
    assert [(f.code, f.cell) for f in findings] == [("TFD401", 2)]


def test_a_cell_magic_that_runs_another_language_stays_masked(tmp_path):
    # Control: `%%bash` is not Python; `%%pxconfig` is no cell magic (IPython would fail on the cell).
    notebook = _notebook(
        tmp_path / "train.ipynb",
        [
            "%%bash\nstrategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()",
            "%%pxconfig --block\nstrategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()",
        ],
    )
    assert _findings(notebook) == []
