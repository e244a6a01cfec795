"""Text helpers for fixes that move statements: one re-indent for every rule.

A fix that takes statements out of a block (an ``if`` guard) or puts them in one (a ``with
strategy.scope():``) rewrites their indentation. Lines that continue a multi-line string are data,
not indentation, and must come out as they went in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable

    from fixer.context import RuleContext


def string_continuation_lines(ctx: RuleContext, nodes: Iterable[cst.CSTNode]) -> set[int]:
    """Line numbers (1-based) inside ``nodes`` that continue a multi-line string."""
    lines: set[int] = set()

    class _Strings(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            self._add(node)

        def visit_FormattedString(self, node: cst.FormattedString) -> bool:
            self._add(node)
            return False  # its parts are inside the same lines

        def _add(self, node: cst.CSTNode) -> None:
            code_range = ctx.range(node)
            lines.update(range(code_range.start.line + 1, code_range.end.line + 1))

    for node in nodes:
        node.visit(_Strings())
    return lines


def reindent(text: str, old: str, new: str, *, first_line: int = 1, keep: Collection[int] = ()) -> str:
    """Whole lines ``text`` moved from indentation ``old`` to ``new``, line endings kept.

    ``text`` starts on line ``first_line``; lines numbered in ``keep`` (see
    :func:`string_continuation_lines`) stay as they are. A line indented otherwise than ``old``
    (a continuation inside brackets, tabs where ``old`` has spaces) loses its indentation and takes
    ``new``; a blank line stays empty rather than gaining trailing white space.
    """
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), start=first_line):
        if number in keep:
            out.append(line)
            continue
        stripped = line[len(old) :] if line.startswith(old) else line.lstrip(" \t")
        out.append(new + stripped if stripped.strip() else stripped)
    return "".join(out)


def reindented_statements(ctx: RuleContext, statements: list[cst.BaseStatement], indent: str) -> str:
    """The whole lines of consecutive ``statements`` (with the comments just above them) moved to
    ``indent``, ending with a line break."""
    start, end = ctx.statement_block(statements)
    text = reindent(
        ctx.text[start:end],
        ctx.indentation(statements[0]),
        indent,
        first_line=ctx.textmap.position(start).line,
        keep=string_continuation_lines(ctx, statements),
    )
    return text if text.endswith(("\n", "\r")) else text + ctx.newline


def reindented_lines(ctx: RuleContext, statement: cst.BaseStatement, indent: str) -> str:
    """The lines of ``statement`` alone (not the comments above it) moved to ``indent``, ending
    with a line break."""
    code_range = ctx.range(statement)
    start = ctx.textmap.line_starts[code_range.start.line - 1]
    end = ctx.textmap.line_end(code_range.end.line)
    text = ctx.text[start:end].rstrip("\r\n")
    keep = string_continuation_lines(ctx, [statement])
    return reindent(text, ctx.indentation(statement), indent, first_line=code_range.start.line, keep=keep) + ctx.newline
