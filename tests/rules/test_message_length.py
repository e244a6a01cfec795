"""Messages are one readable line; the details are in `distfix explain`."""

from __future__ import annotations

import pytest

from fixer.config import Config
from fixer.engine import check_source
from fixer.registry import default_registry
from fixer.rule import Invalid, dedent_example

# Rules whose messages were cut down to a line; the others still say more (left for their owners).
SHORT_MESSAGE_RULES = ("TFD103",)
LONGEST = 300


@pytest.mark.parametrize("code", SHORT_MESSAGE_RULES)
def test_messages_stay_short(code):
    rule = default_registry().get(code)
    sources = [dedent_example(e.code) for e in rule.examples if isinstance(e, Invalid)]
    messages = [f.message for source in sources for f in check_source("x.py", source, Config(select=(code,))).findings]
    assert messages and max(map(len, messages)) <= LONGEST, max(messages, key=len)
