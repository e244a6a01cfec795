"""One table of where names are assigned (fixer/tf/bindings.py) for every rule."""

from __future__ import annotations

import textwrap

import libcst as cst

from fixer.tf.bindings import assigned_values, assignments_to
from fixer.tf.index import ModuleIndex

SOURCE = textwrap.dedent(
    """
    opt = make(1)
    a = opt = make(2)
    opt += 1
    x: int = 3
    first, second = 4, 5

    class Trainer:
        def __init__(self):
            self.opt = make(6)

    def step():
        opt = make(7)
    """
)


def _index() -> ModuleIndex:
    return ModuleIndex.build(cst.parse_module(SOURCE))


def _code(nodes) -> list[str]:
    return [cst.Module([]).code_for_node(node) for node in nodes]


def test_every_plain_assignment_of_a_name_in_source_order_whatever_its_scope():
    assert _code(assigned_values(_index(), "opt")) == ["make(1)", "make(2)", "make(7)"]


def test_attributes_are_keys_of_their_own():
    assert _code(assigned_values(_index(), "self.opt")) == ["make(6)"]


def test_augmented_annotated_and_tuple_targets_are_not_plain_bindings():
    index = _index()
    assert assignments_to(index, "x") == []
    assert assignments_to(index, "first") == []
    assert assignments_to(index, "missing") == []
    assert assignments_to(index, None) == []


def test_a_statement_binding_a_name_twice_is_listed_once():
    index = ModuleIndex.build(cst.parse_module("a = a = 1\n"))
    assert len(assignments_to(index, "a")) == 1
