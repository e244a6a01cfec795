"""The baseline of a gradual adoption: findings recorded once, then hidden in later runs.

A finding's key is its path relative to the root of its command-line PATH (the git repository,
else the folder), its code, its message and the text of its line: it survives the repository
being moved or cloned elsewhere, and unrelated edits that shift lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from fixer.textmap import TextMap

if TYPE_CHECKING:
    from fixer.types import FileResult, Finding


def baseline_key(finding: Finding, relative_path: str, line_text: str) -> str:
    """A finding's identity that survives moving the repository and unrelated edits."""
    return f"{relative_path}::{finding.code}::{finding.message}::{line_text.strip()}"


def read_baseline(path: Path) -> set[str] | None:
    """The recorded keys, or None when the file does not exist yet; ValueError if unreadable."""
    if not path.exists():
        if not path.parent.is_dir():
            raise ValueError(f"--baseline {path}: folder {path.parent} does not exist")
        return None
    try:
        findings = json.loads(path.read_text(encoding="utf-8"))["findings"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"--baseline {path}: not a distfix baseline ({exc})") from None
    if not isinstance(findings, list) or not all(isinstance(key, str) for key in findings):
        raise ValueError(f"--baseline {path}: not a distfix baseline (findings is not a list of keys)")
    return set(findings)


def _relative(name: str, root: Path | None) -> str:
    path = Path(name)
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def _keys(result: FileResult, root: Path | None) -> list[str]:
    relative = _relative(result.path, root)
    textmap = TextMap(result.source) if result.source and not result.path.endswith(".ipynb") else None
    return [baseline_key(f, relative, textmap.line_text(f.start.line) if textmap else "") for f in result.findings]


def apply_baseline(
    results: list[FileResult], baseline: Path | None, roots: dict[str, Path], record: bool = True
) -> int:
    """Hide the findings recorded in ``baseline``, or record them all when it does not exist yet
    and ``record`` is true (a partial, interrupted run records nothing).

    ``roots`` maps each result's path to the root its key is relative to; returns how many
    findings were hidden.
    """
    if baseline is None:
        return 0
    known = read_baseline(baseline)
    if known is None:
        if not record:
            return 0
        recorded = sorted({key for r in results for key in _keys(r, roots.get(r.path))})
        baseline.write_text(json.dumps({"findings": recorded}, indent=2) + "\n", encoding="utf-8")
        return 0
    hidden = 0
    for result in results:
        kept = []
        for finding, key in zip(result.findings, _keys(result, roots.get(result.path)), strict=True):
            if key in known:
                hidden += 1
            else:
                kept.append(finding)
        result.findings = kept
    return hidden
