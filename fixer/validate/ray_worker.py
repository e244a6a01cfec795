"""The validation worker that runs on a Ray node: unpack the run, start the bootstrap child, report.

The driver ships this module to the nodes by value (see ``ray_backend``), so a node needs Ray and
TensorFlow but not distfix: it imports only the standard library. The child runs exactly as in a
local run (``bootstrap.py`` in its own session, in a copy of the script's folder, its output in
a file) and is killed with SIGKILL, with its whole process group, however the run ends.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from typing import Any

POLL_SECONDS = 0.2  # how often the wait looks at the stop request


def start_bootstrap(
    bootstrap: str | os.PathLike[str],
    settings: str | os.PathLike[str],
    output: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    device: str,
) -> subprocess.Popen[bytes]:
    """Start ``bootstrap.py`` on ``settings`` in its own session, its output in the file ``output``.

    Local runs (``runner``) start their children with this too, so a Ray run's child sees the
    same environment: no inherited TF_CONFIG (the settings carry it), unbuffered output, and no
    GPUs when the device is the CPU.
    """
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    env["PYTHONUNBUFFERED"] = "1"
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    with open(output, "wb") as handle:
        return subprocess.Popen(
            [sys.executable, os.fspath(bootstrap), os.fspath(settings)],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )


class ValidationWorker:
    """One worker of one run: a folder on its node and the bootstrap child started in it."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="distfix-ray-worker-")
        self.process: subprocess.Popen[bytes] | None = None
        self.stop_reason: str | None = None
        self.stop_requested = threading.Event()

    def reserve(self, count: int) -> tuple[str, list[int]]:
        """This node's address and ``count`` ports that were free on it a moment ago."""
        import ray

        sockets = []
        try:
            for _ in range(count):
                sock = socket.socket()
                sock.bind(("", 0))  # TensorFlow's server listens on every interface
                sockets.append(sock)
            # Ray's own function has no annotations: its result is the node's address, a str.
            address: str = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
            return address, [s.getsockname()[1] for s in sockets]
        finally:
            for sock in sockets:
                sock.close()

    def run(self, payload: bytes, settings: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Unpack the run, start the bootstrap with ``settings`` and wait at most ``timeout`` seconds.

        Returns how it ended (exited, stopped or timeout), the exit code, the output and the
        dump's JSON text (None when the child wrote none).
        """
        with tarfile.open(fileobj=io.BytesIO(payload)) as archive:
            # The driver built the archive from the script's folder: extract it as it is.
            if hasattr(tarfile, "fully_trusted_filter"):  # Pythons with extraction filters warn without one
                archive.extractall(self.folder, filter="fully_trusted")
            else:
                archive.extractall(self.folder)
        settings = {
            **settings,
            "script": os.path.join(self.folder, settings["script"]),
            "cwd": os.path.join(self.folder, settings["cwd"]),
            "path": [os.path.join(self.folder, p) for p in settings["path"]],
            "dump": os.path.join(self.folder, "dump.json"),
        }
        settings_path = os.path.join(self.folder, "settings.json")
        with open(settings_path, "w", encoding="utf-8") as handle:
            json.dump(settings, handle)
        output_path = os.path.join(self.folder, "output.txt")
        ending = self._run_child(settings_path, output_path, settings["cwd"], settings["device"], timeout)
        with open(output_path, encoding="utf-8", errors="replace") as handle:
            output = handle.read()
        dump = None
        if os.path.exists(settings["dump"]):
            with open(settings["dump"], encoding="utf-8") as handle:
                dump = handle.read()
        return {
            "ending": ending,
            "code": self.process.returncode if self.process else None,
            "output": output,
            "dump": dump,
        }

    def _run_child(self, settings_path: str, output_path: str, cwd: str, device: str, timeout: float) -> str:
        bootstrap = os.path.join(self.folder, "bootstrap", "bootstrap.py")
        deadline = time.monotonic() + timeout
        self.process = start_bootstrap(bootstrap, settings_path, output_path, cwd, device)
        try:
            while self.process.poll() is None:
                if self.stop_requested.wait(POLL_SECONDS):
                    return self.stop_reason or "stopped"
                if time.monotonic() > deadline:
                    return "timeout"
            if self.stop_requested.is_set() and self.process.returncode == -signal.SIGKILL:
                return self.stop_reason or "stopped"  # killed by stop() between two looks
            return "exited"
        finally:
            self._kill()  # also whatever the script started in its session

    def stop(self, reason: str) -> None:
        """End the run now (another worker failed, or the driver gave up); ``run`` returns ``reason``."""
        self.stop_reason = reason
        self.stop_requested.set()
        self._kill()

    def cleanup(self) -> None:
        """Kill the child if it still runs and remove the folder."""
        self._kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _kill(self) -> None:
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # a worker waiting for a peer ignores SIGTERM
        except ProcessLookupError:  # the group is gone already
            pass
        self.process.wait()
