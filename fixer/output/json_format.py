"""Machine-readable findings: one JSON array, positions 1-based."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fixer.textmap import TextMap

if TYPE_CHECKING:
    from fixer.types import FileResult, Finding


def finding_dict(finding: Finding, textmap: TextMap | None) -> dict[str, object]:
    """The JSON object of one finding (the schema documented in docs/commands/check.md)."""
    fix = None
    if finding.fix is not None and textmap is not None:
        fix = {
            "title": finding.fix.title,
            "applicability": finding.fix.applicability.label,
            "edits": [
                {
                    "start": _position(textmap, edit.start),
                    "end": _position(textmap, edit.end),
                    "content": edit.content,
                }
                for edit in finding.fix.edits
            ],
        }
    return {
        "path": finding.path,
        "cell": finding.cell,
        "line": finding.start.line,
        "column": finding.start.column,
        "end_line": finding.end.line,
        "end_column": finding.end.column,
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "applicability": finding.applicability.label if finding.applicability else None,
        "fix": fix,
    }


def _position(textmap: TextMap, offset: int) -> dict[str, int]:
    position = textmap.position(offset)
    return {"line": position.line, "column": position.column}


def render(results: list[FileResult]) -> str:
    """All findings of all files as one JSON array."""
    items: list[dict[str, Any]] = []
    for result in results:
        # Only fixes need positions of their edits: a file without one spares the line map.
        fixed = result.source is not None and any(f.fix is not None for f in result.findings)
        textmap = TextMap(result.source) if fixed else None  # type: ignore[arg-type]
        items.extend(finding_dict(f, textmap) for f in result.findings)
    return json.dumps(items, indent=2)
