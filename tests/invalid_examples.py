"""Every rule's invalid examples as pytest parameters, for tests that check a pre-filter stage
never drops a file a rule reports."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from fixer.registry import default_registry
from fixer.rule import Invalid, dedent_example


def invalid_example_params() -> Iterator[Any]:
    """``pytest.param(rule, code)`` per invalid example, with the id CODE-NUMBER."""
    for rule in default_registry().rules:
        for number, example in enumerate(rule.examples, start=1):
            if isinstance(example, Invalid):
                yield pytest.param(rule, dedent_example(example.code), id=f"{rule.code}-{number}")
