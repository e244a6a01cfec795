"""The ``distfix`` command line: translation between arguments and the engine, nothing more.

Only what every ``check`` needs is imported at the top: a warm check answers every file from
the cache, and importing the engine, the rules, libcst or jinja2 would be most of its time.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

import typer

from fixer import __version__
from fixer.cli_choices import TargetVersionOption
from fixer.codes import PARSE_ERROR_CODE, code_error, did_you_mean
from fixer.config import ConfigError, load_config
from fixer.launcher import LauncherKind, LaunchOptions
from fixer.output import diff as diff_output
from fixer.output import text
from fixer.pool import sigterm_interrupts
from fixer.runner import Job, run
from fixer.sources import discover

if TYPE_CHECKING:
    from fixer.types import FileResult

app = typer.Typer(
    name="distfix",
    help="Find and fix the known mistakes in TensorFlow distributed-training scripts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: the rich tables print a type for every option, `<bool>` for each flag.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C


def _show_version(requested: bool) -> None:
    if requested:
        typer.echo(f"distfix {__version__}")
        raise typer.Exit(EXIT_CLEAN)


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_show_version, help="Show the version and exit."
    ),
) -> None:
    """Find and fix the known mistakes in TensorFlow distributed-training scripts."""


class CheckFormat(str, enum.Enum):
    """Output formats of ``distfix check``."""

    text = "text"
    concise = "concise"
    json = "json"
    sarif = "sarif"
    github = "github"
    junit = "junit"


# The machine-readable formats of ``check``, by the module in fixer/output that renders each.
MACHINE_FORMATS = {
    CheckFormat.json: "json_format",
    CheckFormat.sarif: "sarif",
    CheckFormat.github: "github",
    CheckFormat.junit: "junit",
}


class ListFormat(str, enum.Enum):
    """Output formats of ``distfix rules``."""

    text = "text"
    json = "json"
    markdown = "markdown"


PathsArgument = typer.Argument(
    None,
    metavar="PATH",
    help="Files or folders to check (folders are searched for .py and .ipynb; default: .).",
    show_default=False,
)
SelectOption = typer.Option(
    None,
    "--select",
    metavar="CODES",
    help="Only these codes or prefixes (TFD, TFD1, TFD101); comma-separated or repeated.",
)
IgnoreOption = typer.Option(None, "--ignore", metavar="CODES", help="Skip these codes or prefixes.")
ExtendSelectOption = typer.Option(
    None,
    "--extend-select",
    metavar="CODES",
    help="Add these codes or prefixes to the selection (pyproject.toml's or --select's).",
)
ExtendIgnoreOption = typer.Option(
    None, "--extend-ignore", metavar="CODES", help="Skip these codes or prefixes too, besides pyproject.toml's ignore."
)
PerFileIgnoresOption = typer.Option(
    None,
    "--per-file-ignores",
    metavar="GLOB:CODES",
    help="Skip CODES in files matching GLOB, besides pyproject.toml's per-file-ignores (repeatable).",
)
JobsOption = typer.Option(None, "--jobs", "-j", min=1, metavar="N", help="Worker processes (default: all cores).")
ExitZeroOption = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings (advisory CI runs).")
OutputFileOption = typer.Option(
    None, "--output-file", "-o", metavar="FILE", help="Write the report to this file instead of stdout."
)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"distfix: error: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def _discover(paths: list[str]) -> tuple[list[Path], int]:
    """The source files under ``paths``, each project's ``exclude`` honoured; unusable paths are reported."""
    try:
        load_config(Path.cwd())  # a broken configuration here stops the run before any file
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    files, problems = discover(paths)
    for problem in problems:
        typer.echo(f"distfix: error: {problem.path}: {problem.message}", err=True)
    return files, len(problems)


@dataclasses.dataclass(frozen=True)
class Selection:
    """The rule-selection options of ``check`` and ``fix``, as given on the command line."""

    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_select: list[str] | None = None
    extend_ignore: list[str] | None = None
    per_file_ignores: list[str] | None = None


