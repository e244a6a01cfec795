"""Notebook cells that ask to be run after a kernel restart: each starts a new program.

The Hands-On ML chapter 19 notebooks (and copies of them) open a cell with "# At the beginning of
the program (restart the kernel before running this cell)": run as written, the kernel is a new
process, so neither the ops nor the `os.environ` of earlier cells reach it. That is the same notion
as a restart call in code (`get_ipython().kernel.do_shutdown(True)`, `os._exit(0)`:
fixer/tf/runtime_start.py), given as an instruction to the reader.

The phrasing set is kept narrow: a comment line of the cell with "restart" and "kernel" or
"runtime" (Colab's word), not negated ("no need to restart", "without restarting"), standing
before any code of the cell except imports (which the restarted program runs again anyway).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from collections.abc import Callable

# fixer/notebook.py's cell boundary in the combined module (as fixer/cell_lines.py reads it).
_CELL_MARK = re.compile(r"^# distfix-cell \d+$")
_RESTART = re.compile(r"\brestart", re.IGNORECASE)
_PROCESS = re.compile(r"\b(kernel|runtime)\b", re.IGNORECASE)
_NEGATED = re.compile(r"(\bnot|n't|\bno need to|\bwithout)\s+restart", re.IGNORECASE)


def restarted_program_start(
    text: str, module: cst.Module, line_of: Callable[[cst.CSTNode], int], statement: cst.CSTNode
) -> cst.BaseStatement | None:
    """The first statement of the last cell at or above ``statement`` (a top-level statement of a
    notebook's combined module) whose opening asks for a kernel restart; None when no cell does.

    ``line_of`` gives a node's first line in ``text``.
    """
    if "restart" not in text.lower():
        return None  # the common case: no instruction anywhere, no positions asked for
    instructions = _restart_lines(text)
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
