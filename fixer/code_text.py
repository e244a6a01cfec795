"""A file's text with its comments and docstrings blanked, for the pre-filter's third stage.

The text pre-filter (fixer/prefilter.py) matches rule triggers and evidence anywhere, comments
and docstrings included: ``tf.distribute.Strategy`` in a layer's docstring or ``# run under
MirroredStrategy`` in a comment is enough to send a file to libcst. No rule reports on a comment
or a docstring, so a trigger or an evidence found only there cannot make a rule fire. Once
CPython's tree of the file exists (the engine builds it first anyway), this module blanks those
parts, keeping every other character where it was, and the same triggers and evidence are asked
again of the result (:func:`fixer.engine.selected_rules`).

Blanking is conservative: a ``#`` is taken for a comment only when no string literal of the tree
covers it, and a string literal is kept whole, even an implicitly concatenated one whose parts
are separated by comments. What is blanked becomes spaces (newlines stay), so positions and the
spacing patterns of the evidence are unchanged.
"""

from __future__ import annotations

import ast
import re

# The line ends CPython's tokenizer counts (ast line numbers are in these lines).
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

Span = tuple[int, int, int, int]  # first line, first column, last line, end column (0-based lines)


def code_text(text: str, tree: ast.Module) -> str:
    """``text`` with comments and docstrings replaced by spaces; ``tree`` is CPython's tree of it."""
    lines = _LINES.findall(text)
    strings, docstrings = _string_spans(tree, lines)
    for span in docstrings:
        _blank(lines, span)
    covered = _covered_by_line(strings)
    for number, line in enumerate(lines):
        start = line.find("#")
        while start != -1 and _inside(covered.get(number, ()), start):
            start = line.find("#", start + 1)
        if start != -1:
            body = line.rstrip("\r\n")
            lines[number] = line[:start] + " " * (len(body) - start) + line[len(body) :]
    return "".join(lines)


def _docstring(node: ast.AST) -> ast.Constant | None:
    """The docstring expression of a module, class or function, when it has one."""
    if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) or not node.body:
        return None
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.value
    return None


def _string_spans(tree: ast.Module, lines: list[str]) -> tuple[list[Span], list[Span]]:
    """The spans of every string literal (f-strings whole), and of the docstrings among them."""
    strings: list[Span] = []
    docstrings: list[Span] = []
    for node in ast.walk(tree):
        doc = _docstring(node)
        if doc is not None:
            docstrings.append(_span(doc, lines))
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))):
            strings.append(_span(node, lines))
    return strings, docstrings


def _span(node: ast.expr, lines: list[str]) -> Span:
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    end = node.end_col_offset if node.end_col_offset is not None else len(lines[last])
    return first, _column(lines[first], node.col_offset), last, _column(lines[last], end)


def _column(line: str, offset: int) -> int:
    """The character column of a UTF-8 byte offset into ``line`` (ast counts bytes)."""
    if line.isascii():
        return offset
    return len(line.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))


def _blank(lines: list[str], span: Span) -> None:
    first, start, last, end = span
    for number in range(first, last + 1):
        line = lines[number]
        body = len(line.rstrip("\r\n"))
        left = start if number == first else 0
        right = min(end, body) if number == last else body
        lines[number] = line[:left] + " " * (right - left) + line[right:]


def _covered_by_line(spans: list[Span]) -> dict[int, list[tuple[int, int]]]:
    """Per line, the column ranges string literals cover (a middle line of a literal: all of it)."""
    covered: dict[int, list[tuple[int, int]]] = {}
    for first, start, last, end in spans:
        for number in range(first, last + 1):
            left = start if number == first else 0
            right = end if number == last else 1 << 30
            covered.setdefault(number, []).append((left, right))
    return covered


def _inside(ranges: list[tuple[int, int]] | tuple[()], column: int) -> bool:
    return any(left <= column < right for left, right in ranges)
