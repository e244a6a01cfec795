"""``distfix doctor --probe``: really form the cluster and all-reduce once, with a bounded wait.

A worker whose peers are missing hangs forever and ignores SIGTERM (measured), so each worker is
started in its own session and its whole process group is killed with SIGKILL at the timeout,
and on any way out of the parent (including Ctrl-C).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from fixer.doctor.report import Problem

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

CHILD = Path(__file__).with_name("probe_child.py")
_WHERE = {
    "start": "before importing TensorFlow",
    "import": "while importing TensorFlow",
    "strategy": "while forming the cluster",
    "allreduce": "in the first all-reduce",
}
# What a worker still busy at the timeout was doing, why it is stuck there, and what known failures mean.
_ACTIVITY = {
    "start": "starting",
    "import": "importing TensorFlow",
    "strategy": "forming the cluster",
    "allreduce": "in the first all-reduce",
}
_HANG_REASON = {
    "start": " (raise --timeout on a slow machine)",
    "import": " (raise --timeout on a slow machine)",
    "strategy": " (a peer is missing, unreachable, or has another cluster in its TF_CONFIG)",
}
_FAILURE_HINTS = {
    "Could not start gRPC server": "this task's port is already in use",
    "exceeds the maximum id": "the task index is larger than its job",
}


@dataclass
class WorkerOutcome:
    """What one probing worker reached."""

    name: str
    stage: str
    result: float | None
    replicas: int | None
    failure: str | None
    cut_short: str | None  # killed: "timeout", or the name of the peer that failed first
    seconds: dict[str, float]  # when each stage began, and "done", in seconds since the worker started


def free_ports(count: int) -> list[int]:
    """Ports on 127.0.0.1 that were free a moment ago (all bound to port 0 at once, then released)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _start(tf_config: str, cpu_only: bool, log: IO[str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TF_CONFIG": tf_config, "TF_CPP_MIN_LOG_LEVEL": "2"}
    if cpu_only:
        env["CUDA_VISIBLE_DEVICES"] = ""  # local workers must not share one GPU
    return subprocess.Popen(
        [sys.executable, str(CHILD)],
        stdin=subprocess.DEVNULL,
        stdout=log,  # a file, not a pipe: a chatty worker can never block on a full pipe
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )


def _kill(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


def _outcome(name: str, output: str, cut_short: str | None) -> WorkerOutcome:
    lines = output.splitlines()
    stages = [line.split()[1:] for line in lines if line.startswith("STAGE ") and len(line.split()) == 3]
    result = next((line.split() for line in lines if line.startswith("RESULT ") and len(line.split()) == 4), None)
    seconds = {stage: float(at) for stage, at in stages}
    if result:
        seconds["done"] = float(result[3])
    failure = next((line[len("FAILED ") :] for line in lines if line.startswith("FAILED ")), None)
    if failure is None and cut_short is None and result is None:
        failure = next((line.strip() for line in reversed(lines) if line.strip()), "exited without output")
    return WorkerOutcome(
        name=name,
        stage=stages[-1][0] if stages else "start",
        result=float(result[1]) if result else None,
        replicas=int(result[2]) if result else None,
        failure=failure,
        cut_short=cut_short,
        seconds=seconds,
    )


class _SigtermExit:
    """SIGTERM's handler: it ends the doctor with SystemExit, which unwinds through the ``finally``
    that kills the workers, but never while a worker is being started and recorded. A signal that
    lands inside ``Popen`` after the fork would leave a worker nobody records, and it would outlive
    the doctor (seen in CI under load); such a signal is held until the worker is recorded."""

    def __init__(self) -> None:
        self.holding = False
        self.pending: int | None = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.pending = signum
            return
        raise SystemExit(128 + signum)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold SIGTERM in this block; exit at its end if one came."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
            if self.pending is not None:
                signum, self.pending = self.pending, None
                raise SystemExit(128 + signum)


_EXIT_ON_SIGTERM = _SigtermExit()


def run_workers(
    tf_configs: dict[str, str], timeout: float, cpu_only: bool, peer_timeout: float | None = None
) -> list[WorkerOutcome]:
    """Start one probe child per TF_CONFIG, wait at most ``timeout`` seconds in all, kill the rest.

    ``peer_timeout`` also bounds each worker's cluster forming, counted from the moment it reports
    having imported TensorFlow: the wait for a peer, apart from an import a loaded machine slows.
    """
    try:
        previous = signal.signal(signal.SIGTERM, _EXIT_ON_SIGTERM)
    except ValueError:  # not the main thread: the caller owns signal handling
        previous = None
    try:
        return _run_workers(tf_configs, timeout, cpu_only, peer_timeout)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class _Forming:
    """When each worker began forming the cluster (its ``STAGE strategy`` line), as the parent saw it."""

    def __init__(self, logs: dict[str, Path]) -> None:
        self._logs = logs
        self.since: dict[str, float] = {}

    def overdue(self, name: str, bound: float) -> bool:
        """Whether ``name`` has been forming the cluster for more than ``bound`` seconds."""
        if name not in self.since:
            if "STAGE strategy " not in self._logs[name].read_text(encoding="utf-8", errors="replace"):
                return False
            self.since[name] = time.monotonic()
        return time.monotonic() - self.since[name] > bound


def _wait(
    processes: dict[str, subprocess.Popen[bytes]], timeout: float, forming: _Forming, peer_timeout: float | None
) -> dict[str, str]:
    """Wait until every worker is done, one fails, or a bound ran out; kill the rest and say why."""
    deadline = time.monotonic() + timeout
    cut_short: dict[str, str] = {}
    while time.monotonic() < deadline:
        exited = [name for name, p in processes.items() if p.poll() not in (None, 0)]
        failed = next((name for name in exited if name not in cut_short), None)
        running = [name for name, p in processes.items() if p.poll() is None]
        if not running:
            return cut_short
        if failed is not None:
            # Its peers would only wait for it until the timeout: stop them now.
            for name in running:
                _kill(processes[name])
            return cut_short | {name: failed for name in running}
        for name in running:
            if peer_timeout is not None and forming.overdue(name, peer_timeout):
                _kill(processes[name])
                cut_short[name] = "timeout"
        time.sleep(0.05)
    running = [name for name, p in processes.items() if p.poll() is None]
    for name in running:
        _kill(processes[name])
    return cut_short | {name: "timeout" for name in running}


def _run_workers(
    tf_configs: dict[str, str], timeout: float, cpu_only: bool, peer_timeout: float | None
) -> list[WorkerOutcome]:
    with tempfile.TemporaryDirectory(prefix="distfix-probe-") as folder:
        paths = {name: Path(folder) / f"{index}.log" for index, name in enumerate(tf_configs)}
        logs = {name: open(path, "w+", encoding="utf-8") for name, path in paths.items()}
        processes: dict[str, subprocess.Popen[bytes]] = {}
        cut_short: dict[str, str] = {}  # worker -> why it was killed: "timeout" or the failed peer
        try:
            for name, config in tf_configs.items():
                with _EXIT_ON_SIGTERM.held():
                    processes[name] = _start(config, cpu_only, logs[name])
            cut_short = _wait(processes, timeout, _Forming(paths), peer_timeout)
        finally:
            for process in processes.values():  # never leave a hung worker behind
                _kill(process)
        outcomes = []
        for name, log in logs.items():
            log.seek(0)
            outcomes.append(_outcome(name, log.read(), cut_short.get(name)))
            log.close()
        return outcomes


def _timings(outcome: WorkerOutcome) -> str:
    at = outcome.seconds
    if not all(stage in at for stage in ("strategy", "allreduce", "done")):
        return ""
    return (
        f" (TensorFlow import {at['strategy']:.1f} s, cluster {at['allreduce'] - at['strategy']:.1f} s, "
        f"all-reduce {at['done'] - at['allreduce']:.2f} s)"
    )


def judge(outcomes: list[WorkerOutcome], expected_replicas: int | None) -> tuple[list[Problem], list[str]]:
    """Problems and passed checks: every worker must all-reduce R(R+1)/2 over R replicas."""
    problems, passed = [], []
    for outcome in outcomes:
        replicas = outcome.replicas
        if outcome.result is not None and replicas is not None:
            expected = replicas * (replicas + 1) / 2
            if abs(outcome.result - expected) > 1e-6:
                problems.append(
                    Problem(
                        "error",
                        "probe",
                        f"{outcome.name} all-reduced {outcome.result:g}, "
                        f"expected {expected:g} over {replicas} replicas",
                    )
                )
            elif expected_replicas is not None and replicas != expected_replicas:
                problems.append(
                    Problem(
                        "error",
                        "probe",
                        f"{outcome.name} formed a cluster of {replicas} replicas, expected {expected_replicas}",
                    )
                )
            else:
                passed.append(
                    f"{outcome.name} formed the cluster and all-reduced {outcome.result:g} "
                    f"over {replicas} replicas{_timings(outcome)}"
                )
        elif outcome.cut_short == "timeout":
            reason = _HANG_REASON.get(outcome.stage, "")
            message = f"{outcome.name} was still {_ACTIVITY[outcome.stage]} at the timeout{reason}; killed it"
            problems.append(Problem("error", "probe", message))
        elif outcome.cut_short is not None:
            message = f"{outcome.name} was stopped while {_ACTIVITY[outcome.stage]} because {outcome.cut_short} failed"
            problems.append(Problem("error", "probe", message))
        else:
            failure = (outcome.failure or "")[:300]
            hint = next((f" ({hint})" for text, hint in _FAILURE_HINTS.items() if text in failure), "")
            problems.append(
                Problem("error", "probe", f"{outcome.name} failed {_WHERE[outcome.stage]}: {failure}{hint}")
            )
    return problems, passed


def probe_local(
    workers: int, timeout: float, cpu_only: bool = True, peer_timeout: float | None = None
) -> tuple[list[Problem], list[str]]:
    """Start ``workers`` local workers on free 127.0.0.1 ports and all-reduce once."""
    cluster = {"worker": [f"127.0.0.1:{port}" for port in free_ports(workers)]}
    configs = {
        f"worker {index}": json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})
        for index in range(workers)
    }
    return judge(run_workers(configs, timeout, cpu_only, peer_timeout), workers if cpu_only else None)


def probe_this_worker(
    tf_config: str, timeout: float, cpu_only: bool = False, peer_timeout: float | None = None
) -> tuple[list[Problem], list[str]]:
    """Run this worker's part of the probe with the user's TF_CONFIG (its peers run theirs)."""
    task = json.loads(tf_config).get("task", {})
    name = f"{task.get('type')} {task.get('index')}"
    return judge(run_workers({name: tf_config}, timeout, cpu_only, peer_timeout), None)
