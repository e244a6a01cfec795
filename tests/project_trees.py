"""Small project trees written for a test: the files given, under a folder marked as a repository root."""

from __future__ import annotations

from pathlib import Path


def tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``, which gets a `.git` folder: the target
    finder stops at a repository's root, so nothing above ``root`` (the test machine's folders) is read."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root
