"""The start of a local Ray head is tried again when Ray's fixed startup wait ran out, and only then
(``fixer.ray_start``, shared by ``ray_session`` and the emitted Ray launcher).

``_init_local`` takes the ray module as an argument; a stand-in that fails the way Ray 2.x does on
a loaded machine (its message, from ray/_private/node.py) drives the policy here. The real start
is exercised by the Ray tests in tests/validate and tests/migrate.
"""

from __future__ import annotations

import inspect
import os
import signal
import subprocess
import sys

import pytest

from fixer.ray_session import RaySessionError, _init_local
from fixer.ray_start import STARTUP_ATTEMPTS, STARTUP_TIMEOUT_TEXT, child_processes, init_ray, kill_new_children, launcher_source

TIMED_OUT = (
    "The current node timed out during startup. This could happen because some of the raylet "
    "failed to startup or the GCS has become overloaded."
)


class StartsAfter:
    """A ray module whose ``init`` fails with ``error`` on its first ``failures`` calls."""

    def __init__(self, failures: int, error: str = TIMED_OUT) -> None:
        self.failures, self.error = failures, error
        self.inits = self.shutdowns = 0
        self.options: dict[str, object] = {}

    def init(self, **options: object) -> None:
        self.options = options
        self.inits += 1
        if self.inits <= self.failures:
            raise Exception(self.error)

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_a_start_that_timed_out_is_tried_again_and_cleaned_up_first(tmp_path, capsys):
    ray = StartsAfter(STARTUP_ATTEMPTS - 1)
    _init_local(ray, 1, str(tmp_path))
    assert (ray.inits, ray.shutdowns) == (STARTUP_ATTEMPTS, STARTUP_ATTEMPTS - 1)
    assert capsys.readouterr().err.splitlines() == [
        f"Ray's local start timed out (attempt {attempt} of {STARTUP_ATTEMPTS}): starting it again" for attempt in range(1, STARTUP_ATTEMPTS)
    ]


def test_a_private_start_is_a_new_node_also_where_ray_address_is_set(tmp_path, monkeypatch):
    """Ray joins the cluster RAY_ADDRESS names whenever ``address`` is unset; "local" always starts one.
    The real start with RAY_ADDRESS set: tests/migrate/test_validate_runs.py (the 1-CPU cluster)."""
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    ray = StartsAfter(0)
    _init_local(ray, 1, str(tmp_path))
    assert ray.options["address"] == "local" and ray.options["_temp_dir"] == str(tmp_path)


def test_the_attempts_are_bounded_and_counted_in_the_message(tmp_path):
    ray = StartsAfter(STARTUP_ATTEMPTS)
    with pytest.raises(RaySessionError, match=rf"cannot start a local Ray \({STARTUP_ATTEMPTS} attempts\): The current node"):
        _init_local(ray, 1, str(tmp_path))
    assert ray.inits == STARTUP_ATTEMPTS


def test_any_other_failure_is_reported_at_once(tmp_path):
    ray = StartsAfter(1, error="object_store_memory is larger than the memory available")
    with pytest.raises(RaySessionError, match=r"^cannot start a local Ray: object_store_memory"):
        _init_local(ray, 1, str(tmp_path))
    assert ray.inits == 1


class LeavesAProcess(StartsAfter):
    """A ray module whose failed ``init`` leaves a child process running, as Ray's timed-out node
    start leaves its GCS and raylet (Ray's ``shutdown`` does not know them)."""

    def __init__(self, failures: int) -> None:
        super().__init__(failures)
        self.left: list[int] = []

    def init(self, **options: object) -> None:
        if self.inits < self.failures:
            self.left.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]).pid)
        super().init(**options)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_what_a_timed_out_start_left_running_is_killed_before_the_next(tmp_path):
    unrelated = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        ray = LeavesAProcess(STARTUP_ATTEMPTS - 1)
        init_ray(ray, num_cpus=1)
        assert ray.inits == STARTUP_ATTEMPTS and len(ray.left) == STARTUP_ATTEMPTS - 1
        assert not any(_alive(pid) for pid in ray.left)  # killed and reaped: gone from the process table
        assert unrelated.poll() is None  # a child started before the attempt is not the attempt's
    finally:
        unrelated.kill()
        unrelated.wait()


def test_joining_a_cluster_is_not_retried():
    """Joining a running cluster fails with Ray's own messages, never with the startup timeout."""
    ray = StartsAfter(1, error="Could not find any running Ray instance. Please specify the one to connect to by setting `--address`")
    with pytest.raises(Exception, match="Could not find any running Ray instance"):
        init_ray(ray, address="auto")
    assert ray.inits == 1


def test_the_launcher_carries_the_same_code(tmp_path):
    """The emitted Ray launcher runs where distfix is not installed: it carries this module's code."""
    text = launcher_source()
    for function in (init_ray, child_processes, kill_new_children):
        assert inspect.getsource(function) in text
    namespace: dict[str, object] = {"os": os, "signal": signal, "sys": sys, "Any": object}
    exec(compile(text, "launcher", "exec"), namespace)
    assert namespace["STARTUP_ATTEMPTS"] == STARTUP_ATTEMPTS and namespace["STARTUP_TIMEOUT_TEXT"] == STARTUP_TIMEOUT_TEXT
