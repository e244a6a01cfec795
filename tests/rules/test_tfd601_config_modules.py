"""TFD601's policy on inert configuration modules (issue 28, noise36): a scaffold's config module
that sets a literal TF_CONFIG, imports only the standard library and that no file of the project
imports, runs or starts reaches no cluster and is not reported; an importer anywhere in the
project brings the finding back, also through a warm cache."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

CONFIG_MODULE = """\
import json
import os

MIN_WORKERS = 2

os.environ["TF_CONFIG"] = json.dumps({
    "cluster": {"worker": ["10.20.0.4:12345", "10.20.0.5:12345"]},
    "task": {"type": "worker", "index": 1},
})
"""

PLACEHOLDER_MAIN = 'print("nothing here yet")\n'


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _tfd601(project: Path, name: str, use_cache: bool = False) -> int:
    job = Job(use_cache=use_cache, project_roots=(str(project),))
    files = sorted([*project.rglob("*.py"), *project.rglob("*.ipynb")])
    (result,) = [r for r in run(files, job, jobs=1) if r.path.endswith(name)]
    return sum(f.code == "TFD601" for f in result.findings)


def test_a_config_module_nothing_imports_is_not_reported(tmp_path):
    _write(tmp_path, {"worker/__init__.py": "", "worker/config.py": CONFIG_MODULE, "main.py": PLACEHOLDER_MAIN})
    assert _tfd601(tmp_path, "worker/config.py") == 0


def test_the_same_module_imported_by_a_script_is_reported(tmp_path):
    main = (
        "from worker import config\nimport tensorflow as tf\n\nworkers = tf.distribute.MultiWorkerMirroredStrategy()\n"
    )
    _write(tmp_path, {"worker/__init__.py": "", "worker/config.py": CONFIG_MODULE, "main.py": main})
    assert _tfd601(tmp_path, "worker/config.py") == 1


def test_a_notebook_running_the_module_makes_it_reported(tmp_path):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": "%run config.py\n"}
    notebook = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    _write(tmp_path, {"config.py": CONFIG_MODULE, "train.ipynb": notebook})
    assert _tfd601(tmp_path, "config.py") == 1


def test_a_module_that_imports_tensorflow_is_reported_unread(tmp_path):
    # It may build the cluster itself (or a strategy later): not a configuration module only.
    _write(tmp_path, {"config.py": "import tensorflow as tf\n" + CONFIG_MODULE})
    assert _tfd601(tmp_path, "config.py") == 1


def test_a_config_module_checked_alone_is_reported(tmp_path):
    # No project root: whether anything imports it is unknown.
    job = Job(use_cache=False)
    _write(tmp_path, {"config.py": CONFIG_MODULE})
    (result,) = run([tmp_path / "config.py"], job, jobs=1)
    assert [f.code for f in result.findings].count("TFD601") == 1


def test_a_new_importer_brings_the_finding_back_on_the_next_warm_run(tmp_path, monkeypatch):
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    _write(project, {"worker/__init__.py": "", "worker/config.py": CONFIG_MODULE, "main.py": PLACEHOLDER_MAIN})
    old = 1_700_000_000  # well in the past: the stat index may keep the result
    for path in project.rglob("*.py"):
        os.utime(path, (old, old))
    assert _tfd601(project, "worker/config.py", use_cache=True) == 0
    assert _tfd601(project, "worker/config.py", use_cache=True) == 0  # warm: answered from the cache
    _write(project, {"launch/run.py": "import worker.config\n"})
    os.utime(project / "launch" / "run.py", (old + 10, old + 10))
    assert _tfd601(project, "worker/config.py", use_cache=True) == 1
