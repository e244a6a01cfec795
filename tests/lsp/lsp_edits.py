"""Helpers of the LSP tests: starting a session with `distfix lsp`, opening a document, asking for code actions, and
applying the TextEdits a language server returns as an editor would (UTF-16 positions)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

# The server every LSP test talks to: `python -m fixer lsp` of this checkout, over stdio.
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "fixer", "lsp"])


async def start_session(
    client: LanguageClient, root: Path, capabilities: types.ClientCapabilities | None = None
) -> types.InitializeResult:
    """Initialize a session rooted at ``root`` as VS Code would (or with ``capabilities``); the
    server's dynamic registrations (its pyproject.toml watcher) are kept in ``client.registrations``."""
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or pytest_lsp.client_capabilities("visual-studio-code"), root_uri=root.as_uri()
        )
    )
    client.root = root
    return result


async def open_document(client: LanguageClient, name: str, text: str) -> tuple[str, list[types.Diagnostic]]:
    """Open ``name`` (below the client's workspace root) with ``text``; its URI and first diagnostics."""
    uri = (client.root / name).as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri, params.diagnostics


async def published(client: LanguageClient, uris: list[str], timeout: float = 120) -> dict[str, list[types.Diagnostic]]:
    """Wait until diagnostics arrived for every URI (published since the last call), and return them.

    It reads what the client recorded rather than waiting for the next notification: a notification
    that arrives while nobody waits is never lost."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not all(uri in client.diagnostics for uri in uris):
        assert loop.time() < deadline, f"no diagnostics for {[u for u in uris if u not in client.diagnostics]}"
        await asyncio.sleep(0.01)
    got = {uri: list(client.diagnostics[uri]) for uri in uris}
    client.diagnostics.clear()
    return got


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits to a text, last first, so earlier positions stay valid."""
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(text, edit.range.start)] + edit.new_text + text[offset(text, edit.range.end):]
    return text


def offset(text: str, position: types.Position) -> int:
    """The character offset of an LSP position (line, UTF-16 code units) in ``text``."""
    lines = text.splitlines(keepends=True)
    before = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units, index = 0, 0
    while units < position.character and index < len(line):
        units += len(line[index].encode("utf-16-le")) // 2
        index += 1
    return before + index


async def code_actions(client: LanguageClient, uri: str, diag: types.Diagnostic | None, only: list[str] | None = None):
    """The code actions offered for ``diag`` (or, with None, for the start of the file and no diagnostic)."""
    where = diag.range if diag else types.Range(types.Position(0, 0), types.Position(0, 0))
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[diag] if diag else [], only=only),
        )
    )
