"""Unified diffs of fixed files (``--- a/path`` / ``+++ b/path``), optionally coloured."""

from __future__ import annotations

import difflib


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff between two texts of ``path``; every line ends with a newline."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path.lstrip('/')}",
        tofile=f"b/{path.lstrip('/')}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_RESET = "\x1b[0m"


def colourise(diff: str) -> str:
    """ANSI colours for a terminal: additions green, removals red, hunk headers cyan."""
    out = []
    for line in diff.splitlines(keepends=True):
        colour = _COLOURS.get(line[:1])
        if line.startswith(("+++", "---")):
            colour = "\x1b[1m"
        out.append(f"{colour}{line.rstrip(chr(10))}{_RESET}\n" if colour else line)
    return "".join(out)
