"""A requirements file's `-c FILE` / `--constraint FILE` line: pip installs the file's requirements
within FILE's pins, so an unpinned `tensorflow` under `-c ../../constraints.txt` (which says
`tensorflow==2.15.1`) installs 2.15.1. The constraint is that requirement's version, not a second,
older statement (issue 28, ledger10b class 2; docs/target.md, "Sources")."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from fixer.target.requirements import Range
from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, read_requirements

if TYPE_CHECKING:
    from collections.abc import Callable

# `-c constraints.txt`, `--constraint=../c.txt`, `-cconstraints.txt` (pip's own forms).
_CONSTRAINT = re.compile(r"^\s*(?:-c\s*|--constraint(?:\s+|\s*=\s*))(?P<file>\S+)")


def constrained(text: str, path: str, found: list[Evidence], consult: Callable[[str], None]) -> list[Evidence]:
    """``found`` (what the requirements file ``path`` with ``text`` states) with each requirement
    that sets no upper bound narrowed to the pins of the constraint files it names; ``consult``
    is told every constraint file looked at. A constraint the requirement excludes (pip would
    fail) leaves it as written."""
    pins: list[tuple[str, Evidence]] = []  # each pin with its file as the `-c` line writes it
    for line in text.splitlines():
        match = _CONSTRAINT.match(re.sub(r"(^|\s)#.*$", "", line))
        if match is None:
            continue
        constraint = os.path.normpath(os.path.join(os.path.dirname(path), match.group("file")))
        consult(constraint)
        constraint_text = read_small_text(constraint)
        if constraint_text is not None:
            stated = read_requirements(constraint_text, constraint)
            pins += [(match.group("file"), e) for e in stated if not e.allowed.open_above]
    if not pins:
        return found
    return [_narrowed(e, [(f, p) for f, p in pins if p.kind == e.kind]) for e in found]


def _narrowed(requirement: Evidence, pins: list[tuple[str, Evidence]]) -> Evidence:
    if not pins or not requirement.allowed.open_above:
        return requirement
    for written, pin in pins:
        allowed = Range()
        allowed.low = max(requirement.allowed.low, pin.allowed.low)
        allowed.high = min(requirement.allowed.high, pin.allowed.high)
        if allowed.low < allowed.high:
            text = f"{requirement.text} (constrained by {written}:{pin.line}: {pin.text})"
            requirement = replace(requirement, allowed=allowed, text=text)
    return requirement
