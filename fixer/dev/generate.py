"""The files derived from the rule registry, written by ``distfix dev generate`` (``make generate``).

Three places list the rules: the code table of :mod:`fixer.codes` (kept as text so a warm check
need not import the rules), the README's rule table and ``docs/rules.md``. Each is rendered here
from the registry; tests/test_generate.py fails when one is stale.
"""

from __future__ import annotations

import re
from itertools import groupby
from pathlib import Path

from fixer.explain import render_explanation, rule_summary, rules_markdown
from fixer.registry import Registry, default_registry

ROOT = Path(__file__).resolve().parents[2]
CODES_FILE = Path("fixer/codes.py")
README_FILE = Path("README.md")
RULES_DOC_FILE = Path("docs/rules.md")

_CODES_BLOCK = re.compile(r"(RULE_CODES: tuple\[str, \.\.\.\] = \(\n)(.*?)(\)  # fmt: skip)", re.S)
_README_TABLE = re.compile(r"(<!-- rules-table:start -->\n)(.*?)(\n<!-- rules-table:end -->)", re.S)


class GenerateError(Exception):
    """A derived file lacks the markers its generated part goes between."""


# Codes on one line of the table: ten keep a line within ruff's 120 columns (fixer/codes.py is linted).
_CODES_PER_LINE = 10


def codes_table(codes: list[str]) -> str:
    """The body of ``RULE_CODES``: each family (the hundreds digit) starts a line, codes sorted."""
    lines = []
    for _, group in groupby(sorted(codes), key=lambda code: code[:4]):
        family = list(group)
        for start in range(0, len(family), _CODES_PER_LINE):
            lines.append("    " + " ".join(f'"{code}",' for code in family[start : start + _CODES_PER_LINE]))
    return "\n".join(lines) + "\n"


def render_codes(text: str, codes: list[str]) -> str:
    """``fixer/codes.py`` with its ``RULE_CODES`` listing ``codes``."""
    if not _CODES_BLOCK.search(text):
        raise GenerateError(f"{CODES_FILE}: no `RULE_CODES: tuple[str, ...] = (` ... `)  # fmt: skip` block")
    return _CODES_BLOCK.sub(lambda m: m.group(1) + codes_table(codes) + m.group(3), text, count=1)


def render_readme(text: str, table: str) -> str:
    """The README with ``table`` between its rules-table markers."""
    if not _README_TABLE.search(text):
        raise GenerateError(f"{README_FILE}: no `<!-- rules-table:start -->` / `<!-- rules-table:end -->` markers")
    return _README_TABLE.sub(lambda m: m.group(1) + table + m.group(3), text, count=1)


def rules_doc(registry: Registry) -> str:
    """``docs/rules.md``: every rule's ``distfix explain`` page, in code order."""
    return "\n".join(render_explanation(rule) for rule in registry.rules)


def expected_files(root: Path = ROOT, registry: Registry | None = None) -> dict[Path, str]:
    """What each derived file under ``root`` must hold for the rules of ``registry``."""
    registry = registry or default_registry()
    codes = [rule.code for rule in registry.rules]
    table = rules_markdown([rule_summary(rule) for rule in registry.rules])
    return {
        root / CODES_FILE: render_codes((root / CODES_FILE).read_text(encoding="utf-8"), codes),
        root / README_FILE: render_readme((root / README_FILE).read_text(encoding="utf-8"), table),
        root / RULES_DOC_FILE: rules_doc(registry),
    }


def stale_files(root: Path = ROOT, registry: Registry | None = None) -> list[Path]:
    """The derived files under ``root`` that differ from what the registry renders."""
    return [path for path, text in expected_files(root, registry).items() if _read(path) != text]


def write_files(root: Path = ROOT, registry: Registry | None = None) -> list[Path]:
    """Rewrite the stale derived files under ``root``; the ones written."""
    written = []
    for path, text in expected_files(root, registry).items():
        if _read(path) != text:
            path.write_text(text, encoding="utf-8", newline="")
            written.append(path)
    return written


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
