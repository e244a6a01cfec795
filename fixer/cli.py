"""The ``distfix`` command line: translation between arguments and the engine, nothing more."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="distfix",
    help="Find and fix the known mistakes in TensorFlow distributed-training scripts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main() -> None:
    """Console-script entry point."""
    app()
