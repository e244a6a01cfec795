"""A README whose title or headings name the TensorFlow release the project is written for:
"# CycleGAN implementation in Tensorflow 2.3", "UPDATED for TensorFlow 2.3.".

A personal project that ships no requirements file often says its release only there. A title or
heading is the project's own description of itself; prose further down may name any release (a
comparison, a migration note, another step's image), so only headings and the README's first line
are read, and only when the README states no release otherwise (an install, an image, a job form):
those say what to run, a title what it was written for. A heading naming two releases ("from
TensorFlow 1.15 to 2.3") says nothing. Read as text (never executed).
"""

from __future__ import annotations

import re

from fixer.target.sources import Evidence, exactly

_FENCE = re.compile(r"^\s*(```|~~~)")
_ATX_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_UNDERLINE = re.compile(r"^\s*(?:=+|-+|~+|\^+)\s*$")
# `Tensorflow 2.3`, `TensorFlow-2.3.0`, `tensorflow v2.3`: a release, not `2.x` or `>= 2.3`.
_RELEASE = re.compile(r"(?i)\btensorflow[\s-]*(?:v(?:ersion)?\s*)?(?P<major>[12])\.(?P<minor>\d{1,2})(?![\d]|\.?x)")


def title_statements(text: str, path: str) -> list[Evidence]:
    """The release each heading (or the first line) names, one per heading naming exactly one."""
    found: list[Evidence] = []
    lines = text.splitlines()
    first = next((n for n, line in enumerate(lines, 1) if line.strip()), None)
    fenced = False
    for number, line in enumerate(lines, 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        following = lines[number] if number < len(lines) else ""
        heading = _ATX_HEADING.match(line) or (line.strip() and _UNDERLINE.match(following))
        if fenced or not (heading or number == first) or _UNDERLINE.match(line):
            continue
        releases = {(int(m.group("major")), int(m.group("minor"))) for m in _RELEASE.finditer(line)}
        if len(releases) == 1:
            found.append(Evidence("tensorflow", exactly(releases.pop()), path, number, line.strip()))
    return found
