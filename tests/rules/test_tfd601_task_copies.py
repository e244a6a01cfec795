"""TFD601 and per-task copies of one program (fixer/tf/task_copies.py).

A project that holds one copy of a notebook or script per task, each setting the same cluster
with its own task index, and whose copies run every index of the cluster, launches its cluster
that way (each copy run by hand, together): the hard-coded TF_CONFIG is that launch, not a
defect. A lone script with a fixed index, an incomplete set, or copies naming another cluster
stay reported. Each test writes a small project of our own and checks it as a folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from fixer.runner import Job, run

NOTEBOOK_CELLS = [
    "import json, os\nimport tensorflow as tf\n",
    "worker_number = {n}\n",
    'os.environ["TF_CONFIG"] = json.dumps({{\n'
    '    "cluster": {{"worker": ["node1:2222", "node2:2222", "node3:2222"]}},\n'
    '    "task": {{"type": "worker", "index": worker_number}},\n'
    "}})\n",
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n",
]

SCRIPT = """\
import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps({{"cluster": {{"worker": ["a:2222", "b:2222"]}}, "task": {{"type": "worker", "index": {n}}}}})
strategy = tf.distribute.MultiWorkerMirroredStrategy()
"""


def _notebook(n: int, output: str = "") -> str:
    cells = [
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": [output]}] if output else [],
            "source": source.format(n=n),
        }
        for source in NOTEBOOK_CELLS
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _tfd601(project: Path) -> dict[str, list]:
    """TFD601's findings per file name, the project checked as a folder."""
    files = sorted(p for p in project.rglob("*") if p.suffix in (".py", ".ipynb"))
    results = run(files, Job(use_cache=False, project_roots=(str(project),)), jobs=1)
    return {Path(r.path).name: [f for f in r.findings if f.code == "TFD601"] for r in results}


def test_one_notebook_per_task_covering_the_cluster_is_not_reported(tmp_path):
    for n in range(3):
        (tmp_path / f"train_worker{n}.ipynb").write_text(_notebook(n, output=f"worker {n} at step {n * 7}"))
    assert _tfd601(tmp_path) == {f"train_worker{n}.ipynb": [] for n in range(3)}


def test_one_script_per_task_covering_the_cluster_is_not_reported(tmp_path):
    for n in range(2):
        (tmp_path / f"worker{n}.py").write_text(SCRIPT.format(n=n))
    assert _tfd601(tmp_path) == {"worker0.py": [], "worker1.py": []}


def test_copies_that_miss_a_task_of_the_cluster_stay_reported(tmp_path):
    """Two copies for a three-worker cluster: the third task is started some other way (or not)."""
    for n in range(2):
        (tmp_path / f"train_worker{n}.ipynb").write_text(_notebook(n))
    found = _tfd601(tmp_path)
    assert [len(found[f"train_worker{n}.ipynb"]) for n in range(2)] == [1, 1]


def test_a_lone_script_with_a_fixed_index_stays_reported(tmp_path):
    """Copied to each machine and edited by hand: no copy in the tree runs the other task."""
    (tmp_path / "multi_worker.py").write_text(SCRIPT.format(n=0))
    (finding,) = _tfd601(tmp_path)["multi_worker.py"]
    assert finding.fix is None


def test_copies_that_differ_elsewhere_still_count(tmp_path):
    """Real copies drift: a comment, a line only the chief's copy runs."""
    (tmp_path / "worker0.py").write_text(SCRIPT.format(n=0) + 'model.save("final")  # the chief keeps the model\n')
    (tmp_path / "worker1.py").write_text("# the second machine\n" + SCRIPT.format(n=1))
    assert _tfd601(tmp_path) == {"worker0.py": [], "worker1.py": []}


def test_copies_that_name_another_cluster_stay_reported(tmp_path):
    (tmp_path / "worker0.py").write_text(SCRIPT.format(n=0))
    (tmp_path / "worker1.py").write_text(SCRIPT.format(n=1).replace("b:2222", "c:2222"))
    found = _tfd601(tmp_path)
    assert [len(found["worker0.py"]), len(found["worker1.py"])] == [1, 1]


def test_two_copies_with_the_same_index_stay_reported(tmp_path):
    (tmp_path / "worker0.py").write_text(SCRIPT.format(n=0))
    (tmp_path / "worker0_copy.py").write_text(SCRIPT.format(n=0) + "# a copy\n")
    found = _tfd601(tmp_path)
    assert [len(found["worker0.py"]), len(found["worker0_copy.py"])] == [1, 1]


def test_copies_in_another_folder_do_not_count(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "worker0.py").write_text(SCRIPT.format(n=0))
    (tmp_path / "b" / "worker1.py").write_text(SCRIPT.format(n=1))
    found = _tfd601(tmp_path)
    assert [len(found["worker0.py"]), len(found["worker1.py"])] == [1, 1]


def test_copies_a_launcher_of_the_project_starts_stay_reported(tmp_path):
    """Per-role scripts that a job file runs with no environment: the job is the launch, and it
    gives no TF_CONFIG (the finding names it)."""
    for n in range(2):
        (tmp_path / f"worker{n}.py").write_text(SCRIPT.format(n=n))
    (tmp_path / "run.sh").write_text("#!/bin/sh\npython worker0.py &\npython worker1.py\n")
    found = _tfd601(tmp_path)
    assert [len(found["worker0.py"]), len(found["worker1.py"])] == [1, 1]
    assert "`run.sh` starts this file without TF_CONFIG" in found["worker0.py"][0].message
