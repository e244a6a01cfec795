"""``distfix dev``: developer commands (``generate``, ``new-rule``)."""

from __future__ import annotations

import typer

EXIT_CLEAN, EXIT_STALE, EXIT_ERROR = 0, 1, 2

dev = typer.Typer(help="Developer commands: regenerate derived files, scaffold a rule.", no_args_is_help=True)


@dev.command()
def generate(check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 when a file is stale.")) -> None:
    """Regenerate the code table (fixer/codes.py), the README rule table and docs/rules.md."""
    from fixer.dev.generate import ROOT, GenerateError, stale_files, write_files

    try:
        changed = stale_files() if check else write_files()
    except GenerateError as exc:
        typer.echo(f"distfix: error: {exc}", err=True)
        raise typer.Exit(EXIT_ERROR) from None
    for path in changed:
        typer.echo(f"{'stale' if check else 'wrote'}: {path.relative_to(ROOT)}")
    if check and changed:
        typer.echo("run `make generate` (distfix dev generate) and commit the result", err=True)
        raise typer.Exit(EXIT_STALE)


@dev.command("new-rule")
def new_rule(
    family: str = typer.Argument(..., help="The family (package of codemods/), e.g. placement."),
    name: str = typer.Argument(..., help="The rule's name, lowercase words joined by '-'."),
) -> None:
    """Scaffold a rule: its module, its examples module and a corpus case; then regenerate."""
    from fixer.dev.generate import ROOT, write_files
    from fixer.dev.scaffold import ScaffoldError, plan, write

    try:
        rule = plan(family, name)
        written = write(rule)
    except ScaffoldError as exc:
        typer.echo(f"distfix: error: {exc}", err=True)
        raise typer.Exit(EXIT_ERROR) from None
    for path in written:
        typer.echo(f"wrote: {path.relative_to(ROOT)}")
    # The registry of this process was not asked yet: it discovers the new module.
    for path in write_files():
        typer.echo(f"wrote: {path.relative_to(ROOT)}")
    typer.echo(f"{rule.code} {rule.name}: edit its check, documentation and examples, then `make generate`")


def register(app: typer.Typer) -> None:
    """Add ``distfix dev`` to the main command line."""
    app.add_typer(dev, name="dev")