def _per_file_ignores(values: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """``GLOB:CODES`` pairs, each code checked; a usage error for a malformed one."""
    pairs = []
    for value in values:
        glob, colon, codes = value.rpartition(":")
        if not colon or not glob or not codes.strip():
            raise _fail(f"--per-file-ignores {value!r}: expected GLOB:CODES, e.g. 'tests/*:TFD101,TFD2'")
        problem = code_error([codes], f"--per-file-ignores {glob!r}")
        if problem is not None:
            raise _fail(problem)
        pairs.append((glob, tuple(part.strip().upper() for part in codes.split(",") if part.strip())))
    return pairs


def _overrides(
    selection: Selection, unsafe_fixes: bool | None = None, target_version: tuple[int, int] | None = None
) -> tuple[tuple[str, object], ...]:
    """Command-line settings over each file's configuration; unknown codes are a usage error."""
    given: list[tuple[str, object]] = []
    for key in ("select", "ignore", "extend_select", "extend_ignore"):
        value = getattr(selection, key)
        problem = code_error(value or [], "--" + key.replace("_", "-"))
        if problem is not None:
            raise _fail(problem)
        if value:
            given.append((key, value))
    if selection.per_file_ignores:
        given.append(("per_file_ignores", _per_file_ignores(selection.per_file_ignores)))
    if unsafe_fixes is not None:  # --unsafe-fixes and --no-unsafe-fixes both beat pyproject.toml
        given.append(("unsafe_fixes", unsafe_fixes))
    if target_version is not None:
        given.append(("target_version", target_version))
    return tuple(given)


def _gather(
    paths: list[str],
    selection: Selection,
    job: Job,
    jobs: int | None,
    unsafe_fixes: bool | None = None,
    target_version: tuple[int, int] | None = None,
) -> tuple[list[FileResult], int]:
    """Discover files, run the job over them, and report unusable paths; returns results and problem count."""
    roots = tuple(os.path.abspath(p) for p in paths if os.path.isdir(p))
    job = dataclasses.replace(job, overrides=_overrides(selection, unsafe_fixes, target_version), project_roots=roots)
    files, problems = _discover(paths)
    try:
        with sigterm_interrupts():
            return run(files, job, jobs), problems
    except KeyboardInterrupt:
        # The workers are stopped by now (fixer/pool.py): each file is either written whole or untouched.
        written = " (files already fixed stay fixed; the others are untouched)" if job.write else ""
        typer.echo(f"distfix: stopped before every file was processed{written}", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _check_baseline(baseline: Path) -> None:
    """A usage error, before any file is read, for a baseline that cannot be used."""
    from fixer.migrate.baseline import read_baseline

    try:
        read_baseline(baseline)
    except ValueError as exc:
        raise _fail(str(exc)) from None


def _apply_baseline(results: list[FileResult], baseline: Path, paths: list[str]) -> int:
    """Hide the findings in ``baseline`` (or record them, on the first run); keys are relative to
    each PATH's git repository, else to the PATH's folder, as migrate's are."""
    from fixer.migrate.baseline import apply_baseline
    from fixer.migrate.files import git_root

    roots: dict[str, Path] = {}
    for path in map(Path, paths):
        folder = path if path.is_dir() else path.parent
        root = git_root(folder) or folder
        for result in results:
            if result.path not in roots and _is_under(Path(result.path), path):
                roots[result.path] = root
    return apply_baseline(results, baseline, roots)


def _is_under(file: Path, path: Path) -> bool:
    return file == path or path in file.parents or path.resolve() in file.resolve().parents


def _emit(report: str, output_file: Path | None) -> None:
    if output_file is None:
        typer.echo(report, nl=not report.endswith("\n"))
        return
    try:
        output_file.write_text(report if report.endswith("\n") else report + "\n", encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot write {output_file}: {exc.strerror or exc}") from None


def _exit_code(results: list[FileResult], problems: int, found: bool, exit_zero: bool) -> int:
    if problems or any(r.error is not None for r in results):
        return EXIT_ERROR
    if found and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


@app.command()
def check(
    paths: list[str] | None = PathsArgument,
    output_format: CheckFormat = typer.Option(
        CheckFormat.text,
        "--output-format",
        "--format",
        help="Output format (ruff's --output-format; --format is the same).",
    ),
    select: list[str] | None = SelectOption,
    ignore: list[str] | None = IgnoreOption,
    extend_select: list[str] | None = ExtendSelectOption,
    extend_ignore: list[str] | None = ExtendIgnoreOption,
    per_file_ignores: list[str] | None = PerFileIgnoresOption,
    baseline: Path | None = typer.Option(
        None,
        "--baseline",
        metavar="FILE",
        help="Report only findings not recorded in FILE; the first run records them all (migrate's format).",
    ),
    statistics: bool = typer.Option(False, "--statistics", help="Print a count per rule instead of each finding."),
    jobs: int | None = JobsOption,
    exit_zero: bool = ExitZeroOption,
    output_file: Path | None = OutputFileOption,
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the result cache (.distfix_cache/)."),
    target_version: str | None = TargetVersionOption,
    show_source: bool = typer.Option(
        False, "--show-source", help="Show each finding's source line with a caret under it (text format)."
    ),
) -> None:
    """Report findings (in . by default). Exit 0: clean; 1: findings; 2: a file or usage error."""
    paths = paths or ["."]
    if baseline is not None:
        _check_baseline(baseline)
    selection = Selection(select, ignore, extend_select, extend_ignore, per_file_ignores)
    target = cast("tuple[int, int] | None", target_version)  # the option's callback parsed "X.Y"
    results, problems = _gather(paths, selection, Job(use_cache=not no_cache), jobs, target_version=target)
    if baseline is not None:
        recording = not baseline.exists()
        hidden = _apply_baseline(results, baseline, paths)
        if recording:
            recorded = sum(len(r.findings) for r in results)
            typer.echo(
                f"distfix: recorded {recorded} finding{'s' * (recorded != 1)} in the new baseline {baseline}; "
                "later runs show only new ones.",
                err=True,
            )
        elif hidden:
            typer.echo(
                f"distfix: {hidden} finding{'s' * (hidden != 1)} in the baseline {baseline} not shown.", err=True
            )
    findings = [f for r in results for f in r.findings]
    if output_format in MACHINE_FORMATS:
        # Imported only when asked for: SARIF alone imports jinja2 and every rule.
        report = importlib.import_module(f"fixer.output.{MACHINE_FORMATS[output_format]}").render(results)
    elif statistics:
        report = text.statistics(results)
    else:
        if show_source and output_format is CheckFormat.text:
            from fixer.output import show_source as full

            lines = full.render(results)
        else:
            lines = [text.finding_line(f) for f in findings]
        if output_format is CheckFormat.text:
            lines += ([""] if lines else []) + [text.summary(results, problems)]
        report = "\n".join(lines)
    if report:
        _emit(report, output_file)
    found = any(f.code != "TFD000" for f in findings)
    raise typer.Exit(_exit_code(results, problems, found, exit_zero))


@app.command()
def fix(
    paths: list[str] | None = PathsArgument,
    diff: bool = typer.Option(
        False, "--diff", help="Show the changes as a unified diff and write nothing (the default)."
    ),
    write: bool = typer.Option(False, "--write", help="Apply the fixes to the files (atomically)."),
    unsafe_fixes: bool | None = typer.Option(
        None, "--unsafe-fixes/--no-unsafe-fixes", help="Also apply fixes that can change behaviour."
    ),
    select: list[str] | None = SelectOption,
    ignore: list[str] | None = IgnoreOption,
    extend_select: list[str] | None = ExtendSelectOption,
    extend_ignore: list[str] | None = ExtendIgnoreOption,
    per_file_ignores: list[str] | None = PerFileIgnoresOption,
    emit_launcher: Path | None = typer.Option(
        None,
        "--emit-launcher",
        metavar="DIR",
        help="Write launchers for each hard-coded TF_CONFIG that TFD601 removes, into DIR/<script name>/.",
    ),
    launcher: LauncherKind | None = typer.Option(
        None,
        "--launcher",
        metavar="shell|ray|tfjob",
        help="With --emit-launcher: shell (one script per task, the default), ray (a `ray job submit` entry point) "
        "or tfjob (a Kubeflow TFJob manifest).",
    ),
    image: str | None = typer.Option(
        None,
        "--image",
        metavar="IMAGE",
        help="With --launcher tfjob: the container image that holds the project (required).",
    ),
    launch_command: str | None = typer.Option(
        None,
        "--launch-command",
        metavar="COMMAND",
        help="With --launcher tfjob: the container's command "
        "(default `python <script>`, the path relative to the project folder).",
    ),
    interactive: bool = typer.Option(
        False,
        "--interactive",
        "-i",
        help="Review each fix as a diff and choose: apply, skip, apply or skip the whole rule, quit. "
        "Writes the fixes you apply; .py files only (notebooks are counted and named); "
        "one file at a time, so --jobs does not apply.",
    ),
    jobs: int | None = JobsOption,
    exit_zero: bool = ExitZeroOption,
    output_file: Path | None = typer.Option(
        None,
        "--output-file",
        "-o",
        metavar="FILE",
        help="Write the diff and the summary to this file instead of stdout and stderr.",
    ),
    target_version: str | None = TargetVersionOption,
) -> None:
    """Show (default) or apply fixes (in . by default).
    Exit 0: nothing to change; 1: changes or findings remain; 2: errors."""
    paths = paths or ["."]
    selection = Selection(select, ignore, extend_select, extend_ignore, per_file_ignores)
    target = cast("tuple[int, int] | None", target_version)  # the option's callback parsed "X.Y"
    if diff and write:
        raise _fail("--diff and --write are exclusive")
    if emit_launcher is not None and not write and not interactive:
        raise _fail("--emit-launcher writes launchers, and a diff writes nothing: use it with --write")
    launch_options = _launch_options(emit_launcher, launcher, image, launch_command)
    if interactive:
        misuse = next(
            (
                name
                for name, given in (
                    ("--diff", diff),
                    ("--output-file", output_file),
                    ("--emit-launcher", emit_launcher),
                )
                if given
            ),
            None,
        )
        if misuse is not None:
            raise _fail(f"--interactive cannot be combined with {misuse} (it writes the fixes you accept, as you go)")
    if interactive:
        try:
            config_unsafe = load_config(Path.cwd()).unsafe_fixes
        except ConfigError as exc:
            raise _fail(str(exc)) from None
        unsafe = bool(unsafe_fixes) if unsafe_fixes is not None else config_unsafe
        raise typer.Exit(_interactive(paths, _overrides(selection, target_version=target), unsafe, exit_zero))
    # Each file's own pyproject.toml decides unsafe-fixes unless the command line says otherwise.
    results, problems = _gather(
        paths,
        selection,
        Job(fix=True, write=write, launchers_written=emit_launcher is not None),
        jobs,
        unsafe_fixes,
        target,
    )
    patches = []
    for result in results:
        if result.error is not None:
            typer.echo(f"distfix: error: {result.path}: {result.error}", err=True)
        if result.reverted:
            typer.echo(f"distfix: warning: {result.path}: {result.reverted}", err=True)
        if not write and result.changed:
            patches.append(diff_output.unified_diff(result.path, result.source or "", result.fixed_text or ""))
    if emit_launcher is not None:
        _emit_launchers(results, emit_launcher, launch_options)
    remaining = [f for r in results for f in r.findings if f.code != "TFD000"]
    summary = _fix_summary(results, write, len(remaining)) + _tf_config_note(results, write, emit_launcher is not None)
    if output_file is not None:
        _emit("".join(patches) + summary, output_file)
    else:
        colour = sys.stdout.isatty()
        for patch in patches:
            typer.echo(diff_output.colourise(patch) if colour else patch, nl=False)
        typer.echo(summary, err=True)
    found = bool(remaining) or (bool(patches) and not write)
    raise typer.Exit(_exit_code(results, problems, found, exit_zero))


def _fix_summary(results: list[FileResult], write: bool, remaining: int) -> str:
    """``Would fix N findings in M files; K findings remain.`` and the unsafe fixes held back."""
    applied = sum(len(r.applied) for r in results)
    changed = sum(1 for r in results if r.changed)
    held_back = sum(r.held_back_unsafe for r in results)
    if applied:
        verb = "Fixed" if write else "Would fix"
        message = f"{verb} {applied} finding{'s' * (applied != 1)} in {changed} file{'s' * (changed != 1)}"
    else:
        message = "Nothing to fix"
    if remaining:
        them = "them" if remaining != 1 else "it"
        message += f"; {remaining} finding{'s remain' if remaining != 1 else ' remains'} (`distfix check` lists {them})"
    failed = sum(1 for r in results if r.error is not None)
    if failed:
        message += f"; {failed} file{'s' * (failed != 1)} could not be {'fixed' if write else 'checked'} (errors above)"
    message += "."
    if held_back:
        message += f"\n{held_back} unsafe fix{'es' * (held_back != 1)} held back: use --unsafe-fixes to apply."
    return message


def _tf_config_note(results: list[FileResult], write: bool, launchers: bool) -> str:
    """What TFD601 fixes mean for launching, unless launchers were written: the cluster is only in a comment now."""
    files = sum(1 for r in results if any(f.code == "TFD601" for f in r.applied))
    if not files or launchers:
        return ""
    where = f"{files} file{'s' * (files != 1)}"
    done = "moved" if write else "would move"
    return (
        f"\nTFD601 {done} the hard-coded TF_CONFIG of {where} into a comment: each task must now get TF_CONFIG "
        "from its environment (`--write --emit-launcher DIR` writes one launch script per task; "
        "with `--launcher ray` or `--launcher tfjob`, a Ray job or a Kubeflow TFJob manifest)."
    )


def _launch_options(
    out_dir: Path | None, kind: LauncherKind | None, image: str | None, command: str | None
) -> LaunchOptions:
    """The launcher options, or a usage error for a combination that cannot be meant."""
    if kind is not None and out_dir is None:
        raise _fail("--launcher chooses the kind of launchers --emit-launcher DIR writes: give --emit-launcher too")
    chosen = kind or LauncherKind.shell
    tfjob_only = next(
        (name for name, given in (("--image", image), ("--launch-command", command)) if given is not None), None
    )
    if tfjob_only is not None and chosen is not LauncherKind.tfjob:
        raise _fail(f"{tfjob_only} is for TFJob manifests: use it with --emit-launcher DIR --launcher tfjob")
    if chosen is LauncherKind.tfjob and not image:
        raise _fail("--launcher tfjob needs --image IMAGE, the container image that holds the project")
    try:
        parts = tuple(shlex.split(command)) if command is not None else None
    except ValueError as exc:
        raise _fail(f"--launch-command: {exc}") from None
    if parts == ():
        raise _fail("--launch-command is empty")
    return LaunchOptions(kind=chosen, image=image, command=parts)


def _emit_launchers(results: list[FileResult], out_dir: Path, options: LaunchOptions) -> None:
    from fixer.launcher.emit import emit_launchers
    from fixer.launcher.plan import launcher_plan

    for result in results:
        if result.source is None or not any(f.code == "TFD601" for f in result.applied + result.findings):
            continue
        script = Path(result.path)
        plan = launcher_plan(result.path, result.source)
        for warning in plan.warnings:  # what cannot be carried is said, never dropped silently
            typer.echo(f"distfix: warning: {warning}", err=True)
        for number, config in enumerate(plan.configs):
            folder = out_dir / script.stem if number == 0 else out_dir / f"{script.stem}_{number}"
            written = emit_launchers(script, config, folder, options)
            typer.echo(_launchers_written(options, script, written), err=True)
        if plan.configs and any(f.code == "TFD601" for f in result.findings):
            # The script would overwrite the TF_CONFIG the launchers give it.
            typer.echo(
                f"distfix: warning: {script} still sets its hard-coded TF_CONFIG, which overrides the launchers' "
                f"(TFD601 was not fixed: `distfix check {script}` says why)",
                err=True,
            )


def _launchers_written(options: LaunchOptions, script: Path, written: list[Path]) -> str:
    """One line saying what was written for a script, and how it is started."""
    if options.kind is LauncherKind.ray:
        return f"Wrote a Ray job for {script}: {written[0]} (its header gives the `ray job submit` command)"
    if options.kind is LauncherKind.tfjob:
        return f"Wrote a TFJob manifest for {script}: {written[0]} (`kubectl apply -f` it)"
    return f"Wrote {len(written)} launch scripts for {script} to {written[0].parent}"


def _ask(prompt: str) -> str:
    """One answer: a single key press on a terminal, else a line of input; end of input quits."""
    if sys.stdin.isatty():
        typer.echo(prompt, nl=False)
        key = typer.getchar()
        typer.echo(key)
        return key
    try:
        answer = input(prompt)
    except EOFError:
        answer = "q"
    typer.echo(answer)  # piped answers are not echoed by a terminal
    return answer


def _interactive(paths: list[str], overrides: tuple[tuple[str, object], ...], unsafe: bool, exit_zero: bool) -> int:
    """Review the fixes of every file; the exit code follows ``fix --write``."""
    from fixer.interactive import Review, Terminal, review_file
    from fixer.runner import config_for

    files, problems = _discover(paths)
    review = Review(unsafe=unsafe)
    terminal = Terminal(
        ask=_ask, say=typer.echo, warn=lambda message: typer.echo(message, err=True), colour=sys.stdout.isatty()
    )
    for path in files:
        try:
            config = config_for(path, overrides)
        except ConfigError as exc:
            typer.echo(f"distfix: error: {path}: {exc}", err=True)
            review.errors += 1
            continue
        review_file(path, config, review, terminal)
    typer.echo(review.summary())
    if problems or review.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if review.remaining and not exit_zero else EXIT_CLEAN


@app.command()
def explain(
    code: str | None = typer.Argument(None, help="A rule code, e.g. TFD101, or a rule name."),
    all_rules: bool = typer.Option(False, "--all", help="Every rule's documentation, one after another."),
) -> None:
    """Show a rule's documentation."""
    from fixer.explain import PARSE_ERROR_EXPLANATION, render_explanation
    from fixer.registry import default_registry

    registry = default_registry()
    if all_rules:
        typer.echo("\n".join(render_explanation(rule) for rule in registry.rules), nl=False)
        return
    if code is None:
        raise _fail("give a rule code (or --all)")
    if code.upper() == PARSE_ERROR_CODE or code.lower() == "parse-error":
        typer.echo(PARSE_ERROR_EXPLANATION, nl=False)
        return
    rule = registry.get(code) or next((r for r in registry.rules if r.name == code.lower()), None)
    if rule is None:
        names = [r.code for r in registry.rules] + [r.name for r in registry.rules]
        close = did_you_mean(code.upper(), [r.code for r in registry.rules], cutoff=0.8) or did_you_mean(
            code.lower(), names
        )
        raise _fail(f"unknown rule {code!r}{close}; `distfix rules` lists them")
    typer.echo(render_explanation(rule), nl=False)


@app.command()
def rules(output_format: ListFormat = typer.Option(ListFormat.text, "--format", help="Output format.")) -> None:
    """List every rule with its code, name, family and fix availability."""
    from fixer.explain import rule_summary, rules_markdown
    from fixer.registry import default_registry

    rows = [rule_summary(rule) for rule in default_registry().rules]
    if output_format is ListFormat.json:
        import json

        typer.echo(json.dumps(rows, indent=2))
        return
    if output_format is ListFormat.markdown:
        typer.echo(rules_markdown(rows))
        return
    for row in rows:
        typer.echo(f"{row['code']}  {row['name']:<40} {row['family']:<12} fix: {row['fix']}")


# Front-ends that live in their own modules register their commands here.
from fixer.dev.command import register as _register_dev  # noqa: E402
from fixer.doctor.command import register as _register_doctor  # noqa: E402
from fixer.lsp.command import register as _register_lsp  # noqa: E402
from fixer.migrate.command import register as _register_migrate  # noqa: E402
from fixer.target.command import register as _register_target  # noqa: E402
from fixer.validate.command import register as _register_validate  # noqa: E402

_register_migrate(app)
_register_validate(app)
_register_doctor(app)
_register_lsp(app)
_register_dev(app)
_register_target(app)


def main() -> None:
    """Console-script entry point."""
    app()
