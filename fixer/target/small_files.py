"""Reading the small text files the project-target model consults (pin files, job manifests,
install guides, platform metadata): a file larger than ``MAX_BYTES`` is not one of those, and is
not read, so a stray data file of that name costs nothing."""

from __future__ import annotations

import os
from pathlib import Path

MAX_BYTES = 512 * 1024


def read_small_text(path: str | os.PathLike[str]) -> str | None:
    """The text of ``path`` (undecodable bytes replaced), or None when it is larger than
    ``MAX_BYTES``, missing or unreadable (a folder included)."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
