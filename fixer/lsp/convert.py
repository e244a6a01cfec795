"""Conversions between engine findings (1-based characters) and LSP ranges (0-based UTF-16)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from lsprotocol import types

from fixer.codes import ERROR, INFO, WARNING, severity
from fixer.explain import docs_url
from fixer.types import Applicability, Finding

if TYPE_CHECKING:
    from fixer.textmap import TextMap

SOURCE = "distfix"


def utf16_column(line_text: str, column: int) -> int:
    """LSP character offset (UTF-16 code units) of a 1-based character column."""
    return len(line_text[: column - 1].encode("utf-16-le")) // 2


def character_column(line_text: str, utf16: int) -> int:
    """1-based character column of an LSP UTF-16 offset."""
    units = 0
    for index, char in enumerate(line_text):
        if units >= utf16:
            return index + 1
        units += len(char.encode("utf-16-le")) // 2
    return len(line_text) + 1


def lsp_position(textmap: TextMap, line: int, column: int) -> types.Position:
    """An LSP position for a 1-based line and character column."""
    line = max(1, min(line, len(textmap.line_starts)))
    return types.Position(line=line - 1, character=utf16_column(textmap.line_text(line), column))


def lsp_range_of_offsets(textmap: TextMap, start: int, end: int) -> types.Range:
    """An LSP range for character offsets."""
    a, b = textmap.position(start), textmap.position(end)
    return types.Range(lsp_position(textmap, a.line, a.column), lsp_position(textmap, b.line, b.column))


_SEVERITIES = {
    ERROR: types.DiagnosticSeverity.Error,
    WARNING: types.DiagnosticSeverity.Warning,
    INFO: types.DiagnosticSeverity.Information,
}


def diagnostic(finding: Finding, textmap: TextMap) -> types.Diagnostic:
    """A diagnostic carrying its fix in ``data``, so code actions need no second analysis."""
    data = None
    if finding.fix is not None and finding.fix.applicability is not Applicability.DISPLAY_ONLY and finding.fix.edits:
        data = {
            "title": finding.fix.title,
            "applicability": finding.fix.applicability.label,
            "edits": [
                {"range": range_json(lsp_range_of_offsets(textmap, e.start, e.end)), "newText": e.content}
                for e in finding.fix.edits
            ],
        }
    return types.Diagnostic(
        range=types.Range(
            lsp_position(textmap, finding.start.line, finding.start.column),
            lsp_position(textmap, finding.end.line, finding.end.column),
        ),
        message=f"{finding.message} ({finding.name})",
        severity=_SEVERITIES[severity(finding.code)],
        code=finding.code,
        code_description=_code_description(finding),
        source=SOURCE,
        data=data,
    )


def _code_description(finding: Finding) -> types.CodeDescription | None:
    """The link to the rule's documentation, once distfix has a public home to link to."""
    url = docs_url(finding.code, finding.name)
    return types.CodeDescription(href=url) if url else None


def range_json(value: types.Range) -> dict[str, dict[str, int]]:
    """A range as stored in ``Diagnostic.data`` (LSP's JSON spelling)."""
    return {
        "start": {"line": value.start.line, "character": value.start.character},
        "end": {"line": value.end.line, "character": value.end.character},
    }


def range_from_json(data: dict[str, Any]) -> types.Range:
    """The inverse of the ranges stored in ``Diagnostic.data``."""
    return types.Range(
        types.Position(data["start"]["line"], data["start"]["character"]),
        types.Position(data["end"]["line"], data["end"]["character"]),
    )


def uri_path(uri: str) -> Path:
    """The file path of a ``file:`` URI; other URIs (``untitled:``) are used as they are."""
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else Path(uri)
