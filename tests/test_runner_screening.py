"""The runner screens files in its own process (configuration, reading, cache, pre-filter) and
sends only the files left for analysis to a pool: the answers are the ones a worker would give,
the pool's findings are the in-process ones, and a file changed between runs is read again."""

from __future__ import annotations

import json
import os

import pytest

from fixer import runner
from fixer.runner import Job, process_file, run, screen_file

# A script with a finding (TFD401: a renamed distribute API), one the pre-filter skips, one that
# does not parse, and a notebook whose `%%writefile` cell writes a module with the finding.
FLAGGED = (
    "import tensorflow as tf\n"
    "strategy = tf.distribute.MirroredStrategy()\n"
    "d = strategy.experimental_distribute_datasets_from_function(f)\n"
)
PLAIN = "import os\nprint(os.getcwd())\n"
BROKEN = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy(\n"


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _tree(folder):
    for number in range(10):
        (folder / f"flagged{number}.py").write_text(FLAGGED)
        (folder / f"plain{number}.py").write_text(PLAIN)
    (folder / "broken.py").write_text(BROKEN)
    (folder / "writes.ipynb").write_text(_notebook("%%writefile train.py\n" + FLAGGED))
    (folder / "a_folder.py").mkdir()  # a read error: answered by the screening itself
    return sorted(folder.iterdir())


def _keyed(results):
    return [(r.path, r.error, [(f.code, f.cell, f.start, f.message) for f in r.findings]) for r in results]


def test_screening_answers_as_the_file_s_own_processing(tmp_path):
    job = Job(use_cache=False, project_roots=(str(tmp_path),))
    for path in _tree(tmp_path):
        screened = screen_file(path, job)
        if screened is not None:  # skipped or an error: exactly what processing the file gives
            assert _keyed([screened]) == _keyed([process_file(path, job)])
    assert screen_file(tmp_path / "plain0.py", job) is not None
    assert screen_file(tmp_path / "flagged0.py", job) is None
    assert screen_file(tmp_path / "writes.ipynb", job) is None


def test_the_pool_reports_what_one_process_does(tmp_path):
    files = _tree(tmp_path)
    job = Job(use_cache=False, project_roots=(str(tmp_path),))
    alone = run(files, job, jobs=1)
    pooled = run(files, job, jobs=2)
    assert _keyed(pooled) == _keyed(alone)
    assert (
        sum(len(r.findings) for r in alone) == 10 + 1 + 1 + 1
    )  # ten scripts, the parse error, the notebook, the folder


def test_the_pool_is_decided_by_the_files_left_after_screening(tmp_path, monkeypatch):
    files = _tree(tmp_path)
    started = []
    monkeypatch.setattr(
        runner,
        "map_resilient",
        lambda work, items, workers, crashed: started.append(workers) or [work(i) for i in items],
    )
    run(files, Job(use_cache=False), jobs=2)  # 12 files to analyse: two workers, as asked
    assert started == [2]
    started.clear()
    few = [p for p in files if not p.name.startswith("flagged")] + [tmp_path / "flagged0.py"]
    results = run(few, Job(use_cache=False), jobs=2)  # 14 files, 3 left after screening: no pool
    assert started == []
    assert sum(len(r.findings) for r in results) == 4  # those 3 and the folder's read error
    monkeypatch.setattr(runner, "default_jobs", lambda: 2)
    run(files, Job(use_cache=False))  # by default, 12 files left are checked faster in one process
    assert started == []
    for number in range(10, 14):
        (tmp_path / f"flagged{number}.py").write_text(FLAGGED)
    run(sorted(tmp_path.iterdir()), Job(use_cache=False))  # 16 left: the pool pays off
    assert started == [2]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_changed_between_runs_is_read_again(tmp_path, monkeypatch, jobs):
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    tree.mkdir()
    files = _tree(tree)
    first = run(files, Job(project_roots=(str(tree),)), jobs=jobs)
    changed = tree / "plain3.py"
    changed.write_text(FLAGGED + "# now flagged\n")
    os.utime(changed, ns=(1, 1))  # a new stat signature even on a coarse clock
    second = run(files, Job(project_roots=(str(tree),)), jobs=jobs)
    position = files.index(changed)
    assert first[position].findings == []
    assert [f.code for f in second[position].findings] == ["TFD401"]
    assert _keyed(second[:position] + second[position + 1 :]) == _keyed(first[:position] + first[position + 1 :])
