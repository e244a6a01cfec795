"""What a README tells readers to create the machine for its code from: a Deep Learning VM or
managed-notebook image family named in a command (`--image-family=tf-2-8-cpu`,
`--vm-image-family=tf2-ent-2-6-cu110`), or, in prose, an instruction to create or select a
notebook instance / VM of a named TensorFlow image ("select TensorFlow Enterprise 2.6").

Such a statement says what gets selected for the code, as a README's `docker run` line does, and
is read the same way (weaker than a pin file beside it: fixer/target/model.py). A sentence that
only records a version ("tested with TensorFlow 2.1", "Software stack: TensorFlow 2.0.1") selects
nothing and is not read. Read as text (never executed).
"""

from __future__ import annotations

import re

from fixer.target.markdown import FENCE
from fixer.target.sources import Evidence, exactly

# Google's image families carry the version as `<major>-<minor>`: `tf-2-8-cpu`, `tf2-2-3-cu110`,
# `tf2-ent-2-6-cu110`, `tf-ent-1-15-cpu`. `tf-latest-gpu` names no release and is not read.
_FAMILY = re.compile(
    r"--(?:vm-)?image-family[=\s]+[\"']?tf2?(?:-ent)?-(?P<major>\d+)-(?P<minor>\d+)(?![\d.])", re.IGNORECASE
)
# An instruction (a verb that chooses) followed, in the same sentence, by a named TensorFlow image.
_INSTRUCTION = re.compile(
    r"\b(?:create|select|choose|launch|pick|start)\b[^.!?]{0,160}?"
    r"\b(?:TensorFlow|TF)(?:\s+Enterprise)?\s+(?P<major>\d+)\.(?P<minor>\d+)",
    re.IGNORECASE,
)
# What the instruction must be about: the machine or image the code runs on.
_MACHINE = re.compile(r"\b(?:notebooks?|instances?|VMs?|virtual machines?|workbench|images?|kernels?)\b", re.I)


def _paragraphs(text: str) -> list[list[tuple[int, str]]]:
    """The (line number, text) lines of each prose paragraph: outside fenced and indented code,
    split at blank lines and headings (an instruction may wrap over lines)."""
    found: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate([*text.splitlines(), ""], 1):
        fence = FENCE.match(line) is not None
        fenced = fenced != fence
        if fence or fenced or not line.strip() or line.startswith(("    ", "\t", "#")):
            if current:
                found.append(current)
            current = []
        else:
            current.append((number, line.strip()))
    return found


def _line_at(lines: list[tuple[int, str]], offset: int) -> int:
    """The line of a paragraph (its lines joined by one space) that holds character ``offset``."""
    for number, line in lines:
        if offset <= len(line):
            return number
        offset -= len(line) + 1
    return lines[-1][0]


def managed_image_statements(text: str, path: str) -> list[Evidence]:
    """The TensorFlow of every image family a README's commands name, and of every image its
    prose tells readers to create or select a notebook instance / VM of."""
    found: list[Evidence] = []
    for number, line in enumerate(text.splitlines(), 1):
        for family in _FAMILY.finditer(line):
            version = int(family.group("major")), int(family.group("minor"))
            found.append(Evidence("tensorflow", exactly(version), path, number, family.group(0)))
    for lines in _paragraphs(text):
        paragraph = " ".join(line for _, line in lines)
        offset = 0
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z*_`\[])", paragraph):
            match = _INSTRUCTION.search(sentence)
            if match is not None and _MACHINE.search(sentence):
                version = int(match.group("major")), int(match.group("minor"))
                number = _line_at(lines, paragraph.index(sentence, offset) + match.start("major"))
                found.append(Evidence("tensorflow", exactly(version), path, number, match.group(0)))
            offset = paragraph.index(sentence, offset) + len(sentence)
    return found
