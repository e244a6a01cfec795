"""GitHub Actions workflow commands: one ``::error`` annotation per finding."""

from __future__ import annotations

from fixer.types import FileResult


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render(results: list[FileResult]) -> str:
    """``::error file=...,line=...,col=...,title=TFDnnn::message`` lines."""
    lines = []
    for result in results:
        for f in result.findings:
            properties = ",".join(
                [
                    f"file={_escape_property(f.path)}",
                    f"line={f.start.line}",
                    f"col={f.start.column}",
                    f"endLine={f.end.line}",
                    f"endColumn={f.end.column}",
                    f"title={_escape_property(f.code + ' ' + f.name)}",
                ]
            )
            cell = f"cell {f.cell}: " if f.cell is not None else ""
            lines.append(f"::error {properties}::{_escape_data(cell + f.message)}")
    return "\n".join(lines)
