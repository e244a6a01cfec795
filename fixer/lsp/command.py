"""``distfix lsp``: start the language server (stdio by default, or TCP)."""

from __future__ import annotations

import typer

from fixer.cli_choices import TargetVersionOption


def register(app: typer.Typer) -> None:
    """Add the ``lsp`` command to the CLI."""

    @app.command("lsp")
    def lsp_command(
        tcp: str | None = typer.Option(None, "--tcp", help="Listen on HOST:PORT instead of stdio."),
        target_version: str | None = TargetVersionOption,
    ) -> None:
        """Run the distfix Language Server: diagnostics, quick fixes, fix-all and hover in any LSP editor."""
        from fixer import node_hash, node_types
        from fixer.lsp.server import server  # pygls is imported only for this command

        node_hash.install()  # a long-running process that hashes every node of every edit
        node_types.install()  # and asks isinstance of them about 100,000 times per edit
        server.target_version = target_version  # type: ignore[assignment]  # converted by the option's callback

        if tcp is None:
            server.start_io()
            return
        host, _, port = tcp.rpartition(":")
        if not port.isdigit():
            typer.echo("distfix: error: --tcp needs HOST:PORT", err=True)
            raise typer.Exit(2)
        server.start_tcp(host or "127.0.0.1", int(port))
