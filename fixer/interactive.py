"""``distfix fix --interactive``: review each fix as a diff and decide, file by file.

After every applied fix the file is checked again (fixes interact); a file is written only when
its review ends, atomically, in its original encoding.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from fixer.config import Config
from fixer.engine import check_source
from fixer.output.diff import colourise, unified_diff
from fixer.registry import default_registry
from fixer.sources import SourceError, encode_source, read_source, write_atomically
from fixer.textmap import TextMap, apply_edits
from fixer.types import Applicability, Finding


class Choice(enum.Enum):
    """The answers to one prompt."""

    APPLY = "a"
    SKIP = "s"
    APPLY_RULE = "A"
    SKIP_RULE = "S"
    QUIT = "q"


PROMPT = "[a]pply, [s]kip, [A]pply all {code}, [S]kip all {code}, [q]uit? "


@dataclass
class Review:
    """Decisions that carry across files: whole rules applied or skipped, and whether to stop."""

    apply_rules: set[str] = field(default_factory=set)
    skip_rules: set[str] = field(default_factory=set)
    quit: bool = False
    applied: int = 0
    skipped: int = 0
    written: list[str] = field(default_factory=list)


def _key(finding: Finding, textmap: TextMap) -> tuple[str, str, str]:
    """Identifies a finding across re-checks, whose offsets move as fixes land."""
    return finding.code, finding.message, textmap.line_text(finding.start.line).strip()


def review_file(
    path: Path,
    config: Config,
    unsafe: bool,
    review: Review,
    ask: Callable[[str], str],
    say: Callable[[str], None],
    colour: bool,
) -> None:
    """Review every applicable fix of one file, then write it if anything was applied."""
    if path.suffix == ".ipynb":
        say(f"{path}: notebooks are not reviewed interactively; use `distfix fix --diff`")
        return
    try:
        decoded = read_source(path)
    except SourceError as exc:
        say(f"distfix: error: {path}: {exc}")
        return
    threshold = Applicability.UNSAFE if unsafe else Applicability.SAFE
    text = decoded.text
    skipped: set[tuple[str, str, str]] = set()
    while not review.quit:
        result = check_source(str(path), text, config)
        if result.error is not None:
            say(f"distfix: error: {path}: {result.error}")
            break
        textmap = TextMap(text)
        pending = [
            f
            for f in result.findings
            if f.fix is not None and f.fix.applicability >= threshold and _key(f, textmap) not in skipped
        ]
        if not pending:
            break
        finding = pending[0]
        choice = _decide(finding, text, review, ask, say, colour)
        if choice in (Choice.SKIP, Choice.SKIP_RULE):
            skipped.add(_key(finding, textmap))
            review.skipped += 1
            continue
        if choice is Choice.QUIT:
            review.quit = True
            break
        candidate = apply_edits(text, list(finding.fix.edits))  # type: ignore[union-attr]
        if check_source(str(path), candidate, config).error is not None:
            say(f"{finding.code}: this fix does not produce valid code here; skipped")
            skipped.add(_key(finding, textmap))
            continue
        text = candidate
        review.applied += 1
    if text != decoded.text:
        write_atomically(path, encode_source(text, decoded))
        review.written.append(str(path))


def _decide(
    finding: Finding, text: str, review: Review, ask: Callable[[str], str], say: Callable[[str], None], colour: bool
) -> Choice:
    if finding.code in review.apply_rules:
        return Choice.APPLY
    if finding.code in review.skip_rules:
        return Choice.SKIP
    rule = default_registry().get(finding.code)
    summary = rule.doc_sections().get("What it does", "") if rule else ""
    label = finding.fix.applicability.label if finding.fix else ""
    say(f"\n{finding.path}:{finding.start.line}:{finding.start.column}: {finding.code} {finding.name} ({label} fix)")
    say(finding.message)
    if summary:
        say(summary.split("\n\n")[0])
    patch = unified_diff(finding.path, text, apply_edits(text, list(finding.fix.edits)))  # type: ignore[union-attr]
    say((colourise(patch) if colour else patch).rstrip("\n"))
    while True:
        answer = ask(PROMPT.format(code=finding.code)).strip()
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
