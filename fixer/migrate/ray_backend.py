"""``migrate --validate --backend ray``: one Ray task per validation, over a fleet.

Each task asks for as many CPUs as the validation runs TensorFlow processes at once, so Ray never
packs more validations on a node than it has cores for; inside it, the validator runs with its
local backend on that node. The script's folder travels with the task (a tar archive in Ray's
object store), so nodes need distfix and TensorFlow installed but not the repositories.

A task whose worker or node is lost (killed, out of memory, node down) is submitted once more;
lost again, it is reported as an error. Exceptions are not retried: the task returns every
failure of the validation itself as a verdict.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fixer.migrate.validation import Done, FileValidation, ValidationTask, stage_folder

# Ray's exceptions for a task whose process or machine went away (not for errors in the task).
LOST = ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError", "ObjectLostError", "LocalRayletDiedError")


def pack(task: ValidationTask) -> bytes:
    """The script's folder as the migration left it, as a tar archive."""
    folder = Path(tempfile.mkdtemp(prefix="distfix-migrate-pack-"))
    try:
        stage_folder(task, folder / "src")
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            archive.add(folder / "src", arcname="src")
        return buffer.getvalue()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def validate_archive(archive: bytes, task: ValidationTask) -> dict[str, Any]:
    """The Ray task: unpack the folder on this node and validate in a guarded child process
    (see ``guarded.py``), so nothing outlives this worker if it dies."""
    folder = Path(tempfile.mkdtemp(prefix="distfix-migrate-task-"))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as unpacked:
            unpacked.extractall(folder, filter="tar")  # "tar" keeps symlinks to data on the node
        (folder / "task.json").write_text(json.dumps(asdict(task)), encoding="utf-8")
        (folder / "tmp").mkdir()
        child = subprocess.run(
            [sys.executable, "-m", "fixer.migrate.guarded", str(folder), str(os.getpid())],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            start_new_session=True,  # out of the worker's process group, so it outlives the worker to clean up
            env={**os.environ, "TMPDIR": str(folder / "tmp")},  # the validator's copies go where the guard cleans
        )
        verdict = folder / "verdict.json"
        if not verdict.exists():
            last = (child.stderr.strip().splitlines() or [f"exit status {child.returncode}"])[-1]
            return asdict(FileValidation("error", f"the validation process died: {last}", host=socket.gethostname()))
        outcome: dict[str, Any] = json.loads(verdict.read_text(encoding="utf-8"))
        return outcome
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _summary(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0][:300]}" if lines else type(exc).__name__


def validate_on_ray(
    tasks: list[ValidationTask], address: str | None, done: Done | None = None
) -> dict[str, FileValidation]:
    """Run every validation as a Ray task on the cluster at ``address`` (None: a local Ray
    started for the run); verdicts by file name. A Ray that cannot start or be joined makes every
    verdict an error, with Ray's reason."""
    from fixer.ray_session import RaySessionError, ray_session

    try:
        with ray_session(address) as ray:
            return _run(ray, tasks, done)
    except RaySessionError as exc:
        verdicts = {task.name: FileValidation("error", f"Ray: {exc}") for task in tasks}
        for name, verdict in verdicts.items():
            if done is not None:
                done(name, verdict)
        return verdicts


def _run(ray: Any, tasks: list[ValidationTask], done: Done | None) -> dict[str, FileValidation]:
    remote = ray.remote(validate_archive)
    lost = tuple(getattr(ray.exceptions, name) for name in LOST)
    archives = {task.name: ray.put(pack(task)) for task in tasks}
    # A request no node can meet would wait forever: ask at most for the largest node's CPUs.
    largest = max((node["Resources"].get("CPU", 0) for node in ray.nodes() if node["Alive"]), default=0)

    def submit(task: ValidationTask) -> Any:
        # Retries are ours (max_retries=0), so the report can say what was lost and how often.
        cpus = min(task.processes, largest) if largest else task.processes
        return remote.options(num_cpus=cpus, max_retries=0, name=f"distfix validate {task.name}").remote(
            archives[task.name], task
        )

    pending = {submit(task): (task, 1, "") for task in tasks}
    verdicts: dict[str, FileValidation] = {}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        task, attempt, first_loss = pending.pop(ready[0])
        try:
            verdict = FileValidation(**ray.get(ready[0]))
        except lost as exc:
            if attempt == 1:
                pending[submit(task)] = (task, 2, _summary(exc))
                continue
            verdict = FileValidation(
                "error",
                f"the Ray worker running it was lost twice (retried once): first {first_loss}; then {_summary(exc)}",
            )
        except ray.exceptions.RayError as exc:
            verdict = FileValidation("error", f"the Ray task failed: {_summary(exc)}")
        verdict.attempts = attempt
        if attempt == 2 and verdict.status != "error":
            verdict.notes.append(f"retried once: the Ray worker of the first attempt was lost ({first_loss})")
        verdicts[task.name] = verdict
        if done is not None:
            done(task.name, verdict)
    return verdicts
