"""``migrate --validate``: run every changed script that can run, and turn each run into a verdict
for the report.

A script is validated in a copy of its folder as the migration left it (its changed neighbours
fixed too), so it imports and reads what it would after the migration. When migrate's fix of the
script is the one ``distfix validate`` makes (unsafe fixes on), the validator runs the original
and the fix (compare mode, both verdicts reported); otherwise it runs migrate's fixed text alone.
TensorFlow runs only in the validator's child processes; Ray is imported only for ``--backend ray``.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixer.migrate.runnable import intrinsic_skip_reason, skip_reason

if TYPE_CHECKING:
    from fixer.types import FileResult
    from fixer.validate.project import Entry
    from fixer.validate.report import ValidationReport

STATUSES = ("passed", "failed", "inconclusive", "error", "skipped")
Done = Callable[[str, "FileValidation"], None]  # called with the file's name as each validation ends


@dataclass
class FileValidation:
    """The verdict on one changed script, shown beside its diff."""

    status: str  # one of STATUSES
    reason: str | None = None  # why it failed, was inconclusive, skipped or errored
    failed_checks: list[dict[str, Any]] = field(default_factory=list)  # {"name", "detail"} of each failed check
    original: str | None = None  # the original script's status in the same run (compare mode only)
    ran: str | None = None  # what ran (replicas, workers, devices) and what was asked for
    notes: list[str] = field(default_factory=list)
    host: str | None = None  # the machine that ran it (a Ray node on --backend ray)
    attempts: int = 1
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (also what a Ray task sends back)."""
        return asdict(self)


@dataclass(frozen=True)
class ValidationSettings:
    """The ``--validate`` options of one migration."""

    backend: str = "local"  # local | ray
    address: str | None = None  # Ray cluster to join; None starts a local one for the run
    jobs: int = 1  # local backend: validations at once
    max_steps: int = 20
    timeout: float = 120.0
    synthetic_data: bool = False


@dataclass(frozen=True)
class ValidationTask:
    """Everything a validation needs, also on a machine without the repository (a Ray node)."""

    name: str  # the file's path in the report
    source: str  # the script before the migration
    fixed_text: str  # the script as the migration left it
    neighbours: dict[str, str]  # other changed files under its folder: relative path -> fixed text
    max_steps: int
    timeout: float
    synthetic_data: bool
    # How the project runs the script (fixer/validate/project.py), JSON-able for a Ray node:
    # {"root", "script" and "cwd" relative to the root, "module", "args", "env"}; empty: the script's folder.
    project: dict[str, Any] = field(default_factory=dict[str, Any])

    @property
    def workers(self) -> int:
        """Two local workers for a MultiWorkerMirroredStrategy script, else one (with 2 replicas)."""
        return 2 if "MultiWorkerMirroredStrategy" in self.fixed_text else 1

    @property
    def processes(self) -> int:
        """The most TensorFlow processes the validation runs at once: its workers, or with one
        worker the two 1-replica reference runs of the replica-count check."""
        return max(self.workers, 2)


def plan(results: list[FileResult], settings: ValidationSettings) -> list[ValidationTask]:
    """A task for every changed file (errors and unchanged files have no fix to validate)."""
    changed = [r for r in results if r.changed and r.error is None]
    tasks = []
    for result in changed:
        project = project_of(Path(result.path))
        folder = Path(project["root"]) if project else Path(result.path).parent
        neighbours = {
            Path(other.path).relative_to(folder).as_posix(): other.fixed_text
            for other in changed
            if other is not result and other.fixed_text is not None and Path(other.path).is_relative_to(folder)
        }
        tasks.append(
            ValidationTask(
                result.path,
                result.source or "",
                result.fixed_text or "",
                neighbours,
                settings.max_steps,
                settings.timeout,
                settings.synthetic_data,
                project,
            )
        )
    return tasks


def project_of(path: Path) -> dict[str, Any]:
    """How ``validate`` would run ``path`` (its project and ``[tool.distfix.validate]``); empty when it cannot say."""
    from fixer.validate.project import ProjectError, resolve_entry

    try:
        entry = resolve_entry(path)
    except (ProjectError, OSError):  # a bad table: the script runs alone in its folder
        return {}
    return {
        "root": str(entry.root),
        "script": entry.script.relative_to(entry.root).as_posix(),
        "cwd": entry.cwd.relative_to(entry.root).as_posix(),
        "module": entry.module,
        "args": list(entry.args),
        "env": dict(entry.env),
    }


def stage_folder(task: ValidationTask, folder: Path) -> None:
    """Copy the script's project (or folder) to ``folder`` as the migration left it (changed neighbours fixed)."""
    from fixer.validate.runner import copy_script_folder

    source = Path(task.project["root"]) if task.project else Path(task.name).parent
    if not copy_script_folder(source, folder, set()) and task.project:
        # A project too big to copy: its script's folder, where it sits in the project.
        shutil.rmtree(folder, ignore_errors=True)
        copy_script_folder(Path(task.name).parent, folder / Path(task.project["script"]).parent, set())
    for relative, text in task.neighbours.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def place_script(task: ValidationTask, folder: Path) -> tuple[Path, bool]:
    """Write the script into its staged folder; returns its path and whether to compare (when the
    validator's own fix is migrate's fix, the original is written and both are run)."""
    from fixer.engine import fix_source

    compare = fix_source(task.name, task.source, unsafe=True).fixed_text == task.fixed_text
    script = folder / (task.project["script"] if task.project else Path(task.name).name)
    script.parent.mkdir(parents=True, exist_ok=True)  # a project too big to copy was staged empty
    if script.is_symlink():
        script.unlink()
    script.write_text(task.source if compare else task.fixed_text, encoding="utf-8")
    return script, compare


