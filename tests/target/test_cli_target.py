"""`distfix target`, `--target-version`, `target-version` in pyproject.toml, and the cache
following the files the target was read from (the real command line, in subprocesses)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.conftest import run_distfix

MWMS_FIT = """\
import os

import tensorflow as tf

assert "TF_CONFIG" in os.environ  # a worker of a cluster: TFD504 needs one
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model.fit(x, y)
"""


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    past = time.time() - 60  # older than the cache's "racily clean" window: results are recorded
    for name in files:
        os.utime(tmp_path / name, (past, past))
    return tmp_path


def test_target_prints_the_decision_and_its_files(tmp_path):
    root = project(tmp_path, {"requirments.txt": "Tensorflow==2.2.0\n", "train.py": ""})
    result = run_distfix("target", str(root / "train.py"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "TensorFlow 2.2 (from requirments.txt:1: Tensorflow==2.2.0)"
    assert "Keras 2" in result.stdout
    data = json.loads(run_distfix("target", str(root), "--format", "json").stdout)
    assert (data["tensorflow"], data["keras"], data["files_read"]) == ("2.2", 2, ["requirments.txt"])


def test_target_says_when_it_assumed(tmp_path):
    result = run_distfix("target", str(project(tmp_path, {"train.py": ""})))
    assert result.stdout.startswith("TensorFlow 2.21 (assumed: no file of the project names TensorFlow)")


def test_a_bad_target_version_is_a_usage_error(tmp_path):
    root = project(tmp_path, {"train.py": MWMS_FIT})
    result = run_distfix("check", str(root), "--target-version", "latest")
    assert result.returncode == 2 and "must be a TensorFlow version" in result.stderr and "Traceback" not in result.stderr
    (root / "pyproject.toml").write_text('[tool.distfix]\ntarget-version = 2.21\n')
    result = run_distfix("check", str(root / "train.py"))
    assert result.returncode == 2 and "target-version must be a TensorFlow version" in result.stdout + result.stderr


def test_target_version_from_the_command_line_and_from_pyproject(tmp_path):
    root = project(tmp_path, {"requirements.txt": "tensorflow==2.12.0\n", "train.py": MWMS_FIT})
    assert "TFD504" not in run_distfix("check", str(root)).stdout
    upgrade = run_distfix("check", str(root), "--target-version", "2.21").stdout
    assert "TFD504 on upgrade to TF 2.21: Keras 3" in upgrade
    (root / "pyproject.toml").write_text('[tool.distfix]\ntarget-version = "2.21"\n')
    assert "TFD504 on upgrade to TF 2.21" in run_distfix("check", str(root)).stdout


def test_a_pin_file_added_after_a_cached_run_changes_the_result(tmp_path):
    root = project(tmp_path, {"train.py": MWMS_FIT})
    assert "TFD504" in run_distfix("check", str(root)).stdout
    assert "TFD504" in run_distfix("check", str(root)).stdout  # answered from the cache
    (root / "requirements.txt").write_text("tensorflow==2.5.0\n")
    assert "TFD504" not in run_distfix("check", str(root)).stdout
    (root / "requirements.txt").unlink()
    assert "TFD504" in run_distfix("check", str(root)).stdout


def test_target_of_a_notebook_names_its_install_cell(tmp_path):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook = {
        "cells": [{**cell, "source": "x = 1"}, {**cell, "source": '%pip install -q "tensorflow>=2.5,<2.7" pandas'}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    root = project(tmp_path, {"requirements.txt": "tensorflow==2.15.0\n", "lab.ipynb": json.dumps(notebook)})
    result = run_distfix("target", str(root / "lab.ipynb"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == 'TensorFlow 2.6 (from lab.ipynb:cell 2:1: %pip install -q "tensorflow>=2.5,<2.7" pandas)'
    data = json.loads(run_distfix("target", str(root / "lab.ipynb"), "--format", "json").stdout)
    assert data["decided_by"] == {"file": "lab.ipynb", "line": 1, "cell": 2, "text": '%pip install -q "tensorflow>=2.5,<2.7" pandas'}
    assert sorted(data["files_read"]) == ["lab.ipynb", "requirements.txt"]
