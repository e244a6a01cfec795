"""Backslash continuation lines joined, as a shell, a Dockerfile or a notebook's `!` line reads
them: one logical line from each run of lines ending in `\\`, numbered by the line it starts on."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable


def joined_lines(lines: Iterable[tuple[int, str]], *, strip: bool = False) -> list[tuple[int, str]]:
    """(number, text) pairs with continuations joined by a space. Each piece loses its trailing
    whitespace and backslash; ``strip`` also trims the whitespace around each piece (a README's
    code, where indentation and the space before `\\` are layout). A last line that still ends in
    `\\` closes the run."""
    joined: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, line in lines:
        if not pending:
            start = number
        stripped = line.rstrip()
        piece = stripped.removesuffix("\\")
        pending.append(piece.strip() if strip else piece)
        if not stripped.endswith("\\"):
            joined.append((start, " ".join(pending)))
            pending = []
    if pending:
        joined.append((start, " ".join(pending)))
    return joined


def logical_lines(text: str) -> list[tuple[int, str]]:
    """The logical lines of ``text`` (a Dockerfile, a notebook cell), numbered from 1."""
    return joined_lines(enumerate(text.splitlines(), 1))
