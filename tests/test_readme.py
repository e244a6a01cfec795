"""The README documents what exists: its rule table is `distfix rules --format markdown`."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_rule_table_matches_the_registry(distfix):
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- rules-table.*?-->\n(.*?)\n<!-- /rules-table -->", text, re.S)
    assert match, "README lacks the rules-table markers"
    assert match.group(1).strip() == distfix("rules", "--format", "markdown").stdout.strip()


def test_readme_names_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text
    assert "PLACEHOLDER" not in text and "_SECTION" not in text


def test_rule_docs_page_is_current(distfix):
    """docs/rules.md (what the LSP and SARIF links point at) is `distfix explain --all`."""
    page = README.parent / "docs" / "rules.md"
    assert page.read_text(encoding="utf-8") == distfix("explain", "--all").stdout
