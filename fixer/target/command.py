"""``distfix target [PATH]``: print which TensorFlow and Keras the project around PATH runs, and
from which files that was decided."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from fixer.cli_choices import ReportFormat, TargetVersionOption


def register(app: typer.Typer) -> None:
    """Add the ``target`` command to the CLI."""

    @app.command("target")
    def target_command(
        path: Path = typer.Argument(Path("."), help="A file or folder of the project (default: the current folder)."),
        output_format: ReportFormat = typer.Option(ReportFormat.text, "--format", help="Output format."),
        target_version: str | None = TargetVersionOption,
    ) -> None:
        """Show the TensorFlow version and Keras the rules judge PATH against, and where each came from."""
        from fixer.config import ConfigError, load_config
        from fixer.target import target_for
        from fixer.target.report import as_dict, as_text

        if not path.exists():
            typer.echo(f"distfix: error: {path}: no such file or folder", err=True)
            raise typer.Exit(2)
        requested_from = "--target-version" if target_version is not None else None
        if target_version is None:
            try:
                config = load_config(path)
            except ConfigError as exc:
                typer.echo(f"distfix: error: {exc}", err=True)
                raise typer.Exit(2) from None
            target_version = config.target_version  # type: ignore[assignment]
            if target_version is not None and config.root is not None:
                requested_from = f"{config.root / 'pyproject.toml'} [tool.distfix]"
        target = target_for(path, target_version)  # type: ignore[arg-type]
        base = path.resolve() if path.is_dir() else path.resolve().parent
        if output_format is ReportFormat.json:
            typer.echo(json.dumps(as_dict(target, base, requested_from), indent=2))
        else:
            typer.echo(as_text(target, base, requested_from))
