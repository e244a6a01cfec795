"""The two-stage pre-filter: decide from a file's text alone whether a rule can fire there.

Stage 1 is a byte scan for each rule's ``triggers`` (plain texts; one must occur). Stage 2 asks
for each rule's ``needs``: :class:`Evidence` patterns that must all match somewhere in the text,
for example :data:`STRATEGY` ("this file can hold a tf.distribute strategy"). Both stages are
lossless by construction: a trigger or an evidence pattern describes text without which the
rule's ``check`` provably reports nothing, and a pattern matches *more* than the code it stands
for (it also matches inside comments and strings, and across any spacing Python allows).
The test suite runs every rule example and corpus file through both stages.

Why regular expressions and not CPython's ``ast`` or ``tokenize``: the evidence is a handful of
identifiers, and a compiled pattern scans a file in microseconds, where even ``ast.parse``
costs milliseconds and ``tokenize`` tens of milliseconds on a 2,000-line file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.evidence import Evidence
from fixer.tf.strategies import STRATEGY_ONLY_ATTRIBUTES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fixer.rule import Rule

# What Python allows between the parts of `a . b (`: spaces, newlines inside brackets, a
# backslash continuation, or a comment that ends such a line.
_GAP = r"(?:[\s\\]|#[^\n]*\n)*"


def _attribute(name: str) -> tuple[str, str]:
    return name, r"\." + _GAP + name + r"\b"


# Everything fixer.tf.strategies.StrategyModel recognises a strategy by, and nothing narrower:
# a strategy class or `get_strategy` named anywhere (constructors, factories, annotations and
# imports all spell it), an attribute only a strategy has, `x.scope(` (a `with` block entering
# it), and a call passing `args=` (the signature of `strategy.run(fn, args=...)`).
# Replica functions and scope blocks are derived from strategies, so rules about replica
# context need this evidence too.
STRATEGY = Evidence(
    "strategy",
    (
        ("Strategy", None),
        ("get_strategy", None),
        *(_attribute(name) for name in sorted(STRATEGY_ONLY_ATTRIBUTES)),
        ("scope", r"\." + _GAP + r"scope" + _GAP + r"\("),
        ("args", r"[(,]" + _GAP + r"args" + _GAP + r"="),
    ),
)


def rule_may_fire(rule: type[Rule], source: str | bytes) -> bool:
    """Both stages for one rule: one of its triggers occurs and every evidence it needs matches."""
    if isinstance(source, bytes):
        triggers: Iterable[str | bytes] = _encoded_triggers(rule)
    else:
        triggers = rule.triggers
    return any(t in source for t in triggers) and all(need.found_in(source) for need in rule.needs)  # type: ignore[operator]


def _encoded_triggers(rule: type[Rule]) -> tuple[bytes, ...]:
    cached = _ENCODED.get(rule)
    if cached is None:
        cached = _ENCODED[rule] = tuple(t.encode() for t in rule.triggers)
    return cached


_ENCODED: dict[type, tuple[bytes, ...]] = {}


class FilterPlan:
    """The enabled rules' triggers and needs, arranged for scanning many files quickly."""

    def __init__(self, rules: Iterable[type[Rule]]) -> None:
        self.rules = tuple(rules)
        self.triggers = tuple({t for rule in self.rules for t in _encoded_triggers(rule)})
        self.importer_triggers = tuple({t.encode() for rule in self.rules for t in rule.importer_triggers})

    def importer_candidate(self, data: bytes) -> bool:
        """A rule may fire on this file when a project script imports it under a strategy."""
        return any(t in data for t in self.importer_triggers)

    def stage(self, data: bytes) -> int:
        """How far a file gets: 0 no trigger at all, 1 a trigger but no rule's needs, 2 kept."""
        # Rules share triggers (85 of the default rules' are 49 texts): each is looked for once
        # per file, which counts on notebooks of megabytes (vertex-ai-samples: 47 MB, 0.9 s before).
        seen: dict[bytes, bool] = {}
        if not any(_contains(seen, t, data) for t in self.triggers):
            return 0
        found: dict[Evidence, bool] = {}
        for rule in self.rules:
            if not any(_contains(seen, t, data) for t in _encoded_triggers(rule)):
                continue
            if all(_memo(found, need, data) for need in rule.needs):
                return 2
        return 1


def _contains(seen: dict[bytes, bool], text: bytes, data: bytes) -> bool:
    if text not in seen:
        seen[text] = text in data
    return seen[text]


def _memo(found: dict[Evidence, bool], need: Evidence, data: bytes) -> bool:
    # Several rules need the same evidence: scan for it once per file.
    if need not in found:
        found[need] = need.found_in(data)
    return found[need]
