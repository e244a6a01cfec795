"""Reading the small text files the project-target model consults (pin files, job manifests,
install guides, platform metadata): a file larger than ``MAX_BYTES`` is not one of those, and is
not read, so a stray data file of that name costs nothing. Each file read is remembered by its
:data:`Stamp`, so a cached decision is made again when one changes."""

from __future__ import annotations

import os
from pathlib import Path

MAX_BYTES = 512 * 1024

Stamp = tuple[int, int] | None  # size and modification time (ns); None when absent (as fixer.cache)


def stat_stamp(path: str) -> Stamp:
    """The :data:`Stamp` of ``path`` now (None when it cannot be stat'ed)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def read_small_text(path: str | os.PathLike[str]) -> str | None:
    """The text of ``path`` (undecodable bytes replaced), or None when it is larger than
    ``MAX_BYTES``, missing or unreadable (a folder included)."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
