"""A README line listing the TensorFlow release lines a project supports: "TensorFlow: 1.15.x & 2.4.x".

A framework that ships one runtime package per TensorFlow line (a 1.15 one and a 2.4 one) says so in
a single label line of its README, each release once, joined by `&`, `and`, `,`, `/` or `or`. Every
release is a line some of the project's code runs on, so the oldest one bounds what a rename may
write where the code is not tied to one line (fixer/target/model.py, ``Target.lines_from``); it
never decides the version judged (a README's one-release readers and the pin files do). Only a line
that is that list and nothing else is read: prose around the releases ("tested with 2.4, ported
from 1.15") says something else. Outside code blocks; read as text (never executed).
"""

from __future__ import annotations

import re

from fixer.target.markdown import prose_lines
from fixer.target.sources import Evidence, exactly

# One release, a patch or a wildcard allowed: `1.15`, `1.15.x`, `2.4.1`, `v2.4`.
_ONE = r"v?\d+\.\d+(?:\.(?:\d+|x|\*))?"
# The label (`- TensorFlow: `, `* **TensorFlow versions**: `, `| TensorFlow | `) and the list itself.
_LINE = re.compile(
    r"(?i)^\s*(?:[*+-]\s+|\|\s*)?\**\s*(?:tensorflow|tf)(?:\s+versions?)?\s*\**\s*[:|]\s*"
    rf"(?P<list>{_ONE}(?:\s*(?:&|,|/|\band\b|\bor\b)\s*{_ONE})+)\s*\|?\s*$"
)
_RELEASE = re.compile(r"(?P<major>\d+)\.(?P<minor>\d+)")


def supported_lines(text: str, path: str) -> list[Evidence]:
    """The oldest release of each README line that lists two or more supported TensorFlow releases,
    as ``supported-lines`` evidence (``allowed`` is that release)."""
    found: list[Evidence] = []
    for number, line, _ in prose_lines(text):
        match = _LINE.match(line)
        if match is None:
            continue
        releases = {(int(r["major"]), int(r["minor"])) for r in _RELEASE.finditer(match["list"])}
        if len(releases) > 1:
            found.append(Evidence("supported-lines", exactly(min(releases)), path, number, line.strip()))
    return found
