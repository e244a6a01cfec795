"""Helpers of the LSP tests: opening a document, asking for code actions, and applying the TextEdits a language server
returns as an editor would (UTF-16 positions)."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient


async def open_document(client: LanguageClient, name: str, text: str) -> tuple[str, list[types.Diagnostic]]:
    """Open ``name`` (below the client's workspace root) with ``text``; its URI and first diagnostics."""
    uri = (client.root / name).as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri, params.diagnostics


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
