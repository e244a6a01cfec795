"""Messages are one short line; the details (measurements, error texts, full remedies) are in `distfix explain`."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.registry import default_registry
from fixer.rule import Invalid, dedent_example

# About two lines of an 100-column terminal or an editor's hover: a finding's message says what is
# wrong and what to do, with the names from the code, and no more.
LONGEST = 200
CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def _too_long(messages: list[str]) -> list[str]:
    return [message for message in messages if len(message) > LONGEST or "\n" in message]


@pytest.mark.parametrize("code", [rule.code for rule in default_registry().rules])
def test_the_messages_of_every_example_stay_short(code):
    rule = default_registry().get(code)
    sources = [dedent_example(e.code) for e in rule.examples if isinstance(e, Invalid)]
    messages = [f.message for source in sources for f in check_source("x.py", source, Config(select=(code,))).findings]
    assert messages, f"{code}'s invalid examples report nothing"
    assert _too_long(messages) == []


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.py")), ids=lambda path: path.relative_to(CORPUS).as_posix())
def test_the_messages_on_the_corpus_stay_short(path):
    messages = [f.message for f in check_source(str(path), path.read_text(encoding="utf-8")).findings]
    assert _too_long(messages) == []
