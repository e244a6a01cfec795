"""``distfix fix --interactive``: review each fix as a diff and decide, file by file.

After every applied fix the file is checked again (fixes interact); a file is written only when
its review ends, atomically, in its original encoding. Notebooks are not reviewed: their findings
are counted and named in a warning, so that nothing is skipped silently.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fixer.engine import check_source, could_not_parse
from fixer.output.diff import colourise, unified_diff
from fixer.registry import default_registry
from fixer.sources import SourceError, encode_source, read_source, write_atomically
from fixer.textmap import TextMap, apply_edits
from fixer.types import Applicability, Finding

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from fixer.config import Config


class Choice(enum.Enum):
    """The answers to one prompt."""

    APPLY = "a"
    SKIP = "s"
    APPLY_RULE = "A"
    SKIP_RULE = "S"
    QUIT = "q"


PROMPT = "[a]pply, [s]kip, [A]pply all {code}, [S]kip all {code}, [q]uit? "


def _plural(count: int, word: str, suffix: str = "s") -> str:
    return f"{count} {word}{suffix * (count != 1)}"


@dataclass(frozen=True)
class Terminal:
    """How the review talks to the user: prompts, normal output, warnings, and whether to colour."""

    ask: Callable[[str], str]
    say: Callable[[str], None]
    warn: Callable[[str], None]
    colour: bool


@dataclass
class Review:
    """Decisions that carry across files, and the totals the exit code is computed from."""

    unsafe: bool = False
    apply_rules: set[str] = field(default_factory=set)
    skip_rules: set[str] = field(default_factory=set)
    quit: bool = False
    applied: int = 0
    skipped: int = 0
    written: list[str] = field(default_factory=list)
    remaining: int = 0  # findings left in the files after their review (notebooks included)
    held_back: int = 0  # unsafe fixes not offered because --unsafe-fixes was not given
    errors: int = 0
    notebooks: list[str] = field(default_factory=list)  # notebooks with findings, not reviewed

    def summary(self) -> str:
        """What the review did, and what is left."""
        lines = [
            f"Applied {_plural(self.applied, 'fix', 'es')}, skipped {self.skipped}; "
            f"wrote {_plural(len(self.written), 'file')}."
        ]
        if self.remaining:
            lines.append(f"{_plural(self.remaining, 'finding')} remain{'s' * (self.remaining == 1)}.")
        if self.held_back:
            lines.append(f"{_plural(self.held_back, 'unsafe fix', 'es')} held back: use --unsafe-fixes to review them.")
        if self.notebooks:
            lines.append(
                f"{_plural(len(self.notebooks), 'notebook')} with findings not reviewed "
                "(--interactive reviews .py files only)."
            )
        return "\n".join(lines)


def _key(finding: Finding, textmap: TextMap) -> tuple[str, str, str]:
    """Identifies a finding across re-checks, whose offsets move as fixes land."""
    return finding.code, finding.message, textmap.line_text(finding.start.line).strip()


def review_file(path: Path, config: Config, review: Review, terminal: Terminal) -> None:
    """Review every applicable fix of one file, then write it if anything was applied.

    After ``review.quit`` the file is only checked, so that what remains is still counted.
    """
    if path.suffix == ".ipynb":
        _report_notebook(path, config, review, terminal)
        return
    try:
        decoded = read_source(path)
    except SourceError as exc:
        terminal.warn(f"distfix: error: {path}: {exc}")
        review.errors += 1
        return
    threshold = Applicability.UNSAFE if review.unsafe else Applicability.SAFE
    text = decoded.text
    result = check_source(str(path), text, config)
    skipped: set[tuple[str, str, str]] = set()
    while not could_not_parse(result) and not review.quit:
        textmap = TextMap(text)
        pending = [
            f
            for f in result.findings
            if f.fix is not None and f.fix.applicability >= threshold and _key(f, textmap) not in skipped
        ]
        if not pending:
            break
        finding = pending[0]
        choice = _decide(finding, text, review, terminal)
        if choice is Choice.QUIT:
            review.quit = True
            break
        if choice is Choice.SKIP:
            skipped.add(_key(finding, textmap))
            review.skipped += 1
            continue
        candidate = apply_edits(text, list(finding.fix.edits))  # type: ignore[union-attr]
        checked = check_source(str(path), candidate, config)
        if could_not_parse(checked):
            terminal.say(f"{finding.code}: this fix does not produce valid code here; skipped")
            skipped.add(_key(finding, textmap))
            continue
        text, result = candidate, checked
        review.applied += 1
    _tally(path, result.findings, result.error, review, terminal)
    if text != decoded.text:
        try:
            write_atomically(path, encode_source(text, decoded))
        except (OSError, UnicodeEncodeError) as exc:
            terminal.warn(f"distfix: error: {path}: could not write: {exc}")
            review.errors += 1
            return
        review.written.append(str(path))


def _tally(path: Path, findings: list[Finding], error: str | None, review: Review, terminal: Terminal) -> None:
    """Count what is left in one file after its review."""
    if error is not None:
        terminal.warn(f"distfix: error: {path}: {error}")
        review.errors += 1
    left = [f for f in findings if f.code != "TFD000"]
    review.remaining += len(left)
    if not review.unsafe:
        review.held_back += sum(1 for f in left if f.fix is not None and f.fix.applicability is Applicability.UNSAFE)


def _report_notebook(path: Path, config: Config, review: Review, terminal: Terminal) -> None:
    """Notebooks are checked, not reviewed: their findings are counted and the user is told."""
    from fixer.runner import Job, process_with_config

    result = process_with_config(path, Job(), config)
    _tally(path, result.findings, result.error, review, terminal)
    found = sum(1 for f in result.findings if f.code != "TFD000")
    if found:
        review.notebooks.append(str(path))
        terminal.warn(
            f"distfix: warning: {path}: not reviewed, {_plural(found, 'finding')}: "
            "--interactive reviews .py files only; "
            f"`distfix fix {path}` shows the notebook's fixes, `distfix fix --write {path}` applies them"
        )


_HUNK_START = re.compile(r"^@@ -(\d+)(?:,(\d+))? ")


def hunk_at_line_first(patch: str, line: int) -> str:
    """``patch`` with the hunk that changes ``line`` (the finding's) shown first, so that the
    edit the finding is about comes before, say, an import added at the top of the file."""
    head, *hunks = re.split(r"(?m)^(?=@@ )", patch)
    for index, hunk in enumerate(hunks):
        match = _HUNK_START.match(hunk)
        start, length = int(match.group(1)), int(match.group(2) or 1)  # type: ignore[union-attr]
        if start <= line < start + max(length, 1) and index:
            return head + hunk + "".join(h for i, h in enumerate(hunks) if i != index)
    return patch


def _decide(finding: Finding, text: str, review: Review, terminal: Terminal) -> Choice:
    if finding.code in review.apply_rules:
        return Choice.APPLY
    if finding.code in review.skip_rules:
        return Choice.SKIP
    rule = default_registry().get(finding.code)
    what_it_does = rule.doc_sections().get("What it does", "") if rule else ""
    label = finding.fix.applicability.label if finding.fix else ""
    say = terminal.say
    say(f"\n{finding.path}:{finding.start.line}:{finding.start.column}: {finding.code} {finding.name} ({label} fix)")
    say(finding.message)
    # The code the finding is about: a fix may edit only other lines (an import at the top).
    say(f"{finding.start.line:>6} | {TextMap(text).line_text(finding.start.line).rstrip()}")
    if what_it_does:
        say(what_it_does)
    patch = unified_diff(finding.path, text, apply_edits(text, list(finding.fix.edits)))  # type: ignore[union-attr]
    patch = hunk_at_line_first(patch, finding.start.line)
    say((colourise(patch) if terminal.colour else patch).rstrip("\n"))
    while True:
        answer = terminal.ask(PROMPT.format(code=finding.code)).strip()
        try:
            choice = Choice(answer[:1]) if answer else None
        except ValueError:
            choice = None
        if choice is None:
            say("please answer a, s, A, S or q")
            continue
        if choice is Choice.APPLY_RULE:
            review.apply_rules.add(finding.code)
            return Choice.APPLY
        if choice is Choice.SKIP_RULE:
            review.skip_rules.add(finding.code)
            return Choice.SKIP
        return choice
