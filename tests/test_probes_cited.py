"""Every rule's claim about what TensorFlow does is backed by a probe a reader can run (issue 28):
each registered rule's documentation names an existing `benchmarks/probe_*.py`, and every probe
is listed, with its output, in docs/probes.md."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from fixer.registry import default_registry

ROOT = Path(__file__).resolve().parent.parent
PROBES = sorted((ROOT / "benchmarks").glob("probe_*.py"))
PROBE_NAME = re.compile(r"benchmarks/(probe_\w+\.py)")
RULES = default_registry().rules


def _cited_probes(rule: type) -> list[str]:
    return PROBE_NAME.findall(inspect.getdoc(rule) or "")


def test_the_probes_and_rules_are_found():
    assert len(PROBES) >= 20 and len(RULES) >= 30


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_the_rule_documentation_names_an_existing_probe(rule):
    cited = _cited_probes(rule)
    assert cited, f"{rule.code}'s documentation names no benchmarks/probe_*.py"
    missing = [name for name in cited if not (ROOT / "benchmarks" / name).is_file()]
    assert not missing, f"{rule.code} cites probes that do not exist: {missing}"


@pytest.mark.parametrize("probe", PROBES, ids=lambda path: path.name)
def test_every_probe_is_listed_in_the_probes_page(probe):
    assert f"benchmarks/{probe.name}" in (ROOT / "docs" / "probes.md").read_text(encoding="utf-8")


def test_every_probe_section_of_the_probes_page_starts_outside_a_code_block():
    """A section heading that names a probe must not sit inside an unclosed ```text block (merges of
    sections written side by side have dropped a closing fence; the page then renders as one block)."""
    inside, swallowed = False, []
    for number, line in enumerate((ROOT / "docs" / "probes.md").read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            inside = not inside
        elif inside and line.startswith("## ") and "benchmarks/probe_" in line:
            swallowed.append(number)
    assert not swallowed, f"docs/probes.md: probe headings inside a code block at lines {swallowed}"
    assert not inside, "docs/probes.md ends inside a code block"
