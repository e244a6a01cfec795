"""Value types shared by the engine and every front-end (CLI, LSP, migrate, validate)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TypeAlias


class Applicability(enum.IntEnum):
    """How safe a fix is to apply automatically, ordered from most to least safe (ruff's levels)."""

    SAFE = 3
    UNSAFE = 2
    DISPLAY_ONLY = 1

    @property
    def label(self) -> str:
        """The user-facing spelling: ``safe``, ``unsafe`` or ``display-only``."""
        return self.name.lower().replace("_", "-")

    @classmethod
    def from_label(cls, label: str) -> Applicability:
        """Parse ``safe`` / ``unsafe`` / ``display-only``."""
        return cls[label.upper().replace("-", "_")]


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and a 1-based column (in characters) in a source text."""

    line: int
    column: int


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the characters ``text[start:end]`` with ``content`` (offsets are 0-based characters)."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Fix:
    """A titled set of non-overlapping edits that together repair one finding."""

    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability

    @property
    def span(self) -> tuple[int, int]:
        """The smallest character range covering every edit."""
        return min(e.start for e in self.edits), max(e.end for e in self.edits)


@dataclass(frozen=True)
class Finding:
    """One violation of one rule at one place in one file."""

    path: str
    code: str
    name: str
    message: str
    start: Position
    end: Position
    fix: Fix | None = None
    applicability: Applicability | None = None
    cell: int | None = None  # notebook cell number (1-based) when the source is a notebook


# A project file an analysis read: (path, (size, mtime ns)), or (path, None) when it is absent.
Dependency: TypeAlias = tuple[str, tuple[int, int] | None]


@dataclass
class FileResult:
    """Everything the engine learned about one file.

    ``error`` is set when the file could not be read or parsed (with a TFD000 finding) or when a
    rule crashed on it (with an internal-error finding naming the rule; the other rules still ran).
    ``fixed_text`` is the text after the fixes that were applied, or None when nothing changed.
    """

    path: str
    source: str | None = None
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    fixed_text: str | None = None
    applied: list[Finding] = field(default_factory=list)
    held_back_unsafe: int = 0
    reverted: str | None = None  # why a fix pass was reverted (its result did not parse)
    # Other files of the project the analysis read: a cached result holds only while they are unchanged.
    dependencies: tuple[Dependency, ...] = ()

    @property
    def changed(self) -> bool:
        """True when fixing produced a text different from the source."""
        return self.fixed_text is not None and self.fixed_text != self.source
