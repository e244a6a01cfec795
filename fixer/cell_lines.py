"""A line of a notebook's combined module, named as the reader sees it: ``cell C, line L``.

Findings are mapped back to cells by fixer/notebook.py, but a message that names another line
("TensorFlow already runs at line N") is written from the combined module, whose line numbers
the notebook's reader never sees.
"""

from __future__ import annotations

import re

# fixer/notebook.py's cell boundary: the mark line, then one blank line, then the cell's source.
_CELL_MARK = re.compile(r"^# distfix-cell (\d+)$")
_LINES_AFTER_MARK = 2


def has_cell_mark(text: str) -> bool:
    """True when ``text`` (a slice of a combined module) holds a cell boundary."""
    return any(_CELL_MARK.match(content) for content in text.splitlines())


def cell_of(text: str, line: int) -> int | None:
    """The notebook cell holding ``line`` of a combined module ``text``; None for a file."""
    cell = None
    for content in text.splitlines()[: max(line - 1, 0)]:
        match = _CELL_MARK.match(content)
        if match is not None:
            cell = int(match.group(1))
    return cell


def line_label(text: str, line: int) -> str:
    """``"line L"`` for a file, ``"cell C, line L"`` when ``text`` is a notebook's combined module."""
    cell, start = None, 1
    for number, content in enumerate(text.splitlines()[: max(line - 1, 0)], start=1):
        match = _CELL_MARK.match(content)
        if match is not None:
            cell, start = int(match.group(1)), number + _LINES_AFTER_MARK
    if cell is None:
        return f"line {line}"
    return f"cell {cell}, line {line - start + 1}"
