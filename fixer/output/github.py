"""GitHub Actions workflow commands: one annotation per finding, ``::error``, ``::warning`` or
``::notice`` by the rule's severity.

A notebook finding points at the line of the ``.ipynb`` file's JSON that holds the cell's source
line (that is the line GitHub shows), and its message starts with ``cell N, line L:``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.codes import ERROR, INFO, WARNING, severity
from fixer.output.ipynb_location import NotebookLocator, cell_prefix

if TYPE_CHECKING:
    from fixer.types import FileResult


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


_COMMANDS = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def render(results: list[FileResult]) -> str:
    """``::error file=...,line=...,col=...,title=TFDnnn::message`` lines (``::warning``, ``::notice``)."""
    lines = []
    for result in results:
        locator = NotebookLocator(result.source or "") if result.path.endswith(".ipynb") else None
        for f in result.findings:
            start, end = locator.region(f) if locator is not None and f.cell is not None else (f.start, f.end)
            properties = ",".join(
                [
                    f"file={_escape_property(f.path)}",
                    f"line={start.line}",
                    f"col={start.column}",
                    f"endLine={end.line}",
                    f"endColumn={end.column}",
                    f"title={_escape_property(f.code + ' ' + f.name)}",
                ]
            )
            lines.append(f"::{_COMMANDS[severity(f.code)]} {properties}::{_escape_data(cell_prefix(f) + f.message)}")
    return "\n".join(lines)
