"""``ray.init``, tried again when the local Ray node it started missed Ray's fixed startup wait.

Ray gives a new node's raylet a fixed 30 s to register with the GCS (ray/_private/node.py, not
configurable); a machine busy enough misses it (seen at load average 20) and a new start usually
succeeds. Only a node this process starts can fail that way (joining a running cluster never
raises that message), so a user's cluster is never retried: any other failure is raised at once.

Two callers share this code: ``ray_session`` imports it, and the Ray job launcher that
``fix --launcher ray`` emits carries a copy of its constants and functions (``launcher_source``),
since the launcher runs where distfix is not installed. Hence the standard library only.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import sys
from typing import Any

STARTUP_TIMEOUT_TEXT = "timed out during startup"
STARTUP_ATTEMPTS = 3


def init_ray(ray: Any, **options: Any) -> None:
    """``ray.init(**options)``, again (STARTUP_ATTEMPTS times at most) while a local start times out.

    The processes a failed start left behind are killed first: Ray's shutdown does not know them.
    Each new attempt is announced on stderr (a start that took minutes is then explained).
    """
    for attempt in range(1, STARTUP_ATTEMPTS + 1):
        before = child_processes()
        try:
            ray.init(**options)
            return
        except Exception as exc:
            ray.shutdown()
            kill_new_children(before)
            if STARTUP_TIMEOUT_TEXT not in str(exc) or attempt == STARTUP_ATTEMPTS:
                raise
            print(
                f"Ray's local start timed out (attempt {attempt} of {STARTUP_ATTEMPTS}): starting it again",
                file=sys.stderr,
            )


def child_processes() -> set[int]:
    """The ids of this process's children (none where there is no /proc: Ray's reaper then ends them)."""
    children: set[int] = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                # "pid (command) state ppid ...": the command may hold spaces, so split after its ")".
                parent = int(stat.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # not a process, or one that just ended
        if parent == os.getpid():
            children.add(int(entry))
    return children


def kill_new_children(before: set[int]) -> None:
    """SIGKILL the children started since ``before`` was taken (a failed start's GCS and raylet), and reap them."""
    for pid in child_processes() - before:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass  # ended already, or reaped by Ray's own handle on it


def launcher_source() -> str:
    """This module's constants and functions, as the emitted launcher carries them (no imports:
    the launcher imports ``os``, ``signal``, ``sys`` and ``typing.Any`` itself)."""
    constants = f"STARTUP_TIMEOUT_TEXT = {json.dumps(STARTUP_TIMEOUT_TEXT)}\nSTARTUP_ATTEMPTS = {STARTUP_ATTEMPTS}\n"
    functions = [inspect.getsource(function) for function in (init_ray, child_processes, kill_new_children)]
    return "\n\n".join([constants, *functions]).rstrip("\n") + "\n"
