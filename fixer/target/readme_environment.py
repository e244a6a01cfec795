"""A README's environment line that names the TensorFlow release in prose: "tensorflow 2.3" in a
bullet under "Training Environment", "TensorFlow version: Version 2.3", "tested on Python 3.7+ and
TensorFlow 2.7", "Tensorflow==2.4.1 / Python 3.7" in a requirements table row.

A project without a pin file often records what it runs on only in such a line. It is read only where
it is plainly an environment statement: a bullet, table row or label line under a requirements or
environment heading, a "TensorFlow version:" label, or a sentence saying the code was tested,
developed or trained on that release (or that a virtual environment "with TensorFlow X.Y installed"
runs it), or the project calling itself "a [reference] TensorFlow X.Y [/ Keras] implementation of
...". The line must name exactly one TensorFlow 2 release, exactly (not `2.x`, `>= 2.4`, `2.4+`,
"2.4 or later", a list "2.2/2.3", an image "the Tensorflow 2.1 image"), must not compare, migrate or
look back ("upgrade to TensorFlow 2.4", "in an earlier version"), and its paragraph must not say the
release was only a starting point ("Going forward, we will target the latest release"). Other prose
says nothing ("works with TensorFlow 2 and PyTorch"). A TensorFlow 1 release in prose is not read:
TensorFlow 1 code shows itself in the file (fixer/target/model.py), and a README kept across a port
to TensorFlow 2 often still names the old release. Outside code blocks; read as text (never executed).
"""

from __future__ import annotations

import re

from fixer.target.markdown import is_section_heading, prose_lines
from fixer.target.sources import Evidence, exactly

