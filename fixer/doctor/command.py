"""``distfix doctor``: the command-line front of the cluster preflight.

This process never imports TensorFlow: fingerprints and probes run it in child processes.
"""

from __future__ import annotations

import enum
import json
import os
from pathlib import Path  # noqa: TC003 - typer reads the commands' annotations at run time

import typer

from fixer.cli_choices import ReportFormat
from fixer.clusterspec import parse_tf_config
from fixer.doctor.report import DoctorReport, Problem
from fixer.extras import missing_extra

EXIT_ERROR = 2
DEFAULT_PROBE_TIMEOUT = 60.0


class Device(str, enum.Enum):
    """Devices a probe may use."""

    cpu = "cpu"
    gpu = "gpu"


def _tf_config_text(tf_config: str | None, tf_config_file: Path | None, report: DoctorReport) -> str | None:
    if tf_config is not None:
        return tf_config
    if tf_config_file is not None:
        try:
            return tf_config_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            report.failed_to_run = f"cannot read {tf_config_file}: {reason}"
            return None
    if "TF_CONFIG" in os.environ:
        return os.environ["TF_CONFIG"]
    report.failed_to_run = "TF_CONFIG is not set: pass --tf-config JSON or --tf-config-file PATH, or set the variable"
    return None


def check_config(text: str, network: bool, timeout: float, peers: bool = True) -> DoctorReport:
    """Static checks (TFD602/TFD603) and, when they find no error and ``network``, the live checks
    (``peers``: also connect to the other tasks' ports)."""
    from fixer.doctor.network import live_checks

    report = DoctorReport()
    config, problems = parse_tf_config(text)
    for problem in problems:
        # Loopback entries mixed with other hosts can still work when they all are this machine.
        severity = "warning" if problem.kind == "loopback-mixed" else "error"
        report.problems.append(Problem(severity, f"{problem.code} {problem.kind}", problem.message, problem.path))
    if config is None:
        return report
    if not config:
        # Measured (benchmarks/probe_empty_tf_config.py): `{}` is read as no cluster at all.
        report.notes.append("TF_CONFIG is `{}`: no cluster; TensorFlow runs this process as one local worker")
        return report
    if not problems:
        tasks = sum(len(v) for v in config["cluster"].values())
        report.notes.append(
            f"TF_CONFIG is well formed ({tasks} task(s); this is {config['task']['type']} {config['task']['index']})"
        )
    if network and not any(p.severity == "error" for p in report.problems):
        live, passed = live_checks(config, timeout, peers)
        report.problems.extend(live)
        report.notes.extend(passed)
    return report


def _usage(
    fingerprint: bool,
    output: Path | None,
    compare: bool,
    files: list[Path] | None,
    probe: bool,
    local: int | None,
    config_option: str | None,
    no_network: bool,
    probe_options: list[str],
) -> str | None:
    """The first misuse of the options, or None (``config_option``: --tf-config or --tf-config-file when given;
    ``probe_options``: the options given that only a probe uses)."""
    modes = [name for name, on in (("--fingerprint", fingerprint), ("--compare", compare), ("--probe", probe)) if on]
    if len(modes) > 1:
        return f"{' and '.join(modes)} cannot be used together"
    if output is not None and not fingerprint:
        return "-o/--output is for --fingerprint"
    if (fingerprint or compare) and (config_option or no_network):
        return (
            f"{config_option or '--no-network'} is not used by {modes[0]}, "
            "which reads no TF_CONFIG and contacts nothing"
        )
    if probe and no_network:
        return "--no-network contradicts --probe, which forms the cluster over the network"
    if probe_options and not probe:
        return f"{probe_options[0]} is for --probe"
    if local is not None and config_option:
        return "--probe --local makes its own TF_CONFIG; drop --tf-config/--tf-config-file"
    if files and not compare:
        return "fingerprint files are only read with --compare"
    return None


