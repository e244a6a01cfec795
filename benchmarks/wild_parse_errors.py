"""TFD000 on the wild trees: the files and cells distfix could not parse, told apart from rule findings.

TFD000 is not a rule (``fixer/explain.py``): it is what the engine reports for a file or notebook cell
it could not parse. Counting it in a rule precision table mixes two questions, so ``wild.py`` leaves
it out of the tables and prints one line instead: how many parse errors there are, how many of them
are really not Python (the judge rejects the same source too: a fill-in-the-blank lab cell, prose in a
code cell, a notebook exported to a ``.py`` file with its `!pip install` lines) and how many distfix
should have parsed (the judge runs it: a magic inside a block, a leading indent, a continued shell
line in a cell). The judge of a notebook cell is IPython, which runs it; the judge of a ``.py`` file
is Python's compiler, since `python file.py` is how it runs: a `!cmd` or `%magic` line there is not
Python, whatever IPython would make of it. Their verdicts stay in the ledger like any other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

PARSE_ERROR = "TFD000"


@dataclass(frozen=True)
class ParseErrorCounts:
    """Parse errors, split by what the judge (``judge_accepts``) makes of the same source
    (``unknown``: source unreadable, or a cell and IPython not installed)."""

    total: int = 0
    not_python: int = 0
    wrongly_unparsable: int = 0
    unknown: int = 0

    def __add__(self, other: ParseErrorCounts) -> ParseErrorCounts:
        return ParseErrorCounts(
            self.total + other.total,
            self.not_python + other.not_python,
            self.wrongly_unparsable + other.wrongly_unparsable,
            self.unknown + other.unknown,
        )

    def line(self) -> str:
        """The report's line (the unknown ones named only when there are some)."""
        text = (
            f"parse errors: {self.total}, of which really not Python (Python fails too, IPython in a notebook): "
            f"{self.not_python}, wrongly unparsable: {self.wrongly_unparsable}"
        )
        return text + (f", not checked: {self.unknown}" if self.unknown else "")


def unit_source(tree: Path, path: str, cell: int | None) -> str | None:
    """The text distfix parsed for a finding: the whole ``.py`` file, or the notebook's 1-based cell
    (None when it cannot be read)."""
    try:
        raw = (tree / path).read_text(encoding="utf-8")
        if cell is None:
            return raw
        source = json.loads(raw)["cells"][cell - 1]["source"]
        return "".join(source) if isinstance(source, list) else source
    except (OSError, UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError):
        return None


def ipython_accepts(source: str) -> bool | None:
    """Whether IPython would run this cell: the shell's whole transformation (magics, shell lines, a
    leading indent, and for a one-line cell automagic and aliases: a bare `pip install x`, `ls $DIR`),
    then Python's compiler. None when IPython is not installed."""
    try:
        from IPython.core.interactiveshell import InteractiveShell
    except ImportError:
        return None
    try:
        transformed = InteractiveShell.instance().transform_cell(source)  # type: ignore[no-untyped-call]
        compile(transformed, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def python_accepts(source: str) -> bool:
    """Whether Python's compiler takes this ``.py`` file's text (what `python file.py` runs)."""
    try:
        compile(source, "<file>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def judge_accepts(source: str, cell: int | None) -> bool | None:
    """Whether the source distfix could not parse runs where it is run: a notebook cell in IPython,
    a ``.py`` file (``cell`` None) under Python. None when IPython is needed and not installed."""
    return python_accepts(source) if cell is None else ipython_accepts(source)


def count_parse_errors(findings: Iterable[object], tree: Path) -> ParseErrorCounts:
    """Split the TFD000 findings of one materialised tree (objects with ``code``, ``path``, ``cell``)."""
    counts = ParseErrorCounts()
    for finding in findings:
        if getattr(finding, "code", None) != PARSE_ERROR:
            continue
        source = unit_source(tree, finding.path, finding.cell)  # type: ignore[attr-defined]
        accepted = None if source is None else judge_accepts(source, finding.cell)  # type: ignore[attr-defined]
        counts += ParseErrorCounts(
            total=1,
            not_python=int(accepted is False),
            wrongly_unparsable=int(accepted is True),
            unknown=int(accepted is None),
        )
    return counts
