"""Choices that several subcommands offer the same way (``--format``, ``--backend``)."""

from __future__ import annotations

import enum

import typer


class ReportFormat(str, enum.Enum):
    """Output formats of the commands that write one report (``doctor``, ``validate``)."""

    text = "text"
    json = "json"


class Backend(str, enum.Enum):
    """Where the workers run: processes on this machine, or Ray actors and tasks."""

    local = "local"
    ray = "ray"


def target_version_option(value: str | None) -> tuple[int, int] | None:
    """``--target-version 2.21`` -> (2, 21); a usage error (exit 2) for anything else."""
    if value is None:
        return None
    from fixer.config import parse_target_version

    try:
        return parse_target_version(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


TargetVersionOption = typer.Option(
    None,
    "--target-version",
    metavar="X.Y",
    callback=target_version_option,
    help="The TensorFlow the code must work on (default: the version the project pins; see `distfix target`).",
)
