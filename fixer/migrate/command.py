"""``distfix migrate``: the command-line front of a batch migration."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from fixer.migrate.run import MigrateOptions, migrate
from fixer.migrate.summary import write_report
from fixer.runner import default_jobs

_BAR = 28


def _progress_printer(enabled: bool):
    def show(done: int, total: int, findings: int, errors: int, eta: float) -> None:
        if not enabled or total == 0:
            return
        filled = _BAR * done // total
        bar = "#" * filled + "." * (_BAR - filled)
        typer.echo(
            f"\r[{bar}] {done}/{total} files · {findings} findings · {errors} errors · ETA {eta:4.0f}s",
            err=True,
            nl=False,
        )
        if done == total:
            typer.echo("", err=True)

    return show


def register(app: typer.Typer) -> None:
    """Add the ``migrate`` command to the CLI."""

    @app.command("migrate")
    def migrate_command(
        paths: list[str] = typer.Argument(..., help="Folders or git repositories to migrate."),
        write: bool = typer.Option(False, "--write", help="Apply fixes (default: only report what would change)."),
        unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes that can change behaviour."),
        select: Optional[list[str]] = typer.Option(None, "--select", help="Only these codes or prefixes."),
        ignore: Optional[list[str]] = typer.Option(None, "--ignore", help="Skip these codes or prefixes."),
        jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, help="Worker processes (default: all cores)."),
        report: Optional[Path] = typer.Option(None, "--report", help="Write a report: FILE.html, FILE.md or FILE.json."),
        branch: Optional[str] = typer.Option(None, "--branch", help="In git repos, put the fixes on this new branch (needs --write --commit)."),
        commit: bool = typer.Option(False, "--commit", help="Commit the fixes on --branch, listing the rules applied."),
        allow_dirty: bool = typer.Option(False, "--allow-dirty", help="Do not refuse repositories with uncommitted changes."),
        baseline: Optional[Path] = typer.Option(None, "--baseline", help="Report only findings not in this file (created on first use)."),
        resume: bool = typer.Option(False, "--resume", help="Continue an interrupted run from its state file."),
        state_file: Path = typer.Option(Path(".distfix-migrate-state.json"), "--state-file", help="Where an interrupted run saves its progress."),
        exclude: Optional[list[str]] = typer.Option(None, "--exclude", help="Skip files matching this glob (repeatable)."),
    ) -> None:
        """Migrate many files and repositories at once, with progress and a report.

        Exit 0: nothing left to fix; 1: findings remain or changes to make; 2: errors or interrupted.
        """
        if (branch is None) != (not commit) and (branch or commit):
            typer.echo("distfix: error: --branch and --commit go together", err=True)
            raise typer.Exit(2)
        if branch and not write:
            typer.echo("distfix: error: --branch needs --write", err=True)
            raise typer.Exit(2)
        if resume and branch:
            typer.echo("distfix: error: --resume cannot be combined with --branch; rerun the migration", err=True)
            raise typer.Exit(2)
        options = MigrateOptions(
            paths=tuple(paths),
            write=write,
            unsafe=unsafe_fixes,
            select=tuple(select or ()),
            ignore=tuple(ignore or ()),
            jobs=jobs or default_jobs(),
            branch=branch,
            commit=commit,
            allow_dirty=allow_dirty,
            excludes=tuple(exclude or ()),
            baseline=baseline,
            state_file=state_file,
        )
        missing = [p for p in paths if not Path(p).exists()]
        for path in missing:
            typer.echo(f"distfix: error: {path}: no such file or directory", err=True)
        if missing:
            raise typer.Exit(2)
        try:
            outcome = migrate(options, resume=resume, progress=_progress_printer(sys.stderr.isatty()))
        except ValueError as exc:
            typer.echo(f"distfix: error: {exc}", err=True)
            raise typer.Exit(2) from None
        if report is not None:
            try:
                write_report(outcome, report)
            except (ValueError, OSError) as exc:
                typer.echo(f"distfix: error: {exc}", err=True)
                raise typer.Exit(2) from None
        totals = outcome.totals
        for repo in outcome.repos:
            if repo.error:
                typer.echo(f"distfix: error: {repo.path}: {repo.error}", err=True)
        for result in outcome.errors:
            typer.echo(f"distfix: error: {result.path}: {result.error}", err=True)
        typer.echo(
            f"{totals['files']} files, {totals['found']} findings, {totals['fixed']} fixed, "
            f"{totals['remaining']} remaining ({totals['needs_a_person']} need a person), {totals['errors']} errors "
            f"in {outcome.seconds:.1f} s. {outcome.verdict}"
        )
        if outcome.interrupted or totals["errors"]:
            raise typer.Exit(2)
        raise typer.Exit(1 if totals["remaining"] or (totals["fixed"] and not write) else 0)

