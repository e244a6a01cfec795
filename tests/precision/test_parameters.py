"""One reading of a parameter list (fixer/tf/parameters.py) for every rule."""

from __future__ import annotations

import libcst as cst
import pytest

from fixer.tf.parameters import (
    call_position,
    every_parameter,
    has_parameter,
    named_parameters,
    parameter,
    positional_parameters,
    takes_receiver,
)

SIGNATURE = "def f(a, /, b, c=1, *args, d, e=2, **kw):\n    pass\n"


def _def(text: str = SIGNATURE) -> cst.FunctionDef:
    node = cst.parse_module(text).body[0]
    assert isinstance(node, cst.FunctionDef)
    return node


def _names(params: list[cst.Param]) -> list[str]:
    return [param.name.value for param in params]


def test_the_three_lists_of_one_signature():
    func = _def()
    assert _names(positional_parameters(func)) == ["a", "b", "c"]
    assert _names(named_parameters(func)) == ["a", "b", "c", "d", "e"]
    assert _names(every_parameter(func)) == ["a", "b", "c", "d", "e", "args", "kw"]


def test_a_bare_star_binds_no_name():
    assert _names(every_parameter(_def("def f(a, *, b):\n    pass\n"))) == ["a", "b"]


def test_lambdas_have_parameters_too():
    lam = cst.parse_expression("lambda x, *rest: x")
    assert isinstance(lam, cst.Lambda)
    assert has_parameter(lam, "rest")
    assert _names(named_parameters(lam)) == ["x"]


def test_has_parameter_counts_stars_and_parameter_does_not():
    func = _def()
    assert has_parameter(func, "args") and has_parameter(func, "kw") and has_parameter(func, "a")
    assert not has_parameter(func, "z")
    assert parameter(func, "args") is None
    found = parameter(func, "e")
    assert found is not None and found.default is not None


@pytest.mark.parametrize(
    ("name", "skip_first", "expected"),
    [
        ("a", False, 0),
        ("c", False, 2),
        ("c", True, 1),
        ("a", True, None),  # the receiver: no call argument gives it
        ("d", False, None),  # keyword-only
        ("args", False, None),
        ("z", False, None),
    ],
)
def test_call_position(name, skip_first, expected):
    assert call_position(_def(), name, skip_first=skip_first) == expected


def test_takes_receiver_by_the_first_parameter_name():
    assert takes_receiver(_def("def m(self, x):\n    pass\n"))
    assert takes_receiver(_def("def m(cls, /, x):\n    pass\n"))
    assert not takes_receiver(_def("def f(x, self):\n    pass\n"))
    assert not takes_receiver(_def("def f():\n    pass\n"))
