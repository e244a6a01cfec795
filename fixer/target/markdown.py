"""The Markdown structure the target model's README readers share: code fences and headings.

Read as text: a fence (```` ``` ```` or ``~~~``) opens or closes a code block; a heading is an ATX
line (``## Requirements``) or a line underlined by the next one (setext: ``=====``, ``-----``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

# A backtick fence's info string holds no backtick (CommonMark): "```pip install x```" on one line
# is an inline code span, not a block's opening (else every later block of the README is misread).
FENCE = re.compile(r"^\s*(`{3,}[^`]*$|~~~)")
_ATX_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
UNDERLINE = re.compile(r"^\s*(?:=+|-+|~+|\^+)\s*$")


def prose_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """(1-based line number, line, the line after it) of each line outside fenced code blocks;
    the fences themselves are left out."""
    lines = text.splitlines()
    fenced = False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield number, line, lines[number] if number < len(lines) else ""


def is_heading(line: str, following: str) -> bool:
    """``line`` is an ATX heading, or a non-blank line (not itself an underline) that ``following``
    underlines."""
    if not line.strip() or UNDERLINE.match(line):
        return False
    return bool(_ATX_HEADING.match(line) or UNDERLINE.match(following))


def is_section_heading(line: str, following: str) -> bool:
    """``line`` opens a section of a README: a heading (above), a bold line or a short line ending
    in a colon (`Requirements:`)."""
    stripped = line.strip()
    if not stripped:
        return False
    return bool(
        is_heading(line, following)
        or (stripped.startswith("**") and stripped.endswith("**"))
        or (stripped.endswith(":") and len(stripped) <= 40)
    )
