"""A file's text with its comments and docstrings blanked, for the pre-filter's third stage.

The text pre-filter (fixer/prefilter.py) matches rule triggers and evidence anywhere, comments
and docstrings included: ``tf.distribute.Strategy`` in a layer's docstring or ``# run under
MirroredStrategy`` in a comment is enough to send a file to libcst. No rule reports on a comment
or a docstring, so a trigger or an evidence found only there cannot make a rule fire. Once
CPython's tree of the file exists (the engine builds it first anyway), this module blanks those
parts, keeping every other character where it was, and the same triggers and evidence are asked
again of the result (:func:`fixer.engine.rules_in_code`).

Comments are found by one scan that reads string literals and comments from left to right (a
``#`` inside a literal is not a comment; a quote inside a comment opens no literal): on text
CPython parsed, that is how its tokenizer reads them. Docstrings are the first statements of the
tree's modules, classes and functions, which the engine's one walk of the tree collects
(fixer/ast_facts.py). What is blanked becomes spaces (line ends stay), so
positions and the spacing patterns of the evidence are unchanged.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ast
    from collections.abc import Sequence

# The line ends CPython's tokenizer counts (ast line numbers are in these lines).
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

# A string literal (triple-quoted first; a backslash escapes any character, the line end of a
# continued line included) or a comment. Prefixes (r, b, f...) need no match: the quote opens it.
_LITERAL_OR_COMMENT = re.compile(
    r'"""(?:\\[\s\S]|[^\\])*?"""'
    r"|'''(?:\\[\s\S]|[^\\])*?'''"
    r'|"(?:\\[\s\S]|[^"\\\r\n])*"'
    r"|'(?:\\[\s\S]|[^'\\\r\n])*'"
    r"|(?P<comment>#[^\r\n]*)"
)


def code_text(text: str, docstrings: Sequence[ast.Constant]) -> str:
    """``text`` with comments and docstrings replaced by spaces; ``docstrings`` are those of
    CPython's tree of it (:attr:`fixer.ast_facts.ModuleFacts.docstrings`)."""
    blanks = [match.span() for match in _LITERAL_OR_COMMENT.finditer(text) if match.lastgroup == "comment"]
    if docstrings:
        starts = _line_starts(text)
        blanks.extend(_offsets(node, starts, text) for node in docstrings)
    if not blanks:
        return text
    parts: list[str] = []
    cursor = 0
    for start, end in sorted(blanks):
        start = max(start, cursor)
        if start >= end:
            continue
        parts.append(text[cursor:start])
        parts.append(re.sub(r"[^\r\n]", " ", text[start:end]))
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for match in _LINES.finditer(text):
        starts.append(match.end())
    return starts


def _offsets(node: ast.expr, starts: list[int], text: str) -> tuple[int, int]:
    """Character offsets of a node (ast gives lines and UTF-8 byte columns)."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    end_column = node.end_col_offset if node.end_col_offset is not None else 0
    start = starts[first] + _column(text[starts[first] : starts[first + 1]], node.col_offset)
    end = starts[last] + _column(text[starts[last] : starts[last + 1]], end_column)
    return start, end


def _column(line: str, offset: int) -> int:
    """The character column of a UTF-8 byte offset into ``line``."""
    if line.isascii():
        return offset
    return len(line.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))
