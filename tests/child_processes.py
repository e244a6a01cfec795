"""What the tests that drive child processes share: waiting for an event, and starting a child that
can be interrupted.

Waiting polls a condition until it holds. The bound is never the synchronisation (a loaded machine
may take most of it); it only turns a hang into a failure that says what never happened.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable

POLL_INTERVAL = 0.05  # seconds between two looks at the condition; not a synchronisation


def wait_until(condition: Callable[[], object], what: str, bound: float = 240.0,
               until_exit: subprocess.Popen | None = None) -> bool:
    """Return True once ``condition()`` holds, or False if ``until_exit`` ended first.

    Fails the test with ``what`` when neither happened within ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while not condition():
        if until_exit is not None and until_exit.poll() is not None:
            return False
        assert time.monotonic() < deadline, f"waited {bound:.0f} s for {what}"
        time.sleep(POLL_INTERVAL)
    return True


def restore_default_sigint() -> None:
    """``preexec_fn`` for a child the test interrupts with SIGINT.

    A suite started in the background (``nohup``, ``make test &``) inherits SIGINT ignored, and so
    would the child: it would never see the Ctrl-C the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
