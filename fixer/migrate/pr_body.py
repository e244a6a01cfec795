"""``migrate --report-dir DIR``: one pull-request body per repository, ``DIR/<name>/PR.md``.

A PR body is read by the repository's reviewers, so it speaks of that repository only, with
paths relative to its root (in the diff headers too): nothing of the machine that ran it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from fixer.migrate.summary import MigrationReport, RepoOutcome
from fixer.report import render

if TYPE_CHECKING:
    from fixer.types import FileResult


def check_report_dir(directory: Path) -> None:
    """Raise ValueError unless PR bodies can be written under ``directory``."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"--report-dir {directory}: is a file, not a folder")
    if not directory.parent.is_dir():
        raise ValueError(f"--report-dir {directory}: folder {directory.parent} does not exist")


def _relative(result: FileResult, root: Path) -> FileResult:
    """``result`` with its path and its findings' paths relative to ``root``."""
    path = Path(result.path).relative_to(root).as_posix()
    return replace(
        result,
        path=path,
        findings=[replace(f, path=path) for f in result.findings],
        applied=[replace(f, path=path) for f in result.applied],
    )


def _owner(path: str, roots: list[Path]) -> Path | None:
    """The innermost root holding ``path``."""
    holding = [root for root in roots if Path(path).is_relative_to(root)]
    return max(holding, key=lambda root: len(root.parts), default=None)


def repository_reports(report: MigrationReport) -> list[tuple[RepoOutcome, MigrationReport]]:
    """Each repository (or folder) of the run with a report of its own files only, relative to
    its root; those where nothing changed are left out (there is nothing to propose)."""
    firsts: dict[Path, RepoOutcome] = {}
    for outcome in report.repos:
        if outcome.error is None and outcome.root:
            firsts.setdefault(Path(outcome.root), outcome)
    roots = list(firsts)
    grouped: dict[Path, list[FileResult]] = {root: [] for root in roots}
    for result in report.results:
        owner = _owner(result.path, roots)
        if owner is not None:
            grouped[owner].append(result)
    reports = []
    for root, results in grouped.items():
        if not any(r.changed for r in results):
            continue
        validations = None
        if report.validations is not None:
            validations = {
                Path(name).relative_to(root).as_posix(): verdict
                for name, verdict in report.validations.items()
                if Path(name).is_relative_to(root)
            }
        own = MigrationReport(
            results=[_relative(r, root) for r in results],
            repos=[firsts[root]],
            seconds=report.seconds,
            wrote=report.wrote,
            unsafe=report.unsafe,
            validations=validations,
            validation_backend=report.validation_backend,
            command=report.command,
            date=report.date,
        )
        reports.append((firsts[root], own))
    return reports


def write_pr_bodies(report: MigrationReport, directory: Path) -> list[Path]:
    """Write ``DIR/<repository name>/PR.md`` for every repository with changes; return the files."""
    check_report_dir(directory)
    written: list[Path] = []
    used: set[str] = set()
    for outcome, own in repository_reports(report):
        name = Path(outcome.root).name or "root"
        unique, number = name, 1
        while unique in used:  # two repositories of the same name in different places
            number += 1
            unique = f"{name}-{number}"
        used.add(unique)
        destination = directory / unique / "PR.md"
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(render("migrate/pr.md.j2", data=own.as_dict(), repo=outcome), encoding="utf-8")
        written.append(destination)
    return written
