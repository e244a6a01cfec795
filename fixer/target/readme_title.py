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

from fixer.target.markdown import UNDERLINE, is_heading, prose_lines
from fixer.target.sources import Evidence, exactly

# `Tensorflow 2.3`, `TensorFlow-2.3.0`, `tensorflow v2.3`: a release, not `2.x` or `>= 2.3`.
_RELEASE = re.compile(r"(?i)\btensorflow[\s-]*(?:v(?:ersion)?\s*)?(?P<major>[12])\.(?P<minor>\d{1,2})(?![\d]|\.?x)")


def title_statements(text: str, path: str) -> list[Evidence]:
    """The release each heading (or the first line) names, one per heading naming exactly one."""
    found: list[Evidence] = []
    first = next((n for n, line in enumerate(text.splitlines(), 1) if line.strip()), None)
    for number, line, following in prose_lines(text):
        if not (is_heading(line, following) or (number == first and not UNDERLINE.match(line))):
            continue
        releases = {(int(m.group("major")), int(m.group("minor"))) for m in _RELEASE.finditer(line)}
        if len(releases) == 1:
            found.append(Evidence("tensorflow", exactly(releases.pop()), path, number, line.strip()))
    return found
