"""The rule base class, its embedded examples, and the context a rule reports through."""

from __future__ import annotations

import importlib
import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.evidence import Evidence
    from fixer.facts import Fact


@dataclass(frozen=True)
class Valid:
    """Code the rule must not flag."""

    code: str
    note: str = ""


@dataclass(frozen=True)
class Invalid:
    """Code the rule must flag; ``after`` is the expected text after its fixes (None: no edit).

    ``count`` is how many findings the rule reports on this code (default: one). The first
    finding (in source order) can be pinned down further, as Fixit's ``Invalid(range=...,
    expected_message=...)`` does: ``range`` is where it is reported, ``"LINE:COL-LINE:COL"``
    as ``distfix check`` prints positions (1-based; the end is exclusive), ``message`` its exact
    message, and ``applicability`` the applicability it is reported with.
    """

    code: str
    after: str | None = None
    count: int = 1
    note: str = ""
    range: str | None = None
    message: str | None = None
    applicability: Applicability | None = None


EXAMPLES_SUFFIX = "_examples"


def examples_module(rule_module: str) -> str:
    """The module holding a rule module's examples: its sibling ``<module>_examples``."""
    return rule_module + EXAMPLES_SUFFIX


class _SiblingExamples:
    """``Rule.examples`` for a rule whose class does not list them: its sibling module's ``EXAMPLES``.

    Examples come after the logic, in ``<rule module>_examples.py``, so a reader meets the
    check first; they are imported on first use only (tests, ``distfix explain``), never by
    ``distfix check``. A rule module without that sibling has no examples.
    """

    def __get__(self, instance: object, owner: type) -> tuple[Valid | Invalid, ...]:
        name = examples_module(owner.__module__)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # the examples module exists but imports something missing
                raise
            return ()
        examples: tuple[Valid | Invalid, ...] = module.EXAMPLES
        return examples


class Rule:
    """One check. Subclasses set the class attributes and implement :meth:`check`.

    The class docstring holds the documentation in fixed sections (``## What it does``,
    ``## Why is this bad in distributed training?``, ``## Fix safety``, ``## Runtime evidence``,
    ``## References``); ``distfix explain`` renders it together with the first example.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    fix_title: ClassVar[str | None] = None
    applicability: ClassVar[Applicability] = Applicability.UNSAFE
    # The pre-filter (fixer/prefilter.py) skips a file, or a rule on a file, from its text alone.
    # A rule declares what it cannot fire without, in two stages:
    # - ``triggers``: plain texts, at least one of which must occur (stage 1, a byte scan).
    #   Choose texts every finding's code must contain, as specific as possible: a name the
    #   rule reports (``"TF_CONFIG"``, ``"ClusterSpec"``), not a fragment ordinary TensorFlow
    #   code is full of (``"scope("`` also matches every ``tf.name_scope(``).
    # - ``needs``: fixer.evidence.Evidence patterns that must all match (stage 2), e.g.
    #   ``needs = (STRATEGY,)`` for a rule that only reports where a tf.distribute strategy,
    #   its scope or a replica function is in play. Add an Evidence to fixer/prefilter.py when
    #   a new rule depends on a different condition (say, a cluster resolver).
    # Both must over-approximate: tests/test_prefilter_and_cache.py checks that every Invalid
    # example and corpus finding passes both stages, so declare an example for each way the
    # rule can fire.
    triggers: ClassVar[tuple[str, ...]]
    needs: ClassVar[tuple[Evidence, ...]] = ()
    # Texts that make a file a candidate without its own triggers and needs when another file
    # of the project imports it under a strategy (fixer/tf/importers.py): a helper module whose
    # mistake the importing script's strategy makes (`.shuffle(` in a dataset builder).
    importer_triggers: ClassVar[tuple[str, ...]] = ()
    # The pre-filter's last stage, on CPython's tree (fixer/facts.py): structures the check starts
    # from (a scope block, a replica function...), all of which must hold for it to run. Like
    # ``needs`` they over-approximate; tests/test_facts.py runs every Invalid example through them.
    facts: ClassVar[tuple[Fact, ...]] = ()
    # Invalid and Valid examples, which tests/test_rule_examples.py runs: ``EXAMPLES`` in the sibling
    # module ``<rule module>_examples.py``. A class that still lists ``examples`` itself overrides it.
    examples: ClassVar[tuple[Valid | Invalid, ...]] = _SiblingExamples()  # type: ignore[assignment]

    def check(self, ctx: RuleContext) -> None:
        """Report every violation in ``ctx``'s module through ``ctx.report``."""
        raise NotImplementedError

    # Documentation --------------------------------------------------------------------------

    @classmethod
    def family(cls) -> str:
        """The family is the package the rule lives in (``placement``, ``cluster``...)."""
        parts = cls.__module__.split(".")
        return parts[1] if len(parts) > 2 else "misc"

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The docstring's ``## Heading`` sections, in order."""
        doc = inspect.cleandoc(cls.__doc__ or "")
        sections: dict[str, str] = {}
        current = "Summary"
        lines: list[str] = []
        for line in doc.splitlines():
            match = re.match(r"^##\s+(.*)$", line)
            if match:
                sections[current] = "\n".join(lines).strip()
                current, lines = match.group(1).strip(), []
            else:
                lines.append(line)
        sections[current] = "\n".join(lines).strip()
        return {k: v for k, v in sections.items() if v}

    @classmethod
    def first_invalid(cls) -> Invalid | None:
        """The example shown under *Example* / *Use instead*."""
        return next((e for e in cls.examples if isinstance(e, Invalid)), None)

    @classmethod
    def has_fix(cls) -> bool:
        """True when the rule can produce an edit (safe or unsafe)."""
        return cls.applicability is not Applicability.DISPLAY_ONLY


def dedent_example(code: str) -> str:
    """Examples are written indented in their tuple; store them flush left with a final newline."""
    return textwrap.dedent(code).lstrip("\n")
