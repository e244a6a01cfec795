"""``distfix migrate``: the command-line front of a batch migration.

The migration itself (and with it the engine, libcst and jinja2) is imported when the command
runs: registering the command must not slow down every other command.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

import typer

from fixer.cli_choices import Backend, TargetVersionOption
from fixer.codes import code_error
from fixer.extras import missing_extra
from fixer.migrate.baseline import read_baseline
from fixer.migrate.progress import ProgressPrinter
from fixer.migrate.state import DEFAULT_STATE_FILE
from fixer.runner import default_jobs

if TYPE_CHECKING:
    from fixer.migrate.summary import MigrationReport
    from fixer.migrate.validation import FileValidation


def _usage_errors(
    paths: list[str],
    write: bool,
    branch: str | None,
    commit: bool,
    resume: bool,
    report: Path | None,
    baseline: Path | None,
    state_file: Path,
    validate: bool = False,
    backend: Backend = Backend.local,
    address: str | None = None,
    update_branch: bool = False,
    report_dir: Path | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
) -> list[str]:
    """Everything wrong with the command line, found before any file is read or written."""
    from fixer.migrate.gitops import check_branch_name
    from fixer.migrate.pr_body import check_report_dir
    from fixer.migrate.run import RESUME_ON_BRANCH
    from fixer.migrate.summary import check_report_path

    errors = [f"{path}: no such file or directory" for path in paths if not Path(path).exists()]
    if not state_file.parent.is_dir():
        errors.append(f"--state-file {state_file}: folder {state_file.parent} does not exist")
    if (branch is None) == commit:
        errors.append("--branch and --commit go together")
    if branch and not write:
        errors.append("--branch needs --write")
    if branch and (reason := check_branch_name(branch)):
        errors.append(reason)
    if update_branch and not branch:
        errors.append("--update-branch needs --branch")
    if resume and branch:
        errors.append(RESUME_ON_BRANCH)
    if not validate and (backend is not Backend.local or address is not None):
        errors.append("--backend and --address need --validate")
    if address is not None and backend is not Backend.ray:
        errors.append("--address needs --backend ray")
    for option, codes in (("--select", select), ("--ignore", ignore)):
        problem = code_error(codes or [], option)
        if problem is not None:
            errors.append(problem)
    if validate and backend is Backend.local:  # Ray workers bring their own TensorFlow
        missing = missing_extra("validate", "distfix migrate --validate")
        if missing is not None:
            errors.append(missing)
    for check, value in ((check_report_path, report), (read_baseline, baseline), (check_report_dir, report_dir)):
        if value is not None:
            try:
                check(value)
            except ValueError as exc:
                errors.append(str(exc))
    return errors


def _summarise(outcome: MigrationReport) -> None:
    """Errors, notes and skipped files on stderr, the totals and verdict on stdout."""
    for repo in outcome.repos:
        if repo.error:
            typer.echo(f"distfix: error: {repo.path}: {repo.error}", err=True)
        for note in repo.notes:
            typer.echo(f"distfix: note: {repo.path}: {note}", err=True)
        if repo.skipped:
            typer.echo(
                f"distfix: note: {repo.path}: {len(repo.skipped)} file(s) not committed, so not on branch "
                f"{repo.branch} and not checked (commit them, or run without --branch): {', '.join(repo.skipped)}",
                err=True,
            )
    for result in outcome.errors:
        typer.echo(f"distfix: error: {result.path}: {result.error}", err=True)
    totals = outcome.totals
    typer.echo(
        f"{totals['files']} files, {totals['found']} findings, "
        f"{totals['fixed']} {'fixed' if outcome.wrote else 'fixable'}, "
        f"{totals['remaining']} remaining ({totals['needs_a_person']} need a person), {totals['errors']} errors "
        f"in {outcome.seconds:.1f} s. {outcome.verdict}"
    )


def _exit_code(outcome: MigrationReport, write: bool) -> int:
    """0 nothing left; 1 findings remain, changes to make, files left out of a branch or a fixed
    script failing its validation; 2 errors (files, repositories or validations) or interrupted."""
    totals = outcome.totals
    validated = outcome.validation_totals or {"failed": 0, "error": 0}
    if outcome.interrupted or totals["errors"] or validated["error"]:
        return 2
    return (
        1 if totals["remaining"] or totals["skipped"] or (totals["fixed"] and not write) or validated["failed"] else 0
    )


def _show_validation(name: str, verdict: FileValidation) -> None:
    detail = f": {verdict.reason}" if verdict.reason and verdict.status != "passed" else ""
    typer.echo(f"distfix: validation: {name}: {verdict.status}{detail}", err=True)


def register(app: typer.Typer) -> None:
    """Add the ``migrate`` command to the CLI."""

    @app.command("migrate")
    def migrate_command(
        paths: list[str] = typer.Argument(..., help="Folders or git repositories to migrate."),
        write: bool = typer.Option(False, "--write", help="Apply fixes (default: only report what would change)."),
        unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes that can change behaviour."),
        select: list[str] | None = typer.Option(None, "--select", help="Only these codes or prefixes."),
        ignore: list[str] | None = typer.Option(None, "--ignore", help="Skip these codes or prefixes."),
        jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Worker processes (default: all cores)."),
        report: Path | None = typer.Option(None, "--report", help="Write a report: FILE.html, FILE.md or FILE.json."),
        report_dir: Path | None = typer.Option(
            None, "--report-dir", help="Write a pull-request body per repository with changes: DIR/<name>/PR.md."
        ),
        branch: str | None = typer.Option(
            None, "--branch", help="In git repos, put the fixes on this new branch (needs --write --commit)."
        ),
        commit: bool = typer.Option(False, "--commit", help="Commit the fixes on --branch, listing the rules applied."),
        update_branch: bool = typer.Option(
            False,
            "--update-branch",
            help="If --branch exists (from an earlier migration), replace its fixes with fixes of the current HEAD.",
        ),
        allow_dirty: bool = typer.Option(
            False, "--allow-dirty", help="Do not refuse repositories with uncommitted changes."
        ),
        baseline: Path | None = typer.Option(
            None, "--baseline", help="Report only findings not in this file (created on first use)."
        ),
        resume: bool = typer.Option(
            False, "--resume", help="Continue an interrupted run from its state file (not with --branch)."
        ),
        state_file: Path = typer.Option(
            Path(DEFAULT_STATE_FILE), "--state-file", help="Where an interrupted run saves its progress."
        ),
        exclude: list[str] | None = typer.Option(None, "--exclude", help="Skip files matching this glob (repeatable)."),
        progress: bool | None = typer.Option(
            None, "--progress/--no-progress", help="Show progress on stderr (default: only when stderr is a terminal)."
        ),
        validate: bool = typer.Option(
            False,
            "--validate",
            help="After fixing, run every changed script that can run (distfix validate) and report each verdict.",
        ),
        backend: Backend = typer.Option(
            Backend.local, "--backend", help="With --validate: run validations on this machine, or as Ray tasks."
        ),
        address: str | None = typer.Option(
            None,
            "--address",
            help="With --backend ray: the cluster to join ('auto': RAY_ADDRESS); default: a local Ray for the run.",
        ),
        max_steps: int = typer.Option(
            20, "--max-steps", min=1, help="With --validate: stop each run after this many steps."
        ),
        validate_timeout: float = typer.Option(
            120.0, "--validate-timeout", min=1.0, help="With --validate: seconds before a run is killed."
        ),
        synthetic_data: bool = typer.Option(
            False, "--synthetic-data", help="With --validate: replace keras.datasets downloads with random arrays."
        ),
        target_version: str | None = TargetVersionOption,
    ) -> None:
        """Migrate many files and repositories at once, with progress and a report.

        Exit 0: nothing left to fix; 1: findings remain, changes to make, uncommitted files left
        out of --branch, or a fixed script failed its validation; 2: usage errors, file or
        validation errors, or interrupted; 130: interrupted while the branches were made or
        committed (nothing is left behind).
        """
        from fixer.migrate.pr_body import write_pr_bodies
        from fixer.migrate.run import MigrateOptions, MigrationInterrupted, migrate
        from fixer.migrate.summary import write_report
        from fixer.migrate.validation import ValidationSettings, default_validation_jobs, validate_results

        problems = _usage_errors(
            paths,
            write,
            branch,
            commit,
            resume,
            report,
            baseline,
            state_file,
            validate,
            backend,
            address,
            update_branch,
            report_dir,
            select,
            ignore,
        )
        for problem in problems:
            typer.echo(f"distfix: error: {problem}", err=True)
        if problems:
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
            update_branch=update_branch,
            allow_dirty=allow_dirty,
            excludes=tuple(exclude or ()),
            baseline=baseline,
            state_file=state_file,
            # The option's callback has already parsed "X.Y" into a (major, minor) pair.
            target_version=cast("tuple[int, int] | None", target_version),
        )
        terminal = sys.stderr.isatty()
        show = ProgressPrinter(terminal) if (terminal if progress is None else progress) else None
        try:
            outcome = migrate(options, resume=resume, progress=show)
        except ValueError as exc:
            typer.echo(f"distfix: error: {exc}", err=True)
            raise typer.Exit(2) from None
        except MigrationInterrupted as exc:
            typer.echo(f"distfix: error: {exc}", err=True)
            raise typer.Exit(130) from None
        outcome.command = shlex.join(["distfix", *sys.argv[1:]])
        validation_interrupted = False
        if validate and not outcome.interrupted:
            settings = ValidationSettings(
                backend=backend.value,
                address=address,
                jobs=jobs or default_validation_jobs(),
                max_steps=max_steps,
                timeout=validate_timeout,
                synthetic_data=synthetic_data,
            )
            started = time.monotonic()
            try:
                outcome.validations = validate_results(outcome.results, settings, _show_validation if show else None)
                outcome.validation_backend = backend.value
                outcome.validation_seconds = time.monotonic() - started
            except KeyboardInterrupt:
                typer.echo("distfix: error: validation interrupted: the report has no verdicts", err=True)
                validation_interrupted = True
        try:
            if report is not None:
                write_report(outcome, report)
            if report_dir is not None:
                for written in write_pr_bodies(outcome, report_dir):
                    typer.echo(f"distfix: pull-request body: {written}", err=True)
        except (ValueError, OSError) as exc:
            typer.echo(f"distfix: error: {exc}", err=True)
            raise typer.Exit(2) from None
        _summarise(outcome)
        raise typer.Exit(2 if validation_interrupted else _exit_code(outcome, write))
