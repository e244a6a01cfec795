"""The lines of a YAML file (a CI workflow) as its indentation nests them, read as text.

The project's runtime has no YAML parser, and the CI readers (``ci_switch``, ``ci_containers``)
need only a few keys and where they sit: a line's indentation, whether it is a list item, its key
and value, the lines nested under it and the line it is nested in. Blank and comment lines are left
out; the lines of a block scalar (`run: |`, `script: >-`) are kept, marked ``in_scalar``: they are
the scalar's text (a shell script, where `# ...` is a line of the script and `- x` no list item),
never keys. Anchors and tags before a value (`&name`, `!tag`) are not part of it; an alias or a
merge key (`*name`, `<<: *name`) is kept as written and names nothing these readers follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `key: value` after any `- ` list markers (`- name: x`); a quoted or complex key is not read.
_KEY = re.compile(r"^(?:-\s+)*(?P<key>[\w.-]+)\s*:\s*(?P<value>.*?)\s*$")
# What stands before a value and is not part of it: an anchor (`&name`) or a tag (`!tag`, `!!str`).
_PROPERTIES = re.compile(r"^(?:[&!]\S*(?:\s+|$))+")
# A block scalar's header: `|` or `>` with optional chomping and indentation indicators, then at
# most a comment.
_BLOCK_SCALAR = re.compile(r"^[|>][0-9+-]*\s*(?:#.*)?$")
_ITEM_MARKERS = re.compile(r"^(?:-(?:\s+|$))+")


@dataclass(frozen=True)
class YamlLine:
    """One line that is not blank and not a comment: its 1-based ``number``, its ``indent`` (the
    column of its first character), its ``text`` without indentation or trailing white space, and
    whether it is a line of a block scalar's text."""

    number: int
    indent: int
    text: str
    in_scalar: bool = False

    @property
    def item(self) -> bool:
        """Whether the line opens a list item (`- x`, `- key: x`)."""
        return not self.in_scalar and (self.text == "-" or self.text.startswith("- "))

    @property
    def key(self) -> str | None:
        """The mapping key the line sets (after its list markers), None for a plain item or text."""
        match = None if self.in_scalar else _KEY.match(self.text)
        return match.group("key") if match else None

    @property
    def value(self) -> str:
        """What follows the key's colon, as written but for anchors and tags ("" where the line sets
        no key; a trailing comment is kept)."""
        match = None if self.in_scalar else _KEY.match(self.text)
        return _PROPERTIES.sub("", match.group("value")) if match else ""

    @property
    def key_column(self) -> int:
        """The column the line's key (or item text) starts at: past its `- ` markers."""
        markers = _ITEM_MARKERS.match(self.text)
        return self.indent + (markers.end() if markers else 0)


def yaml_lines(text: str) -> list[YamlLine]:
    """The lines of ``text`` that are not blank or comments, block scalars' text marked."""
    found: list[YamlLine] = []
    scalar_above: int | None = None  # the key column of the block scalar being read
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped:
            continue  # blank: inside a block scalar too, it ends nothing
        indent = len(raw) - len(raw.lstrip())
        if scalar_above is not None and indent > scalar_above:
            found.append(YamlLine(number, indent, stripped, in_scalar=True))
            continue
        scalar_above = None
        if stripped.startswith("#"):
            continue
        line = YamlLine(number, indent, stripped)
        if line.key is not None and _BLOCK_SCALAR.match(line.value):
            scalar_above = line.key_column
        found.append(line)
    return found


def parent(lines: list[YamlLine], index: int) -> int | None:
    """The index of the line ``lines[index]`` is nested in (the nearest line above it that is less
    indented and not a block scalar's text), None at the top level."""
    indent = lines[index].indent
    return next((i for i in range(index - 1, -1, -1) if lines[i].indent < indent and not lines[i].in_scalar), None)


def block(lines: list[YamlLine], index: int) -> list[YamlLine]:
    """``lines[index]`` and every line nested under it (up to the next line indented as much or
    less)."""
    indent = lines[index].indent
    end = next((i for i in range(index + 1, len(lines)) if lines[i].indent <= indent), len(lines))
    return lines[index:end]
