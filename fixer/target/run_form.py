"""A platform's job form written out in a README as nested bullets: the framework, then its
version, one sub-bullet per script when they differ.

    - Framework: Tensorflow
    - Version:
        - For mirrored : 2.0.0-gpu
        - For multiworker : 2.3.0-gpu
    - Start-up script: ...

A project without a requirements file that runs on such a platform states its TensorFlow only
there: each release tag under the "Version" bullet that follows a "Framework: Tensorflow" bullet
is a statement of the README, and the oldest decides, as for any folder with several statements
(the code must run on each job's image). Outside code blocks; read as text (never executed).
"""

from __future__ import annotations

import re

from fixer.target.markdown import prose_lines
from fixer.target.sources import Evidence, exactly

_BULLET = re.compile(r"^(?P<indent>\s*)[*+-]\s+(?P<text>.*)$")
_FRAMEWORK = re.compile(r"(?i)^\W*framework\W*:\W*tensorflow\b")
_OTHER_FRAMEWORK = re.compile(r"(?i)^\W*framework\W*:")
_VERSION = re.compile(r"(?i)^\W*(?:framework\s+)?version\W*:(?P<rest>.*)$")
# A release tag: `2.3.0-gpu`, `2.0.0`, `1.15-cpu` (not a longer number, not inside a word).
_TAG = re.compile(r"(?<![\w.])(?P<major>[12])\.(?P<minor>\d{1,2})(?:\.\d+)?(?:-[a-z][\w.-]*)?(?![\w.])")


def run_form_statements(text: str, path: str) -> list[Evidence]:
    """The release tags of each "Version" bullet (and its sub-bullets) that follows a "Framework:
    Tensorflow" bullet in the same list; nothing for another framework's form."""
    found: list[Evidence] = []
    tensorflow = False
    version_indent: int | None = None  # the "Version" bullet whose sub-bullets are being read
    for number, line, _ in prose_lines(text):
        bullet = _BULLET.match(line)
        if bullet is None:
            if line.strip() and not line.startswith((" ", "\t")):
                tensorflow, version_indent = False, None  # prose or a heading ends the form
            continue
        indent, item = len(bullet.group("indent").expandtabs()), bullet.group("text")
        if version_indent is not None and indent > version_indent:
            found += _tags(item, path, number, line)
            continue
        version_indent = None
        if _OTHER_FRAMEWORK.match(item):
            tensorflow = _FRAMEWORK.match(item) is not None
        elif tensorflow and (version := _VERSION.match(item)) is not None:
            version_indent = indent
            found += _tags(version.group("rest"), path, number, line)
    return found


def _tags(item: str, path: str, number: int, line: str) -> list[Evidence]:
    return [
        Evidence("tensorflow", exactly((int(m.group("major")), int(m.group("minor")))), path, number, line.strip())
        for m in _TAG.finditer(item)
    ]
