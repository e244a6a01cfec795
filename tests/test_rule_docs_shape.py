"""Every rule's documentation has one shape (issue 25): a short *What it does*, its limits under *Known limits*.

*What it does* says in plain words what the rule finds, in at most five lines; every heuristic, case not
reported, or name not followed is listed under one *Known limits* section placed after *Fix safety*.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from fixer.explain import render_explanation
from fixer.registry import default_registry

if TYPE_CHECKING:
    from fixer.rule import Rule

LONGEST_WHAT_IT_DOES = 5
RULES = default_registry().rules


def shape_problems(sections: dict[str, str]) -> list[str]:
    """What is wrong with a rule's docstring sections (an empty list when the shape holds)."""
    problems = []
    what = [line for line in sections.get("What it does", "").splitlines() if line.strip()]
    if not what:
        problems.append("no `## What it does`")
    elif len(what) > LONGEST_WHAT_IT_DOES:
        problems.append(f"`## What it does` has {len(what)} lines (at most {LONGEST_WHAT_IT_DOES})")
    headings = list(sections)
    if "Known limits" not in sections:
        problems.append("no `## Known limits`")
    elif "Fix safety" in sections and headings.index("Known limits") < headings.index("Fix safety"):
        problems.append("`## Known limits` comes before `## Fix safety`")
    return problems


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_every_rule_documentation_has_the_shape(rule: type[Rule]) -> None:
    assert shape_problems(rule.doc_sections()) == []


def test_a_long_what_it_does_or_a_missing_known_limits_is_caught() -> None:
    long = {"What it does": "\n".join(f"line {n}" for n in range(6)), "Fix safety": "Safe."}
    assert shape_problems(long) == ["`## What it does` has 6 lines (at most 5)", "no `## Known limits`"]
    early = {"What it does": "Reports x.", "Known limits": "None.", "Fix safety": "Safe."}
    assert shape_problems(early) == ["`## Known limits` comes before `## Fix safety`"]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_explain_shows_known_limits_after_fix_safety(rule: type[Rule]) -> None:
    text = render_explanation(rule)
    assert "## Known limits" in text
    assert text.index("## Fix safety") < text.index("## Known limits") < text.index("## References")
