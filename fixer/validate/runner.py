"""Start validation runs as child processes and collect what they dumped.

Every child runs in its own session in a temporary copy of the script's folder; a run that
outlives its timeout has its whole process group killed with SIGKILL (a multi-worker process
waiting for a peer ignores SIGTERM). The validator picks every port on 127.0.0.1 itself, and
maps every address the script names to one of them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from fixer.doctor.probe import free_ports
from fixer.launcher import hardcoded_tf_configs

BOOTSTRAP = Path(__file__).with_name("bootstrap.py")
_JUNK = {".git", ".venv", "venv", "__pycache__", ".distfix_cache", ".ipynb_checkpoints", "node_modules", ".pytest_cache"}
# A script's folder is copied whole (it may read data files next to it) unless it is this big.
MAX_COPY_FILES = 2000
MAX_COPY_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class RunSpec:
    """How to run one variant."""

    replicas: int = 2
    workers: int = 1
    device: str = "auto"
    max_steps: int = 20
    timeout: float = 120.0
    synthetic_data: bool = False
    keep_temp: bool = False


@dataclass
class WorkerDump:
    """What one worker process reported."""

    status: str  # ok | error | timeout
    error: dict | None = None
    variables: dict[str, list[list[float]]] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0


def _addresses(path: str, text: str) -> list[str]:
    found: list[str] = []
    for config in hardcoded_tf_configs(path, text):
        for addresses in config.get("cluster", {}).values():
            for address in addresses if isinstance(addresses, list) else []:
                if isinstance(address, str) and address not in found:
                    found.append(address)
    return found


def run_script(script: Path, text: str, spec: RunSpec, replicas: int | None = None) -> list[WorkerDump]:
    """Run ``text`` as ``script`` with ``spec`` (``replicas`` overrides spec.replicas); one dump per worker."""
    temp = Path(tempfile.mkdtemp(prefix="distfix-validate-"))
    try:
        folder = temp / "src"
        copy_script_folder(script.parent, folder, temp)
        target = folder / script.name
        target.write_text(text, encoding="utf-8")
        addresses = _addresses(str(script), text)
        ports = free_ports(spec.workers + len(addresses) + 4)
        cluster_ports, mapped, spare = ports[: spec.workers], ports[spec.workers : spec.workers + len(addresses)], ports[spec.workers + len(addresses) :]
        address_map = {address: f"127.0.0.1:{port}" for address, port in zip(addresses, mapped)}
        processes = []
        started = time.monotonic()
        for index in range(spec.workers):
            settings = {
                "script": str(target),
                "replicas": replicas or spec.replicas,
                "workers": spec.workers,
                "device": spec.device,
                "max_steps": spec.max_steps,
                "synthetic_data": spec.synthetic_data,
                "address_map": address_map,
                "spare_ports": spare,
                "dump": str(temp / f"dump_{index}.json"),
                "tf_config": json.dumps(
                    {"cluster": {"worker": [f"127.0.0.1:{p}" for p in cluster_ports]}, "task": {"type": "worker", "index": index}}
                )
                if spec.workers > 1
                else None,
            }
            settings_path = temp / f"settings_{index}.json"
            settings_path.write_text(json.dumps(settings), encoding="utf-8")
            env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
            env["PYTHONUNBUFFERED"] = "1"
            if spec.device == "cpu":
                env["CUDA_VISIBLE_DEVICES"] = ""
            processes.append(
                subprocess.Popen(
                    [sys.executable, str(BOOTSTRAP), str(settings_path)],
                    cwd=folder,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    env=env,
                    start_new_session=True,
                )
            )
        return [_finish(p, index, temp, started + spec.timeout, started) for index, p in enumerate(processes)]
    finally:
        if not spec.keep_temp:
            shutil.rmtree(temp, ignore_errors=True)


def copy_script_folder(source: Path, destination: Path, temp: Path) -> None:
    """Copy the script's folder (small ones whole, without junk and without ``temp`` itself).

    A folder too big to copy quickly (a home or /tmp) gives an empty copy: only the script runs.
    """
    files, size = 0, 0
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = [d for d in dirnames if d not in _JUNK and Path(dirpath, d) != temp]
        files += len(filenames)
        size += sum(_size(Path(dirpath, name)) for name in filenames)
        if files > MAX_COPY_FILES or size > MAX_COPY_BYTES:
            destination.mkdir(parents=True)
            return

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if n in _JUNK or Path(directory, n) == temp}

    try:
        shutil.copytree(source, destination, ignore=ignore, symlinks=True)
    except (shutil.Error, OSError):
        shutil.rmtree(destination, ignore_errors=True)
        destination.mkdir(parents=True)


def _size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except OSError:
        return 0


def _finish(process: subprocess.Popen, index: int, temp: Path, deadline: float, started: float) -> WorkerDump:
    timed_out = False
    try:
        output, _ = process.communicate(timeout=max(0.5, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    seconds = time.monotonic() - started
    dump_path = temp / f"dump_{index}.json"
    if timed_out:
        return WorkerDump("timeout", output=output, seconds=seconds)
    if not dump_path.exists():
        last = [line for line in output.strip().splitlines() if line.strip()][-1:] or [f"exit code {process.returncode}"]
        return WorkerDump("error", error={"type": "crash", "message": last[0][:500], "line": None, "network": False}, output=output, seconds=seconds)
    data = json.loads(dump_path.read_text(encoding="utf-8"))
    return WorkerDump(
        status=data["status"],
        error=data.get("error"),
        variables=data.get("variables", {}),
        inputs=data.get("inputs", []),
        output=output,
        seconds=seconds,
    )
