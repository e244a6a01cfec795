"""Suppression comments: ``# distfix: ignore[TFD101]`` on the line or the line above, and
``# distfix: ignore-file`` anywhere in the file."""

from __future__ import annotations

import io
import re
import tokenize
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

_LINE = re.compile(r"#\s*distfix:\s*ignore(?!-file)(?:\[(?P<codes>[A-Za-z0-9_,\s]*)\])?")
_FILE = re.compile(r"#\s*distfix:\s*ignore-file\b")
_ALL = None  # a bare `# distfix: ignore` silences every code on its line


class Suppressions:
    """The suppression comments of one source text."""

    def __init__(self, text: str) -> None:
        self.whole_file = False
        self._by_line: dict[int, frozenset[str] | None] = {}
        if "distfix:" not in text:
            return
        for number, comment in _comments(text):
            if _FILE.search(comment):
                self.whole_file = True
            match = _LINE.search(comment)
            if match is None:
                continue
            codes = match.group("codes")
            self._by_line[number] = (
                _ALL if codes is None else frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
            )

    def suppresses(self, code: str, line: int) -> bool:
        """True when a comment on ``line`` or the line above silences ``code``."""
        for candidate in (line, line - 1):
            if candidate in self._by_line:
                codes = self._by_line[candidate]
                if codes is _ALL or any(code.startswith(c) for c in codes):
                    return True
        return False


def _comments(text: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment; a string that merely contains ``# distfix:`` is no comment.

    A file Python cannot tokenize (it will be a TFD000 anyway) is read line by line instead.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        yield from enumerate(text.splitlines(), start=1)
        return
    for token in tokens:
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
