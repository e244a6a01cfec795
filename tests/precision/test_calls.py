"""One argument lookup (fixer/tf/calls.py) for every rule."""

from __future__ import annotations

import libcst as cst
import pytest

from fixer.tf.calls import argument, argument_value


def _call(text: str) -> cst.Call:
    node = cst.parse_expression(text)
    assert isinstance(node, cst.Call)
    return node


@pytest.mark.parametrize(
    ("text", "position", "keywords", "expected"),
    [
        ("f(a, b)", 1, ("y",), "b"),
        ("f(a, y=b)", 1, ("y",), "b"),
        ("f(a, z=b)", 1, ("y", "z"), "b"),
        ("f(a)", 1, ("y",), None),
        ("f(*rest, b)", 1, ("y",), None),  # the star hides which argument lands at 1
        ("f(a, b, **kw)", 1, ("y",), "b"),
        ("f(a, b)", None, ("y",), None),
        ("f(a, b)", -1, ("y",), None),
    ],
)
def test_argument_by_keyword_then_position(text, position, keywords, expected):
    value = argument_value(_call(text), position, *keywords)
    assert (cst.Module([]).code_for_node(value) if value is not None else None) == expected


def test_argument_returns_the_arg_node():
    call = _call("f(a, y=b)")
    assert argument(call, 1, "y") is call.args[1]
