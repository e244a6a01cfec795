"""The TensorFlow version a project pins, read from its dependency files (no import, no network)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

DEPENDENCY_FILES = ("requirements.txt", "requirements-dev.txt", "pyproject.toml", "setup.py", "setup.cfg", "environment.yml", "environment.yaml")
_PIN = re.compile(
    r"""(?ix)\b tensorflow(?:[-_](?:cpu|gpu|macos))? \s* (?:\[[^\]]*\])? \s*
    (?P<op>==|<=|<|~=|===) \s* (?P<version>\d+(?:\.\d+)*)"""
)


def _versions_in(text: str) -> list[tuple[str, tuple[int, ...]]]:
    return [(m.group("op"), tuple(int(p) for p in m.group("version").split("."))) for m in _PIN.finditer(text)]


@lru_cache(maxsize=256)
def pinned_below(folder: Path, version: tuple[int, int]) -> bool:
    """True when the nearest project around ``folder`` pins TensorFlow to a version below ``version``.

    ``==2.15.1``, ``<2.16``, ``<=2.15``, ``~=2.15.0`` all count; a lower bound alone does not.
    """
    for candidate in [folder, *folder.parents]:
        files = [candidate / name for name in DEPENDENCY_FILES] + sorted(candidate.glob("requirements*.txt"))
        found = False
        for path in files:
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            pins = _versions_in(text)
            if not pins:
                continue
            found = True
            for op, pinned in pins:
                if op in ("==", "===", "~=", "<=") and pinned[:2] < version:
                    return True
                if op == "<" and pinned[:2] <= version and pinned[:2] != (version[0], 0):
                    return True
        if found or (candidate / ".git").exists():
            return False  # the project root: stop looking further up
    return False
