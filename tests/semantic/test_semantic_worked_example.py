"""The worked example of docs/semantic-layer.md gives the answers the page says it gives."""

from __future__ import annotations

import re
from pathlib import Path

from semantic_helpers import Snippet

from fixer.semantic import CallResolver

PAGE = Path(__file__).resolve().parents[2] / "docs" / "semantic-layer.md"


def _example() -> Snippet:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## 0. Python facts") :]
    return Snippet(re.search(r"```python\n(.*?)```", section, re.S).group(1))


def test_the_table_of_the_page():
    s = _example()
    assert s.reach("model", 8) == [5, 7]
    assert s.reach("strategy", 4) == [3]
    assert s.reach("strategy", 11) == [1, 3]
    assert s.reach("strategy", 13) == [1, 3]


def test_value_of_and_conditions_as_the_page_says():
    s = _example()
    assert s.code(s.model.value_of(s.use("strategy", 4))) == "tf.distribute.MirroredStrategy()"
    known = s.model.conditions(s.use("strategy", 13))
    assert [(s.code(c.test), c.holds) for c in known] == [("strategy is None", False)]


def test_the_calls_of_the_example_run_no_function_of_the_file():
    s = _example()
    resolver = CallResolver(s.model)
    assert all(resolver.targets(call) == [] for call in s.index.calls)
    assert resolver.callees(s.module) == []
