"""One local Ray head for the whole test session, shared by the tests that only need *a* cluster.

Starting Ray costs 10-40 s on the shared 2-core machine (more under load), and each Ray test used to
start its own. The head is started once with ``ray start --head --block`` in a session of its own,
on 127.0.0.1 and in a private temp folder, so it neither joins nor disturbs another engineer's Ray.

Waits are for events: the head is ready when ``ray start`` prints that it now blocks, or failed
when it exits; it is gone when no process carries its marker. The bounds only turn a hang into a
failure that says what never happened. Ray gives its raylet a fixed 30 s to register (Ray's
ray/_private/node.py, not configurable), which a loaded machine can miss: that failure, and only
that one, is tried again, like ``fixer.ray_start`` does for the product's own start.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from child_processes import wait_until

from fixer.doctor.probe import free_ports
from fixer.migrate.guarded import process_files
from fixer.ray_start import STARTUP_ATTEMPTS, STARTUP_TIMEOUT_TEXT

READY_TEXT = "This command will now block forever"  # what `ray start --block` prints once the node runs
MARKER_VARIABLE = "DISTFIX_TEST_RAY_HEAD"  # in the environment of every process of the head
LOOPBACK_VARIABLE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray keeps every address on 127.0.0.1
START_BOUND = 600.0  # seconds; Ray's own 30 s wait fails first, and is tried again
STOP_BOUND = 120.0
OBJECT_STORE_BYTES = 128 * 1024 * 1024  # the tests move small dumps only; Ray's default takes 30% of the RAM


@dataclass
class RayHead:
    """A running head: its GCS address, its temp folder (also its marker), its ``ray start`` process."""

    address: str
    folder: Path
    process: subprocess.Popen[bytes]
    log: Path


def start_head(num_cpus: int) -> RayHead:
    """Start a local head with ``num_cpus`` logical CPUs; again when Ray's fixed startup wait ran out."""
    ray_cli = Path(sys.executable).with_name("ray")
    for attempt in range(1, STARTUP_ATTEMPTS + 1):
        # Short: Ray's unix sockets live under it (107 bytes at most on Linux).
        folder = Path(tempfile.mkdtemp(prefix="dfh", dir="/tmp"))
        log = Path(tempfile.mkstemp(prefix="distfix-ray-head-", suffix=".log")[1])
        port = free_ports(1)[0]
        command = [
            str(ray_cli), "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
            f"--num-cpus={num_cpus}", "--num-gpus=0", f"--object-store-memory={OBJECT_STORE_BYTES}",
            "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={folder}",
        ]
        env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
        # No token: Ray turns token auth on for a `ray start` head, and a driver that joins it by
        # address (RAY_ADDRESS, --address) never sends one ("Authentication token is missing").
        env.update({MARKER_VARIABLE: str(folder), LOOPBACK_VARIABLE: "0", "RAY_AUTH_MODE": "disabled"})
        with log.open("wb") as output:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, env=env,
                start_new_session=True,
            )
        head = RayHead(f"127.0.0.1:{port}", folder, process, log)
        if _wait_ready(head):
            return head
        text = _text(log)
        stop_head(head)
        if STARTUP_TIMEOUT_TEXT not in text or attempt == STARTUP_ATTEMPTS:
            raise AssertionError(f"the session's Ray head did not start (attempt {attempt}):\n{text[-3000:]}")
    raise AssertionError("unreachable: the loop returns or raises")


def _wait_ready(head: RayHead) -> bool:
    """True once ``ray start`` says its node runs, False when it exited first."""
    return wait_until(
        lambda: READY_TEXT in _text(head.log), "`ray start --head` to report the node running", START_BOUND,
        until_exit=head.process,
    )


def stop_head(head: RayHead) -> None:
    """SIGTERM ``ray start`` (it stops its node's processes), wait until none of them is left, SIGKILL
    whatever outlives the bound, and remove the folders."""
    if head.process.poll() is None:
        head.process.send_signal(signal.SIGTERM)
    try:
        wait_until(lambda: not head_processes(head), "the Ray head's processes to end after SIGTERM", STOP_BOUND)
    except AssertionError:
        pass  # the SIGKILL below ends them
    finally:
        for pid in head_processes(head):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if head.process.poll() is None:
            head.process.kill()
        head.process.wait()
        shutil.rmtree(head.folder, ignore_errors=True)
        head.log.unlink(missing_ok=True)


def head_processes(head: RayHead) -> list[int]:
    """The living processes of the head: every one carries its marker in its environment."""
    marker = f"{MARKER_VARIABLE}={head.folder}".encode()
    found = []
    for pid, stat in process_files("stat"):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:  # gone, or not ours to read
            continue
        if marker in environ.split(b"\0") and stat.rsplit(")", 1)[1].split()[0] != "Z":
            found.append(pid)
    return found


def _text(log: Path) -> str:
    return log.read_text(errors="replace")
