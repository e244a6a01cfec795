"""The README documents what exists: its rule table is `distfix rules --format markdown`, its
quickstart shows what the commands print, and it stays short."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_rule_table_matches_the_registry(distfix):
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- rules-table:start -->\n(.*?)\n<!-- rules-table:end -->", text, re.S)
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


def test_quickstart_output_is_what_distfix_prints(distfix):
    """Every ```text block of the README that starts with `$ distfix ...` is run from the
    repository root: its lines are the command's output (stdout, then stderr)."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```text\n\$ (distfix [^\n]*)\n(.*?)```", text, re.S)
    assert [command.split()[1] for command, _ in blocks] == ["check", "fix"], "the quickstart shows check, then fix"
    for command, expected in blocks:
        result = distfix(*shlex.split(command)[1:])
        assert result.returncode == 1, result.stderr
        assert result.stdout + result.stderr == expected, command


def test_readme_is_short_and_in_the_order_a_user_needs():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings == ["Install", "Quickstart", "Rules", "Editor", "CI", "Configuration", "More"]
    for link in re.findall(r"\]\(((?:docs|benchmarks|CONTRIBUTING)[^)#]*)", text):
        assert (README.parent / link).is_file(), f"the README links to a missing file: {link}"
