"""Notebook cells that ask to be run after a kernel restart: each starts a new program.

The Hands-On ML chapter 19 notebooks (and copies of them) open a cell with "# At the beginning of
the program (restart the kernel before running this cell)": run as written, the kernel is a new
process, so neither the ops nor the `os.environ` of earlier cells reach it. That is the same notion
as a restart call in code (`get_ipython().kernel.do_shutdown(True)`, `os._exit(0)`:
fixer/tf/runtime_start.py), given as an instruction to the reader.

The phrasing set is kept narrow: a comment line of the cell with "restart" and "kernel" or
"runtime" (Colab's word), not negated ("no need to restart", "without restarting"), standing
before any code of the cell except imports (which the restarted program runs again anyway).

A saved notebook shows a restart too: Jupyter numbers a kernel's executions from 1, so a code cell
whose saved execution count is 1 below cells that counted higher, with every later cell's count
above 1, was the first thing a new kernel ran, and the cells from there on ran in that kernel
(a notebook run in two sessions: `import tensorflow` again, then `set_virtual_device_configuration`
at count 3). A notebook saved without counts says nothing (:func:`saved_session_start`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from fixer.tf.model import TFModel

# fixer/notebook.py's cell boundary in the combined module (as fixer/cell_lines.py reads it).
_CELL_MARK = re.compile(r"^# distfix-cell \d+$")
_RESTART = re.compile(r"\brestart", re.IGNORECASE)
_PROCESS = re.compile(r"\b(kernel|runtime)\b", re.IGNORECASE)
_NEGATED = re.compile(r"(\bnot|n't|\bno need to|\bwithout)\s+restart", re.IGNORECASE)


def restart_above(tf: TFModel, node: cst.CSTNode) -> cst.BaseStatement | None:
    """The first statement of the last cell at or above ``node``'s top-level statement that a kernel
    restart began (a restart instruction, or the saved execution counts starting over), in the
    module ``tf`` describes; None when no cell does."""
    return restarted_program_start(
        tf.text,
        tf.module,
        lambda statement: tf.range(statement).start.line,
        top_statement(tf, node),
        tf.target.cell_counts,
    )


def restart_below(tf: TFModel, node: cst.CSTNode) -> cst.BaseStatement | None:
    """The first statement of the first cell below ``node``'s top-level statement that a kernel
    restart began (the program after ``node``'s ends there), in the module ``tf`` describes; None
    when no later cell does."""
    top = top_statement(tf, node)
    body = list(tf.module.body)
    at = next((position for position, statement in enumerate(body) if statement is top), None)
    if at is None:
        return None
    own = restart_above(tf, top)
    # The restart that governs a statement only moves down the module: bisect for the first
    # top-level statement below ``top`` that a later restart governs.
    low, high = at + 1, len(body)
    while low < high:
        middle = (low + high) // 2
        if restart_above(tf, body[middle]) is own:
            low = middle + 1
        else:
            high = middle
    return body[low] if low < len(body) else None


def top_statement(tf: TFModel, node: cst.CSTNode) -> cst.CSTNode:
    """The top-level statement of the module that holds ``node`` (``node`` itself when it is one)."""
    top: cst.CSTNode = node
    for ancestor in tf.index.ancestors(node):
        if isinstance(ancestor, cst.BaseStatement) and tf.index.parent.get(ancestor) is tf.module:
            top = ancestor
    return top


def restarted_program_start(
    text: str,
    module: cst.Module,
    line_of: Callable[[cst.CSTNode], int],
    statement: cst.CSTNode,
    counts: Sequence[tuple[int, int | None]] = (),
) -> cst.BaseStatement | None:
    """The first statement of the last cell at or above ``statement`` (a top-level statement of a
    notebook's combined module) whose opening asks for a kernel restart, or where the saved
    execution ``counts`` ((cell number, count) of each code cell) start over; None when no cell does.

    ``line_of`` gives a node's first line in ``text``.
    """
    session = saved_session_start(counts)
    if session is None and "restart" not in text.lower():
        return None  # the common case: no instruction anywhere, no positions asked for
    instructions = _restart_lines(text) if "restart" in text.lower() else []
    if session is not None:
        marker = f"# distfix-cell {session}\n"
        at = text.find(marker)
        if at == 0 or (at > 0 and text[at - 1] == "\n"):
            first = text.count("\n", 0, at) + 2  # the cell's first line: its code counts as after the restart
            instructions = sorted({*instructions, (first, first)})
    if not instructions:
        return None
    found: cst.BaseStatement | None = None
    body = list(module.body)
    limit = line_of(statement)
    for cell_start, comment_line in instructions:
        if cell_start > limit:
            break
        in_cell = [s for s in body if cell_start <= line_of(s)]
        before = [s for s in in_cell if line_of(s) < comment_line]
        if in_cell and all(_imports_only(s) for s in before):
            found = in_cell[0]
    return found


def saved_session_start(counts: Sequence[tuple[int, int | None]]) -> int | None:
    """The number of the last code cell whose saved execution count is 1 while an earlier code
    cell counted higher and every later code cell that ran counts above 1: where a new kernel
    started. None without counts or without such a cell."""
    found: int | None = None
    highest = 0
    for position, (number, count) in enumerate(counts):
        if count == 1 and highest > 1 and all(c is None or c > 1 for _, c in counts[position + 1 :]):
            found = number
        highest = max(highest, count or 0)
    return found


def _restart_lines(text: str) -> list[tuple[int, int]]:
    """``(first line of the cell, line of its restart comment)`` for each cell that has one."""
    found: list[tuple[int, int]] = []
    cell_start: int | None = None
    for number, content in enumerate(text.splitlines(), start=1):
        if _CELL_MARK.match(content):
            cell_start = number + 1
            continue
        stripped = content.strip()
        if (
            cell_start is not None
            and stripped.startswith("#")
            and _RESTART.search(stripped)
            and _PROCESS.search(stripped)
            and not _NEGATED.search(stripped)
            and (not found or found[-1][0] != cell_start)
        ):
            found.append((cell_start, number))
    return found


def _imports_only(statement: cst.BaseStatement) -> bool:
    """``statement`` is a line of imports: run again by the restarted program, it starts nothing."""
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )
