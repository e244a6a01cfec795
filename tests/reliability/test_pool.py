"""The process pool: a worker that dies costs only its own file, workers die with their parent,
and a stopped run (SIGTERM, Ctrl-C) stops its workers and writes nothing after the stop."""

from __future__ import annotations

import ctypes
import faulthandler
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from child_processes import restore_default_sigint, wait_until

from fixer.pool import map_resilient

ROOT = Path(__file__).resolve().parents[2]
GOOD = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\nd = s.experimental_distribute_datasets_from_function(f)\n"


def _square_or_crash(item: int) -> int:
    if item in (7, 23):
        faulthandler.disable()  # pytest's fault handler would print the crash of this (forked) worker
        ctypes.string_at(0)  # a real segmentation fault, as a native parser's stack overflow gives
    return item * item


def test_a_crashing_item_costs_only_itself():
    items = list(range(40))
    results = map_resilient(_square_or_crash, items, 2, crashed=lambda item: -1)
    assert results == [-1 if i in (7, 23) else i * i for i in items]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.add(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


BLOCKING_PARENT = """
import sys
from fixer.pool import map_resilient

def wait_forever(item):
    open(sys.argv[1]).read()  # a FIFO nobody writes: the worker blocks until it is killed
    return item

map_resilient(wait_forever, list(range(8)), 2, crashed=lambda item: None)
"""


def test_workers_die_with_their_parent(tmp_path):
    fifo = tmp_path / "never"
    os.mkfifo(fifo)
    script = tmp_path / "parent.py"
    script.write_text(BLOCKING_PARENT)
    parent = subprocess.Popen([sys.executable, str(script), str(fifo)], env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        wait_until(lambda: len(_children(parent.pid)) >= 2, "two workers")
        workers = _children(parent.pid)
        parent.kill()  # SIGKILL: the parent cannot clean up; the workers must go by themselves
        parent.wait()
        wait_until(lambda: not any(_alive(pid) for pid in workers), "the workers to die with their parent")
    finally:
        parent.kill()


# Enough files that a run on an idle machine is still busy when the signal arrives.
FILES = 2000


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_fix_write_stops_its_workers_and_writes_nothing_after(tmp_path, signum):
    tree = tmp_path / "tree"
    tree.mkdir()
    for number in range(FILES):
        (tree / f"f{number:04}.py").write_text(GOOD)
    process = subprocess.Popen(
        [sys.executable, "-m", "fixer", "fix", "--write", "--jobs", "2", str(tree)],
        cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        preexec_fn=restore_default_sigint,
    )
    try:
        fixed = GOOD.replace("experimental_distribute", "distribute")
        # Files are taken in order: watching the first few sees the first write at once, long before
        # the last of the tree is reached (a whole tree read per poll let a quick run finish first).
        first = [tree / f"f{number:04}.py" for number in range(8)]
        wait_until(lambda: any(p.read_text() == fixed for p in first), "a first file to be fixed")
        workers = _children(process.pid)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "distfix: stopped before every file was processed (files already fixed stay fixed; the others are untouched)" in stderr
    assert not any(_alive(pid) for pid in workers), "every worker is gone when the command returns"
    snapshot = {p.name: p.read_text() for p in tree.iterdir()}
    assert all(text in (GOOD, GOOD.replace("experimental_distribute", "distribute")) for text in snapshot.values())
    assert sum(text == GOOD for text in snapshot.values()) > 0, "the run was stopped before the end"
    assert sorted(snapshot) == [f"f{number:04}.py" for number in range(FILES)], "no temporary file is left"


@pytest.mark.parametrize("command", ["check", "migrate"])
def test_a_killed_worker_loses_no_result(tmp_path, command):
    # SIGKILL of one worker stands for the OOM killer or a native crash: the pool breaks, and
    # every file must still be reported (the ones the dead worker was on are run again).
    tree = tmp_path / "tree"
    tree.mkdir()
    for number in range(300):
        (tree / f"f{number:03}.py").write_text(GOOD)
    report = tmp_path / "report.json"
    args = ["check", "--no-cache", "--jobs", "2", str(tree)] if command == "check" else ["migrate", str(tree), "--jobs", "2", "--report", str(report)]
    process = subprocess.Popen(
        [sys.executable, "-m", "fixer", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        wait_until(lambda: len(_children(process.pid)) >= 2, "the workers")
        victim = max(_children(process.pid))
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = process.communicate(timeout=300)
    finally:
        process.kill()
    assert "Traceback" not in stdout + stderr
    if command == "check":
        assert process.returncode == 1, stderr
        assert stdout.count(": TFD401 ") == 300
    else:
        assert process.returncode == 1, stderr
        totals = json.loads(report.read_text())["totals"]
        assert totals["files"] == 300 and totals["errors"] == 0 and totals["fixed"] == 300
