"""Conversions between (line, column) positions and character offsets in a source text."""

from __future__ import annotations

import bisect
import re

from fixer.types import Edit, Position

_NEWLINE = re.compile(r"\r\n|\r|\n")


class TextMap:
    """Line starts of a text, so positions and offsets convert both ways (lines and columns 1-based)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def offset(self, line: int, column: int) -> int:
        """Character offset of a 1-based line and 1-based column."""
        line = max(1, min(line, len(self.line_starts)))
        return min(self.line_starts[line - 1] + column - 1, len(self.text))

    def position(self, offset: int) -> Position:
        """1-based line and column of a character offset."""
        line = bisect.bisect_right(self.line_starts, offset)
        return Position(line, offset - self.line_starts[line - 1] + 1)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its line ending."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def line_end(self, line: int) -> int:
        """Offset just past the line ending of a 1-based line (or the end of the text)."""
        return self.line_starts[line] if line < len(self.line_starts) else len(self.text)

    @property
    def newline(self) -> str:
        """The file's line ending, taken from its first line break (``\\n`` if it has none)."""
        match = _NEWLINE.search(self.text)
        return match.group(0) if match else "\n"


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits (any order) to ``text``."""
    out = []
    cursor = 0
    for edit in sorted(edits):
        out.append(text[cursor : edit.start])
        out.append(edit.content)
        cursor = edit.end
    out.append(text[cursor:])
    return "".join(out)