def register(app: typer.Typer) -> None:
    """Add the ``doctor`` command to the CLI."""

    @app.command("doctor")
    def doctor(
        tf_config: str | None = typer.Option(
            None, "--tf-config", help="The TF_CONFIG JSON to check (default: $TF_CONFIG)."
        ),
        tf_config_file: Path | None = typer.Option(
            None, "--tf-config-file", help="Read the TF_CONFIG JSON from a file."
        ),
        no_network: bool = typer.Option(
            False, "--no-network", help="Only check the TF_CONFIG itself; contact nothing."
        ),
        connect_timeout: float = typer.Option(
            2.0, "--connect-timeout", min=0.1, help="Seconds to wait to resolve or connect to each address."
        ),
        fingerprint: bool = typer.Option(
            False, "--fingerprint", help="Print (or write with -o) this worker's environment as JSON."
        ),
        output: Path | None = typer.Option(None, "--output", "-o", help="With --fingerprint: the file to write."),
        compare: bool = typer.Option(False, "--compare", help="Compare the fingerprint FILES of several workers."),
        files: list[Path] | None = typer.Argument(
            None, help="With --compare: fingerprint files written by --fingerprint -o."
        ),
        probe: bool = typer.Option(False, "--probe", help="Form the cluster for real and all-reduce once."),
        local: int | None = typer.Option(
            None, "--local", min=1, max=16, help="With --probe: start this many workers on 127.0.0.1."
        ),
        device: Device | None = typer.Option(
            None, "--device", help="With --probe: cpu hides the GPUs (default cpu with --local, else what is visible)."
        ),
        timeout: float | None = typer.Option(
            None, "--timeout", min=1.0, help="With --probe: seconds before the workers are killed (default 60)."
        ),
        peer_timeout: float | None = typer.Option(
            None,
            "--peer-timeout",
            min=1.0,
            help="With --probe: seconds a worker may form the cluster once TensorFlow is imported (default: no bound "
            "but --timeout).",
        ),
        output_format: ReportFormat = typer.Option(ReportFormat.text, "--format", help="Output format."),
    ) -> None:
        """Check a cluster before launch. Exit 0: all good; 1: problems found; 2: could not run."""
        config_option = (
            "--tf-config" if tf_config is not None else "--tf-config-file" if tf_config_file is not None else None
        )
        probe_options = [
            name
            for name, value in (
                ("--local", local),
                ("--device", device),
                ("--timeout", timeout),
                ("--peer-timeout", peer_timeout),
            )
            if value is not None
        ]
        misuse = _usage(fingerprint, output, compare, files, probe, local, config_option, no_network, probe_options)
        if misuse is None and probe:
            misuse = missing_extra("validate", "distfix doctor --probe")
        if misuse is not None:
            typer.echo(f"distfix: error: {misuse}", err=True)
            raise typer.Exit(EXIT_ERROR)
        if fingerprint:
            _fingerprint(output)
            return
        timeout = timeout if timeout is not None else DEFAULT_PROBE_TIMEOUT
        report = DoctorReport()
        cpu_only = device is Device.cpu or (device is None and local is not None)
        if compare:
            _compare(files or [], report)
        elif probe and local:
            from fixer.doctor.probe import probe_local

            report.problems, report.notes = probe_local(local, timeout, cpu_only, peer_timeout)
        else:
            text = _tf_config_text(tf_config, tf_config_file, report)
            if text is not None:
                # A probing peer listens only once its own probe runs, so its port is not checked first.
                report = check_config(text, network=not no_network, timeout=connect_timeout, peers=not probe)
                if probe and report.exit_code == 0:
                    from fixer.doctor.probe import probe_this_worker

                    problems, passed = probe_this_worker(text, timeout, cpu_only, peer_timeout)
                    report.problems += problems
                    report.notes += passed
        _print(report, output_format)
        raise typer.Exit(report.exit_code)


def _print(report: DoctorReport, output_format: ReportFormat) -> None:
    if output_format is ReportFormat.json:
        typer.echo(report.json())
    elif report.failed_to_run is not None:
        typer.echo(f"distfix: error: {report.failed_to_run}", err=True)
    else:
        typer.echo(report.text())


def _fingerprint(output: Path | None) -> None:
    from fixer.doctor.fingerprint import FingerprintError, take_fingerprint

    try:
        data = take_fingerprint()
    except FingerprintError as exc:
        typer.echo(f"distfix: error: {exc}", err=True)
        raise typer.Exit(EXIT_ERROR) from None
    text = json.dumps(data, indent=2, sort_keys=True)
    if output is None:
        typer.echo(text)
        return
    try:
        output.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        typer.echo(f"distfix: error: cannot write {output}: {exc.strerror or exc}", err=True)
        raise typer.Exit(EXIT_ERROR) from None
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
    if not any(p.severity in ("error", "warning") for p in report.problems):
        report.notes.append(f"{len(files)} fingerprints agree on everything that matters to collectives")
