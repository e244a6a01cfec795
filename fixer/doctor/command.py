"""``distfix doctor``: the command-line front of the cluster preflight."""

from __future__ import annotations

import enum
import json
import os
from pathlib import Path
from typing import Optional

import typer

from fixer.clusterspec import parse_tf_config
from fixer.doctor.report import DoctorReport, Problem


class DoctorFormat(str, enum.Enum):
    """Output formats of ``distfix doctor``."""

    text = "text"
    json = "json"


def _tf_config_text(tf_config: str | None, tf_config_file: Path | None, report: DoctorReport) -> str | None:
    if tf_config is not None:
        return tf_config
    if tf_config_file is not None:
        try:
            return tf_config_file.read_text(encoding="utf-8")
        except OSError as exc:
            report.failed_to_run = f"cannot read {tf_config_file}: {exc.strerror or exc}"
            return None
    if "TF_CONFIG" in os.environ:
        return os.environ["TF_CONFIG"]
    report.failed_to_run = "TF_CONFIG is not set: pass --tf-config JSON or --tf-config-file PATH, or set the variable"
    return None


def check_config(text: str, network: bool, timeout: float) -> DoctorReport:
    """Static checks (TFD602/TFD603) and, when they pass and ``network``, the live checks."""
    from fixer.doctor.network import live_checks

    report = DoctorReport()
    config, problems = parse_tf_config(text)
    for problem in problems:
        severity = "warning" if problem.code == "TFD602" else "error"
        report.problems.append(Problem(severity, f"tf-config {problem.code}", problem.message))
    if config is None:
        return report
    if not problems:
        workers = sum(len(v) for v in config["cluster"].values())
        report.notes.append(f"TF_CONFIG is well formed ({workers} task(s); this is {config['task']['type']} {config['task']['index']})")
    if network and not any(p.severity == "error" for p in report.problems):
        live, passed = live_checks(config, timeout)
        report.problems.extend(live)
        report.notes.extend(passed)
    return report


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` command to the CLI."""

    @app.command("doctor")
    def doctor(
        tf_config: Optional[str] = typer.Option(None, "--tf-config", help="The TF_CONFIG JSON to check (default: $TF_CONFIG)."),
        tf_config_file: Optional[Path] = typer.Option(None, "--tf-config-file", help="Read the TF_CONFIG JSON from a file."),
        no_network: bool = typer.Option(False, "--no-network", help="Only check the TF_CONFIG itself; contact nothing."),
        connect_timeout: float = typer.Option(2.0, "--connect-timeout", min=0.1, help="Seconds to wait for each address."),
        fingerprint: bool = typer.Option(False, "--fingerprint", help="Write this worker's environment as JSON."),
        output: Optional[Path] = typer.Option(None, "--output", "-o", help="With --fingerprint: the file to write."),
        compare: bool = typer.Option(False, "--compare", help="Compare the fingerprint FILES of several workers."),
        files: Optional[list[Path]] = typer.Argument(None, help="With --compare: fingerprint files written by --fingerprint -o."),
        probe: bool = typer.Option(False, "--probe", help="Form the cluster for real and all-reduce once."),
        local: Optional[int] = typer.Option(None, "--local", min=1, help="With --probe: start this many local workers on 127.0.0.1."),
        timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="With --probe: seconds before a hung worker is killed."),
        output_format: DoctorFormat = typer.Option(DoctorFormat.text, "--format", help="Output format."),
    ) -> None:
        """Check a cluster before launch. Exit 0: all good; 1: problems found; 2: could not run."""
        if fingerprint:
            _fingerprint(output)
            return
        report = DoctorReport()
        if compare:
            _compare(files or [], report)
        elif probe and local:
            from fixer.doctor.probe import probe_local

            problems, passed = probe_local(local, timeout)
            report.problems, report.notes = problems, passed
        else:
            text = _tf_config_text(tf_config, tf_config_file, report)
            if text is not None:
                report = check_config(text, network=not no_network and not probe, timeout=connect_timeout)
                if probe and report.exit_code == 0:
                    from fixer.doctor.probe import probe_this_worker

                    problems, passed = probe_this_worker(text, timeout)
                    report.problems += problems
                    report.notes += passed
        typer.echo(report.json() if output_format is DoctorFormat.json else report.text())
        raise typer.Exit(report.exit_code)


def _fingerprint(output: Path | None) -> None:
    from fixer.doctor.fingerprint import FingerprintError, take_fingerprint

    try:
        data = take_fingerprint()
    except FingerprintError as exc:
        typer.echo(f"distfix: error: {exc}", err=True)
        raise typer.Exit(2) from None
    text = json.dumps(data, indent=2, sort_keys=True)
    if output is None:
        typer.echo(text)
        return
    try:
        output.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        typer.echo(f"distfix: error: cannot write {output}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"Wrote the fingerprint of {data.get('hostname')} to {output}", err=True)


def _compare(files: list[Path], report: DoctorReport) -> None:
    from fixer.doctor.fingerprint import FingerprintError, compare, load_fingerprint

    if len(files) < 2:
        report.failed_to_run = "--compare needs at least two fingerprint files"
        return
    try:
        prints = {str(path): load_fingerprint(path) for path in files}
    except FingerprintError as exc:
        report.failed_to_run = str(exc)
        return
    report.problems = compare(prints)
    if not report.problems:
        report.notes.append(f"{len(files)} fingerprints match")
