"""``distfix doctor --probe``: really form the cluster and all-reduce once, with a bounded wait.

A worker whose peers are missing hangs forever and ignores SIGTERM (measured), so each worker is
started in its own session and its whole process group is killed with SIGKILL at the timeout.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from fixer.doctor.report import Problem

CHILD = Path(__file__).with_name("probe_child.py")


@dataclass
class WorkerOutcome:
    """What one probing worker reached."""

    index: int
    stage: str
    result: float | None
    replicas: int | None
    output: str
    timed_out: bool


def free_ports(count: int) -> list[int]:
    """Ports on 127.0.0.1 that were free a moment ago (bound to port 0, then released)."""
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


def _start(tf_config: str) -> subprocess.Popen:
    env = {**os.environ, "TF_CONFIG": tf_config, "TF_CPP_MIN_LOG_LEVEL": "2"}
    return subprocess.Popen(
        [sys.executable, str(CHILD)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    )


def _collect(processes: list[subprocess.Popen], timeout: float) -> list[WorkerOutcome]:
    deadline = time.monotonic() + timeout
    outcomes = []
    for index, process in enumerate(processes):
        timed_out = False
        try:
            output, _ = process.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
        stages = [line.split(" ", 1)[1] for line in output.splitlines() if line.startswith("STAGE ")]
        result = next((line.split() for line in output.splitlines() if line.startswith("RESULT ")), None)
        outcomes.append(
            WorkerOutcome(
                index=index,
                stage=stages[-1] if stages else "start",
                result=float(result[1]) if result else None,
                replicas=int(result[2]) if result else None,
                output=output,
                timed_out=timed_out,
            )
        )
    for process in processes:  # never leave a hung worker behind
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return outcomes


def _problems(outcomes: list[WorkerOutcome], expected: float) -> tuple[list[Problem], list[str]]:
    problems, passed = [], []
    for outcome in outcomes:
        name = f"worker {outcome.index}"
        if outcome.result is not None and abs(outcome.result - expected) < 1e-6:
            passed.append(f"{name} formed the cluster and all-reduced {outcome.result:g} over {outcome.replicas} replicas")
        elif outcome.timed_out:
            where = {"strategy": "while forming the cluster (a peer is missing or unreachable)", "allreduce": "in the first all-reduce"}.get(
                outcome.stage, f"at stage {outcome.stage}"
            )
            problems.append(Problem("error", "probe", f"{name} hung {where}; killed at the timeout"))
        else:
            last = [line for line in outcome.output.strip().splitlines() if line.strip()][-1:] or ["no output"]
            problems.append(Problem("error", "probe", f"{name} failed at stage {outcome.stage}: {last[0][:300]}"))
    return problems, passed


def probe_local(workers: int, timeout: float) -> tuple[list[Problem], list[str]]:
    """Start ``workers`` local workers on free 127.0.0.1 ports and all-reduce once."""
    ports = free_ports(workers)
    cluster = {"worker": [f"127.0.0.1:{port}" for port in ports]}
    processes = [
        _start(json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})) for index in range(workers)
    ]
    return _problems(_collect(processes, timeout), float(workers))


def probe_this_worker(tf_config: str, timeout: float) -> tuple[list[Problem], list[str]]:
    """Run this worker's part of the probe with the user's TF_CONFIG (its peers run theirs)."""
    config = json.loads(tf_config)
    total = sum(len(v) for k, v in config.get("cluster", {}).items() if k in ("chief", "worker"))
    outcomes = _collect([_start(tf_config)], timeout)
    return _problems(outcomes, float(total))
