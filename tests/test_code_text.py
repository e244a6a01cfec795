"""The pre-filter's third stage: comments and docstrings blanked, nothing else, no finding lost."""

from __future__ import annotations

import ast

import pytest

from fixer.ast_facts import ModuleFacts
from fixer.code_text import code_text
from fixer.config import Config
from fixer.engine import check_source, rules_in_code, selected_rules
from fixer.registry import default_registry
from invalid_examples import invalid_example_params


def _blanked(text: str) -> str:
    result = code_text(text, ModuleFacts.of(ast.parse(text)).docstrings)
    assert len(result) == len(text)  # every other character stays where it was
    assert [i for i, c in enumerate(result) if c in "\r\n"] == [i for i, c in enumerate(text) if c in "\r\n"]
    return result


def test_comments_and_docstrings_become_spaces():
    text = '"""Runs under MirroredStrategy."""\nx = 1  # strategy.scope()\n\n\ndef f():\n    """Strategy."""\n    return 2\n'
    result = _blanked(text)
    assert "Strategy" not in result and "scope" not in result
    assert "x = 1" in result and "return 2" in result


@pytest.mark.parametrize(
    "text",
    [
        's = "a # MirroredStrategy"\n',
        "s = f'{x} # MirroredStrategy'\n",
        's = ("a"  # a comment\n     "# MirroredStrategy")\n',
        's = """\n# MirroredStrategy\n"""\n',
        'x = f(1, "# é")  # é\ny = "é # MirroredStrategy"\n',
        "s = b'# MirroredStrategy'\r\n",
    ],
)
def test_a_hash_inside_a_string_is_not_a_comment(text):
    assert "MirroredStrategy" in _blanked(text)


def test_a_comment_after_a_string_holding_a_hash_is_blanked():
    result = _blanked('s = "#"  # MirroredStrategy\n')
    assert "MirroredStrategy" not in result and '"#"' in result


def test_non_ascii_text_before_a_docstring_keeps_the_code():
    text = 'x = "é"; y = MirroredStrategy()\n\n\nclass A:\n    """é Strategy."""\n'
    result = _blanked(text)
    assert "y = MirroredStrategy()" in result and "é Strategy" not in result


def test_a_file_whose_only_strategy_is_in_comments_is_not_analysed():
    text = "# with strategy.scope():\nimport tensorflow as tf\nmodel = tf.keras.Model()  # MirroredStrategy\n"
    rules = selected_rules("t.py", text, Config(), default_registry())
    assert rules  # the text stages keep it
    assert rules_in_code(rules, text, ast.parse(text)) == []


@pytest.mark.parametrize(("rule", "code"), list(invalid_example_params()))
def test_the_third_stage_keeps_every_invalid_example(rule, code):
    assert rule in rules_in_code([rule], code, ast.parse(code))


def test_a_syntax_error_is_still_reported_when_the_text_may_fire():
    result = check_source("t.py", "s = tf.distribute.MirroredStrategy(\n")
    assert result.error and result.findings[0].code == "TFD000"