def run_staged(script: Path, task: ValidationTask, compare: bool) -> FileValidation:
    """Validate the staged script, or say why it cannot run here; never raises."""
    from fixer.validate.runner import RunSpec
    from fixer.validate.session import CannotValidate, validate

    started = time.monotonic()
    host = socket.gethostname()
    spec = RunSpec(
        replicas=2,
        workers=task.workers,
        max_steps=task.max_steps,
        timeout=task.timeout,
        synthetic_data=task.synthetic_data,
        entry=staged_entry(script, task),
    )
    try:
        reason = skip_reason(script, task.fixed_text, spec.device, spec.entry.root if spec.entry else None)
        if reason is not None:
            return FileValidation("skipped", reason, host=host)
        report = validate(script, spec, compare=compare)
    except CannotValidate as exc:
        return FileValidation("skipped", str(exc), host=host, seconds=time.monotonic() - started)
    except Exception as exc:  # a bug or a broken environment costs this file only
        return FileValidation(
            "error", f"internal error: {type(exc).__name__}: {exc}", host=host, seconds=time.monotonic() - started
        )
    verdict = from_report(report)
    verdict.host, verdict.seconds = host, time.monotonic() - started
    if not compare:
        verdict.notes.append(
            "migrate's fix differs from the validator's (unsafe fixes off, or --select/--ignore): "
            "only the fixed script ran"
        )
    return verdict


def staged_entry(script: Path, task: ValidationTask) -> Entry | None:
    """The validator's Entry for the staged copy of the task's project (None: the script's own folder)."""
    from fixer.validate.project import Entry

    if not task.project:
        return None
    root = script.parents[len(Path(task.project["script"]).parts) - 1]
    return Entry(
        script,
        root,
        root / task.project["cwd"],
        task.project["module"],
        tuple(task.project["args"]),
        dict(task.project["env"]),
    )


def from_report(report: ValidationReport) -> FileValidation:
    """The verdict a validator report gives the fixed script (``report`` is a ValidationReport)."""
    from fixer.validate.checks import CONSISTENCY

    variant = report.variants[report.validated_name]
    failed = [{"name": c.name, "detail": c.detail} for c in variant.checks if c.result == "fail"]
    if variant.status == "failed":
        first = variant.error or (failed[0]["detail"] if failed else None)
        reason = "; ".join(filter(None, [first, *variant.diagnoses])) or None
    elif variant.status == "inconclusive":
        reason = "; ".join(
            f"{c.name}: {c.detail}" for c in variant.checks if c.name in CONSISTENCY and c.result == "inconclusive"
        )
    else:
        reason = None
    compared = report.validated_name == "fixed" and report.variants["fixed"] is not report.variants["original"]
    return FileValidation(
        status=variant.status,
        reason=reason,
        failed_checks=failed,
        original=report.variants["original"].status if compared else None,
        ran=report.header(),
        notes=list(report.notes),
    )


def validate_task_here(task: ValidationTask) -> FileValidation:
    """Stage the task in a temporary folder on this machine, validate it, clean up."""
    folder = Path(tempfile.mkdtemp(prefix="distfix-migrate-validate-"))
    try:
        stage_folder(task, folder / "src")
        script, compare = place_script(task, folder / "src")
        return run_staged(script, task, compare)
    except Exception as exc:  # staging failed (the folder vanished, a disk error): this file only
        return FileValidation("error", f"internal error: {type(exc).__name__}: {exc}", host=socket.gethostname())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def validate_locally(tasks: list[ValidationTask], jobs: int, done: Done | None = None) -> dict[str, FileValidation]:
    """Run the validations on this machine, ``jobs`` at a time (each starts its own processes,
    so threads are enough to keep them going)."""
    verdicts: dict[str, FileValidation] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = {pool.submit(validate_task_here, task): task.name for task in tasks}
        for future in as_completed(futures):
            verdicts[futures[future]] = future.result()
            if done is not None:
                done(futures[future], verdicts[futures[future]])
    finally:
        # On Ctrl-C, validations not started are dropped; running ones end at their timeout at most.
        pool.shutdown(wait=True, cancel_futures=True)
    return verdicts


def default_validation_jobs() -> int:
    """Validations at once on this machine: one per two cores (each runs up to two TensorFlow
    processes at once)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores // 2)


def validate_results(
    results: list[FileResult], settings: ValidationSettings, done: Done | None = None
) -> dict[str, FileValidation]:
    """Validate every changed file of a migration on the chosen backend; verdicts by file name."""
    verdicts: dict[str, FileValidation] = {}
    runnable = []
    for task in plan(results, settings):
        reason = intrinsic_skip_reason(Path(task.name), task.fixed_text)
        if reason is None:
            runnable.append(task)
            continue
        verdicts[task.name] = FileValidation("skipped", reason)
        if done is not None:
            done(task.name, verdicts[task.name])
    if not runnable:
        return verdicts
    if settings.backend == "ray":
        from fixer.migrate.ray_backend import validate_on_ray

        return verdicts | validate_on_ray(runnable, settings.address, done)
    return verdicts | validate_locally(runnable, settings.jobs, done)
