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

# `Tensorflow 2.3`, `TensorFlow-2.3.0`, `tensorflow v2.3`: a release, not `2.x` or `>= 2.3`. The
# `{name}` is TensorFlow's name as the text spells it: a README's title spells it out; a notebook's
# headings also abbreviate it (`TF 2.3`, `tf2.3`), which a notebook's own output must then confirm
# (fixer/target/notebook_title.py).
_RELEASE_AFTER = r"(?i)\b(?:{name})[\s-]*(?:v(?:ersion)?\s*)?(?P<major>[12])\.(?P<minor>\d{{1,2}})(?![\d]|\.?x)"
_RELEASE = re.compile(_RELEASE_AFTER.format(name="tensorflow"))
_RELEASE_OR_TF = re.compile(_RELEASE_AFTER.format(name="tensorflow|tf"))


def named_release(line: str, *, abbreviated: bool = False) -> tuple[int, int] | None:
    """The one TensorFlow release ``line`` names (`TensorFlow 2.3`; also `TF 2.3` when
    ``abbreviated``); None when it names none or several ("TensorFlow 1.15 vs TensorFlow 2.3")."""
    pattern = _RELEASE_OR_TF if abbreviated else _RELEASE
    releases = {(int(m.group("major")), int(m.group("minor"))) for m in pattern.finditer(line)}
    return releases.pop() if len(releases) == 1 else None


def title_statements(text: str, path: str) -> list[Evidence]:
    """The release each heading (or the first line) names, one per heading naming exactly one."""
    found: list[Evidence] = []
    first = next((n for n, line in enumerate(text.splitlines(), 1) if line.strip()), None)
    for number, line, following in prose_lines(text):
        if not (is_heading(line, following) or (number == first and not UNDERLINE.match(line))):
            continue
        release = named_release(line)
        if release is not None:
            found.append(Evidence("tensorflow", exactly(release), path, number, line.strip()))
    return found