# `tensorflow 2.3`, `TensorFlow version: Version 2.3`, `Tensorflow==2.4.1`, `tensorflow-gpu 2.3.0`, `TF v2.7`:
# a package or product name right before one release (not `tensorflow/tensorflow:2.4` or `tensorflow_hub 0.9`).
_RELEASE = re.compile(
    r"(?i)(?<![\w/.:-])(?:tensorflow(?:[-_](?:gpu|cpu))?|tf)(?:\s+version)?\s*(?:==?|:)?\s*(?:version\s*|v)?"
    r"(?P<major>2)\.(?P<minor>\d{1,2})(?P<patch>(?:\.\d+)*)(?![\d\w])"
)
# What makes a release an open range or a family, right after it: `2.4+`, `2.x`, `2.4.*`, "2.4 or later".
# A list of releases ("2.2/2.3", "2.6, 2.7 or 2.13", "1.15 and 2.1") and an image named by its release
# ("the Jupyter Tensorflow 1.15 image": another step's, as readme.py says of prose images) say nothing.
_OPEN_AFTER = re.compile(
    r"(?i)^(?:\.?[x*]|\s*\+|\s*(?:or|and)\s+(?:later|above|newer|higher|greater|up)\b"
    r"|\s*(?:/|,|-|or\b|and\b)\s*v?\d+\.\d+|(?:[-\s]\w+)?\s+(?:image|container|docker|kernel)s?\b)"
)
# A comparison right before it: `>= 2.4`, "at least TensorFlow 2.4", "above".
_OPEN_BEFORE = re.compile(r"(?i)(?:[<>~!]=?|\bat\s+least|\babove|\bbelow|\bbefore|\bafter|\bsince)\s*$")
# Prose about another release than the one the code runs on: a migration, an upgrade, a comparison,
# a past one ("in an earlier version", "was once tested with").
_OTHER_RELEASE = re.compile(
    r"(?i)\b(?:from|to|migrat\w*|upgrad\w*|port\w*|convert\w*|compar\w*|vs\.?|versus|unlike|instead|than|"
    r"deprecat\w*|remov\w*|no\s+longer|earlier|previous\w*|older|once|formerly|originally|not\s+(?:yet\s+)?(?:work|support|compatible|tested))\b"
)
# The sentence says what the code is run on: "tested on", "developed with", "TensorFlow version:",
# "environment with TensorFlow 2.3 installed". The verb starts the line, item or sentence or follows its
# subject (not "pre-trained on ...": the weights' history, not the environment).
_ENVIRONMENT_PHRASE = re.compile(
    r"(?i)(?:(?:^|[.:;(|*]\s*|-\s+|\b(?:is|are|was|were|been|has|have|we|i|code|project|repo\w*)\s+)"
    r"(?:tested|developed|trained|implemented|run|verified|built)\s+(?:on|with|under|using|against|in)\b"
    r"|\b(?:tensorflow|tf)\s+version\s*:"
    r"|\bwith\s+(?:tensorflow|tf)\S*\s+v?[12]\.\d+\S*\s+installed\b)"
)
# The project calls itself an implementation for one release: "This is a reference Tensorflow 2.1 / Keras
# implementation of ...", "This repository is an unofficial TensorFlow 2.3 implementation of ...". The
# subject is this code ("this", "it", "here" and at most one noun), at most two words stand between the
# article and the release, so "a PyTorch port of the official TensorFlow 2.3 implementation" (another
# project's) and "a TensorFlow >= 2.1 implementation" (a minimum) do not match.
_IMPLEMENTATION_PHRASE = re.compile(
    r"(?i)\b(?:this|it|here)\s+(?:\w+\s+)?(?:is|provides|contains)\s+(?:a|an|the)\s+"
    r"(?:(?!of\b|for\b|in\b)[\w-]+\s+){0,2}(?:tensorflow|tf)\s*v?2\.\d{1,2}(?:\.\d+)*"
    r"\s*(?:(?:/|and|&)\s*(?:tf\.)?keras\s+|\(\s*(?:tf\.)?keras\s*\)\s*)?implementation\b"
)
# The paragraph says the release was only where testing started ("tested with Tensorflow 2.5.0. Going
# forward, we will continue to target the latest released version"): no statement.
_MOVING_TARGET = re.compile(r"(?i)\b(?:latest|going\s+forward|other\s+versions|newer\s+versions|later\s+versions)\b")
# A heading that opens what the code needs or runs on (English and Chinese, as readme.py's list).
_ENVIRONMENT_HEADING = re.compile(
    r"(?i)require|dependenc|prerequisite|environment|setup|install|platform|software|tested|环境|依赖|要求|安装|需求"
)
_ITEM = re.compile(r"^\s*(?:[*+-]|\d+[.)]|\|)\s*")


def environment_statements(text: str, path: str) -> list[Evidence]:
    """The release each environment line of the README names (see the module docstring)."""
    found: list[Evidence] = []
    under_environment = False
    for number, line, following in prose_lines(text):
        item = _ITEM.match(line) is not None
        if _MOVING_TARGET.search(line) or (not item and _MOVING_TARGET.search(following)):
            continue
        if not item and is_section_heading(line, following):
            under_environment = _ENVIRONMENT_HEADING.search(line) is not None
            continue
        if (
            not (item and under_environment)
            and _ENVIRONMENT_PHRASE.search(line) is None
            and _IMPLEMENTATION_PHRASE.search(line) is None
        ):
            continue
        release = _one_release(line)
        if release is not None:
            found.append(Evidence("tensorflow", exactly(release), path, number, line.strip()))
    return found


def _one_release(line: str) -> tuple[int, int] | None:
    """The release ``line`` states, when it names exactly one, exactly, and compares nothing."""
    if _OTHER_RELEASE.search(line):
        return None
    releases = set()
    for match in _RELEASE.finditer(line):
        if _OPEN_AFTER.match(line[match.end() :]) or _OPEN_BEFORE.search(line[: match.start()]):
            return None
        releases.add((int(match["major"]), int(match["minor"])))
    return releases.pop() if len(releases) == 1 else None
