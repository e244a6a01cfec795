"""Where a notebook finding is in the ``.ipynb`` file itself.

Findings in notebooks carry ``cell N`` and a line and column inside that cell. Formats that point
into the file (``github`` annotations, ``sarif`` regions) need the place in the notebook's JSON
instead: the JSON line that holds the cell's source line, and the column inside that JSON string
(escapes such as ``\\"`` or ``\\u00e9`` counted as written in the file).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # public, but missing from typeshed
from typing import Any

from fixer.types import Finding, Position

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


def _wanted(path: tuple[Any, ...]) -> bool:
    """True for the JSON paths on the way to a cell's source strings: ``cells[i].source[j]``."""
    pattern = ("cells", int, "source", int)
    return len(path) <= len(pattern) and all(
        isinstance(part, want) if isinstance(want, type) else part == want
        for part, want in zip(path, pattern, strict=False)
    )


def _walk(text: str, pos: int, path: tuple[Any, ...], found: dict[int, list[int]]) -> int:
    """Scan the JSON value at ``pos``; record where each source string of each cell opens."""
    pos = _skip(text, pos)
    if not _wanted(path) or text[pos] not in '"{[':
        return _DECODER.raw_decode(text, pos)[1]
    if text[pos] == '"':
        if len(path) >= 3:
            found.setdefault(path[1] + 1, []).append(pos)
        end: int = scanstring(text, pos + 1)[1]
        return end
    closing = "}" if text[pos] == "{" else "]"
    pos = _skip(text, pos + 1)
    index = 0
    while text[pos] != closing:
        if closing == "}":
            key, pos = scanstring(text, _skip(text, pos) + 1)
            pos = _skip(text, pos) + 1  # the colon
            pos = _walk(text, pos, path + (key,), found)
        else:
            pos = _walk(text, pos, path + (index,), found)
            index += 1
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return pos + 1


def _raw_offset(text: str, quote: int, characters: int) -> int:
    """The offset in ``text`` of the ``characters``-th decoded character of the string opening at ``quote``."""
    pos = quote + 1
    for _ in range(characters):
        if text[pos] != "\\":
            pos += 1
        elif text[pos + 1] != "u":
            pos += 2
        elif 0xD800 <= int(text[pos + 2 : pos + 6], 16) < 0xDC00 and text[pos + 6 : pos + 8] == "\\u":
            pos += 12  # a surrogate pair is one character
        else:
            pos += 6
    return pos


class NotebookLocator:
    """Maps ``cell N, line, column`` to a line and column of the notebook file's JSON text."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._strings: dict[int, list[tuple[int, str]]] = {}
        found: dict[int, list[int]] = {}
        try:
            _walk(text, 0, (), found)
        except (ValueError, IndexError):
            return  # not the notebook that was analysed: every finding falls back to line 1
        for cell, quotes in found.items():
            self._strings[cell] = [(quote, scanstring(text, quote + 1)[0]) for quote in quotes]

    def position(self, cell: int, line: int, column: int, end: bool = False) -> Position | None:
        """The file position of a cell position; ``end`` positions stay on the line they close."""
        strings = self._strings.get(cell)
        if not strings:
            return None
        source = "".join(value for _, value in strings)
        start = 0
        for _ in range(line - 1):
            start = source.find("\n", start) + 1
            if start == 0:
                return None
        target = min(start + column - 1, len(source))
        end = end or target == len(source)
        offset = 0
        for quote, value in strings:
            inside = offset < target <= offset + len(value) if end else offset <= target < offset + len(value)
            if inside:
                raw = _raw_offset(self._text, quote, target - offset)
                line_start = self._text.rfind("\n", 0, raw) + 1
                return Position(self._text.count("\n", 0, raw) + 1, raw - line_start + 1)
            offset += len(value)
        return None

    def region(self, finding: Finding) -> tuple[Position, Position]:
        """Start and end of a notebook finding in the file (line 1 when the cell cannot be found)."""
        assert finding.cell is not None
        start = self.position(finding.cell, finding.start.line, finding.start.column)
        end = self.position(finding.cell, finding.end.line, finding.end.column, end=True)
        if start is None:
            return Position(1, 1), Position(1, 1)
        return start, end if end is not None and end >= start else start


def cell_prefix(finding: Finding) -> str:
    """``cell N, line L: `` for a message about a notebook finding, else nothing."""
    return f"cell {finding.cell}, line {finding.start.line}: " if finding.cell is not None else ""
