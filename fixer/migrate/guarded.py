"""One validation in a process of its own that takes everything it started down with it.

A Ray worker can die mid-validation (its node is lost, it is killed, it runs out of memory). The
validator's TensorFlow processes run in sessions of their own, so they would outlive it, and a
multi-worker one waiting for its peer would never end. Run as ``python -m fixer.migrate.guarded
FOLDER``, this process becomes the subreaper of everything below it and asks Linux to signal it
when its parent (the Ray worker) dies; it then kills every process below it and exits.

FOLDER holds ``src/`` (the staged script folder) and ``task.json``; the verdict is written to
``verdict.json`` there. The caller points TMPDIR into FOLDER, so removing it when the worker dies
also removes the validator's temporary copies.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from fixer.migrate.validation import FileValidation, ValidationTask, place_script, run_staged

if TYPE_CHECKING:
    from collections.abc import Iterator

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_FOLDER: list[Path] = []  # the task's folder, removed when the worker dies


def process_files(name: str) -> Iterator[tuple[int, str]]:
    """``(pid, text of /proc/PID/NAME)`` for every living process (Linux)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / name).read_text(errors="replace")
        except OSError:  # it exited meanwhile
            continue
        yield int(entry.name), text


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid`` (Linux /proc), children first."""
    parents: dict[int, list[int]] = {}
    for child, stat in process_files("stat"):
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(child)
    found, queue = [], [pid]
    while queue:
        children = parents.get(queue.pop(0), [])
        found += children
        queue += children
    return found


def kill_descendants() -> None:
    """SIGKILL every process below this one."""
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _kill_everything_below(signum: int, frame: object) -> None:
    kill_descendants()
    for folder in _FOLDER:
        shutil.rmtree(folder, ignore_errors=True)
    os._exit(1)


def _guard(parent: int) -> None:
    """Become the subreaper of our descendants and die with ``parent`` (Linux only; elsewhere the
    validation runs unguarded)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    signal.signal(signal.SIGTERM, _kill_everything_below)
    if os.getppid() != parent:  # the parent died before the death signal was armed
        _kill_everything_below(signal.SIGTERM, None)


def main(folder: Path, parent: int) -> None:
    """Validate the staged task in ``folder`` and write ``verdict.json``."""
    _FOLDER.append(folder)
    _guard(parent)
    task = ValidationTask(**json.loads((folder / "task.json").read_text(encoding="utf-8")))
    try:
        script, compare = place_script(task, folder / "src")
        verdict = run_staged(script, task, compare)
    except Exception as exc:  # run_staged never raises; placing the script can (disk full)
        verdict = FileValidation("error", f"internal error: {type(exc).__name__}: {exc}")
    (folder / "verdict.json").write_text(json.dumps(verdict.as_dict()), encoding="utf-8")
    kill_descendants()  # orphans the script left behind


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
