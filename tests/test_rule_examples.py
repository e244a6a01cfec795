"""Every example embedded in every rule becomes a test (valid: no finding; invalid: the finding
and exactly the expected fixed text, which parses and is a fixed point)."""

from __future__ import annotations

import pytest

from fixer.config import Config
from fixer.engine import check_source, fix_source
from fixer.registry import default_registry
from fixer.rule import Invalid, Rule, Valid, dedent_example
from fixer.types import Applicability, Finding

MIN_EXAMPLES = 8


def _cases():
    for rule in default_registry().rules:
        for number, example in enumerate(rule.examples, start=1):
            kind = "invalid" if isinstance(example, Invalid) else "valid"
            label = f"{rule.code}-{kind}-{number}"
            if example.note:
                label += "-" + example.note.replace(" ", "_")[:40]
            yield pytest.param(rule, example, id=label)


def _only(rule: type[Rule]) -> Config:
    return Config(select=(rule.code,))


@pytest.mark.parametrize(("rule", "example"), list(_cases()))
def test_example(rule: type[Rule], example: Valid | Invalid) -> None:
    source = dedent_example(example.code)
    result = check_source(f"{rule.code.lower()}_example.py", source, _only(rule))
    assert result.error is None, result.error
    codes = [f.code for f in result.findings]
    if isinstance(example, Valid):
        assert codes == [], f"unexpected findings: {[(f.start, f.message) for f in result.findings]}"
        return
    assert codes == [rule.code] * example.count, [(f.start, f.message) for f in result.findings]
    _assert_first_finding(example, result.findings[0])
    fixed = fix_source(f"{rule.code.lower()}_example.py", source, _only(rule), unsafe=True)
    assert fixed.reverted is None, fixed.reverted
    if example.after is None:
        assert fixed.fixed_text is None, f"expected no edit, got:\n{fixed.fixed_text}"
        return
    expected = dedent_example(example.after)
    assert fixed.fixed_text == expected
    again = fix_source("again.py", expected, _only(rule), unsafe=True)
    assert again.fixed_text is None, "the fix is not idempotent"


def _assert_first_finding(example: Invalid, finding: Finding) -> None:
    """Where, with which message and at which applicability the example says its first finding is reported."""
    if example.range is not None:
        reported = f"{finding.start.line}:{finding.start.column}-{finding.end.line}:{finding.end.column}"
        assert reported == example.range, f"reported at {reported}, expected {example.range}"
    if example.message is not None:
        assert finding.message == example.message
    if example.applicability is not None:
        assert finding.applicability is example.applicability


def test_the_example_harness_checks_range_message_and_applicability() -> None:
    """The optional expectations of an Invalid example can fail."""
    source = "import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.experimental_run_v2(f)\n"
    (finding,) = check_source("x.py", source, Config(select=("TFD401",))).findings
    right = Invalid("", range="3:3-3:22", message=finding.message, applicability=Applicability.SAFE)
    _assert_first_finding(right, finding)
    for wrong in (Invalid("", range="3:1-3:25"), Invalid("", message="other"), Invalid("", applicability=Applicability.UNSAFE)):
        with pytest.raises(AssertionError):
            _assert_first_finding(wrong, finding)


@pytest.mark.parametrize("rule", default_registry().rules, ids=lambda r: r.code)
def test_rule_is_complete(rule: type[Rule]) -> None:
    """A rule ships with its docs sections, enough examples, and a usable pre-filter."""
    sections = rule.doc_sections()
    for heading in ("What it does", "Why is this bad in distributed training?", "Fix safety", "References"):
        assert heading in sections, f"{rule.code} docstring lacks '## {heading}'"
    invalid = [e for e in rule.examples if isinstance(e, Invalid)]
    valid = [e for e in rule.examples if isinstance(e, Valid)]
    assert len(invalid) >= MIN_EXAMPLES and len(valid) >= MIN_EXAMPLES
    assert rule.triggers and all(rule.triggers)
    assert rule.name == rule.name.lower() and " " not in rule.name
