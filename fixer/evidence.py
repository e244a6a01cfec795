"""The text a rule needs in a file before it can report there (the pre-filter's stage 2,
fixer/prefilter.py): a value of its own, so that the rules' base class can name it without
importing the pre-filter, which takes rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Evidence:
    """Text a rule needs in a file before it can report anything there.

    ``alternatives`` are ``(word, pattern)`` pairs: the evidence is found when, for one of them,
    ``word`` occurs and ``pattern`` (a regular expression, or None for "the word is enough")
    matches. The word is a fast byte scan that spares most files the regular expression. The
    evidence must be found in every file in which the condition named by ``name`` can hold;
    finding it in more (comments, strings) only costs a parse.
    """

    name: str
    alternatives: tuple[tuple[str, str | None], ...]
    _text: tuple[tuple[str, re.Pattern[str] | None], ...] = field(init=False, repr=False, compare=False)
    _bytes: tuple[tuple[bytes, re.Pattern[bytes] | None], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = tuple((word, re.compile(p) if p else None) for word, p in self.alternatives)
        raw = tuple((word.encode(), re.compile(p.encode()) if p else None) for word, p in self.alternatives)
        object.__setattr__(self, "_text", text)
        object.__setattr__(self, "_bytes", raw)

    def found_in(self, source: str | bytes) -> bool:
        """True when one alternative matches ``source`` (text or raw bytes)."""
        alternatives = self._bytes if isinstance(source, bytes) else self._text
        return any(
            word in source and (pattern is None or pattern.search(source) is not None)  # type: ignore[operator, arg-type]
            for word, pattern in alternatives
        )
