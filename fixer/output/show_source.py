"""``check --show-source``: each finding followed by its source line and a caret under it
(ruff's ``full`` output), the caret line ending with the finding's severity and rule name."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fixer.codes import severity
from fixer.output.text import finding_line

if TYPE_CHECKING:
    from fixer.types import FileResult, Finding


def _source_lines(result: FileResult) -> dict[int | None, list[str]]:
    """The lines findings point into: the file's, or for a notebook each code cell's by number."""
    text = result.source
    if text is None:  # a result answered from the cache carries no text
        try:
            text = Path(result.path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {}
    if not result.path.endswith(".ipynb"):
        return {None: text.splitlines()}
    from fixer.notebook import NotebookError, load_notebook

    try:
        notebook = load_notebook(text)
    except NotebookError:
        return {}
    return {cell.number: cell.original.splitlines() for cell in notebook.cells}


def _excerpt(finding: Finding, lines: list[str]) -> list[str]:
    """The finding's first line with a caret under the span (to the line's end when it goes on)."""
    if not 1 <= finding.start.line <= len(lines):
        return []
    text = lines[finding.start.line - 1].expandtabs(1)  # one column per character, as the finding counts
    start = finding.start.column - 1
    end = finding.end.column - 1 if finding.end.line == finding.start.line else len(text)
    width = max(1, min(end, len(text)) - start)
    number = str(finding.start.line)
    gutter = " " * len(number)
    return [
        f"{gutter} |",
        f"{number} | {text}",
        f"{gutter} | {' ' * start}{'^' * width} {severity(finding.code)}: {finding.name}",
        f"{gutter} |",
    ]


def render(results: list[FileResult]) -> list[str]:
    """The report's lines: for each finding, its line and then the source excerpt."""
    out: list[str] = []
    for result in results:
        if not result.findings:
            continue
        sources = _source_lines(result)
        for finding in result.findings:
            out.append(finding_line(finding))
            out.extend(_excerpt(finding, sources.get(finding.cell, [])))
            out.append("")
    return out[:-1] if out else out
