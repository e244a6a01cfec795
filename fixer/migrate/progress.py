"""The progress display of ``distfix migrate`` on stderr: files done, findings, errors and ETA.

On a terminal a bar is redrawn in place; elsewhere (a log, a CI job) plain lines are written, a
few seconds apart, so that the log stays short. The first and the last state are always shown.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from collections.abc import Callable

_BAR = 28


def progress_line(done: int, total: int, findings: int, errors: int, eta: float | None) -> str:
    """``[####......] 12/40 files · 3 findings · 0 errors · ETA 4s`` (``ETA ?`` before any file ends)."""
    filled = _BAR * done // max(total, 1)
    remaining = "?" if eta is None else f"{eta:.0f}s"
    bar = f"[{'#' * filled}{'.' * (_BAR - filled)}]"
    return f"{bar} {done}/{total} files · {findings} findings · {errors} errors · ETA {remaining}"


class ProgressPrinter:
    """A callable for :func:`fixer.migrate.run.migrate`'s ``progress`` argument."""

    def __init__(self, terminal: bool, clock: Callable[[], float] = time.monotonic) -> None:
        self.terminal = terminal
        self.interval = 0.1 if terminal else 5.0
        self.clock = clock
        self.last_shown: float | None = None

    def __call__(self, done: int, total: int, findings: int, errors: int, eta: float | None) -> None:
        if total == 0:
            return
        now = self.clock()
        final = done == total
        if not final and self.last_shown is not None and now - self.last_shown < self.interval:
            return
        self.last_shown = now
        line = progress_line(done, total, findings, errors, eta)
        if self.terminal:
            typer.echo(f"\r{line}", err=True, nl=final)
        else:
            typer.echo(line, err=True)
