"""``distfix validate``: the command-line front of the runtime validator."""

from __future__ import annotations

import enum
from pathlib import Path

import typer

from fixer.cli_choices import Backend, ReportFormat
from fixer.extras import missing_extra


class Device(str, enum.Enum):
    """Where the replicas run."""

    auto = "auto"
    cpu = "cpu"
    gpu = "gpu"


def register(app: typer.Typer) -> None:
    """Add the ``validate`` command to the CLI."""

    @app.command("validate")
    def validate_command(
        command: list[str] | None = typer.Argument(
            None,
            metavar="[SCRIPT] [-- ARGS...]",
            help="The training script, then the script's own arguments after `--` (with -m: only the arguments). "
            "Default: [tool.distfix.validate] in pyproject.toml.",
        ),
        module: str | None = typer.Option(
            None, "-m", "--module", help="Run a module as `python -m MODULE` does (from --cwd)."
        ),
        cwd: Path | None = typer.Option(
            None,
            "--cwd",
            help=(
                "The folder the script runs in "
                "(default: the project root when the script imports its own package, else its folder)."
            ),
        ),
        replicas: int = typer.Option(2, "--replicas", min=1, help="Replicas (GPUs, or logical CPU devices)."),
        workers: int = typer.Option(
            1,
            "--workers",
            min=1,
            help="MultiWorkerMirroredStrategy workers (on 127.0.0.1, or Ray actors with --backend ray).",
        ),
        device: Device = typer.Option(Device.auto, "--device", help="auto: GPUs when TensorFlow sees any, else CPU."),
        max_steps: int = typer.Option(
            20,
            "--max-steps",
            min=1,
            help="Stop cleanly after this many steps (strategy.run calls, batches, fit batches).",
        ),
        timeout: float = typer.Option(120.0, "--timeout", min=1.0, help="Seconds before a run is killed."),
        output_format: ReportFormat = typer.Option(ReportFormat.text, "--format", help="Output format."),
        no_compare: bool = typer.Option(
            False, "--no-compare", help="Run the script as it is, without its fixed version."
        ),
        synthetic_data: bool = typer.Option(
            False, "--synthetic-data", help="Replace keras.datasets downloads with random arrays."
        ),
        keep_temp: bool = typer.Option(
            False, "--keep-temp", help="Keep the temporary copies, outputs and dumps, and print where."
        ),
        backend: Backend = typer.Option(
            Backend.local, "--backend", help="local: processes on 127.0.0.1; ray: Ray actors (needs 'distfix[ray]')."
        ),
        address: str | None = typer.Option(
            None,
            "--address",
            help="ray: the cluster to join (HOST:PORT, or auto: RAY_ADDRESS); default: a Ray for the run.",
        ),
        gpus_per_worker: float | None = typer.Option(
            None, "--gpus-per-worker", min=0.0, help="ray: GPUs each worker asks Ray for (default 0)."
        ),
    ) -> None:
        """Run the script (and its fixed version) with several replicas and workers and check the result.

        Exit 0: the validated variant passes; 1: a check fails; 2: the script could not be validated
        (missing, unparsable, needs a module, file or download that is not there, or it ran but no
        consistency check could decide: verdict "inconclusive").
        """
        from fixer.validate.project import ProjectError, resolve_entry
        from fixer.validate.report import EXIT_CODES
        from fixer.validate.runner import RunSpec
        from fixer.validate.session import CannotValidate, validate

        if backend is Backend.local and (address is not None or gpus_per_worker is not None):
            typer.echo("distfix: --address and --gpus-per-worker need --backend ray", err=True)
            raise typer.Exit(2)
        # Ray workers bring their own TensorFlow; a local run needs it here.
        missing = missing_extra("validate", "distfix validate") if backend is Backend.local else None
        if missing is not None:
            typer.echo(f"distfix: error: {missing}", err=True)
            raise typer.Exit(2)
        words = list(command or [])
        script = None if module is not None or not words else Path(words.pop(0))
        try:
            entry = resolve_entry(script, module, tuple(words), cwd)
        except ProjectError as exc:
            typer.echo(f"distfix: cannot validate: {exc}", err=True)
            raise typer.Exit(2) from None
        spec = RunSpec(
            replicas=replicas,
            workers=workers,
            device=device.value,
            max_steps=max_steps,
            timeout=timeout,
            synthetic_data=synthetic_data,
            keep_temp=keep_temp,
            backend=backend.value,
            address=address,
            gpus_per_worker=gpus_per_worker or 0.0,
            entry=entry,
        )
        try:
            report = validate(entry.script, spec, compare=not no_compare)
        except CannotValidate as exc:
            typer.echo(f"distfix: cannot validate: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(report.json() if output_format is ReportFormat.json else report.table())
        raise typer.Exit(EXIT_CODES[report.verdict])
