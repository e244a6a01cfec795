"""One table of where names are assigned (fixer/tf/bindings.py) for every rule."""

from __future__ import annotations

import textwrap

import libcst as cst

from fixer.tf.bindings import assigned_values, assignments_in, assignments_to
from fixer.tf.classes import bases_in_module, subclasses_in_module
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


def test_assignments_in_a_function_are_the_ones_whose_nearest_function_is_it():
    index = _index()
    step = index.functions_by_name["step"][0]
    assert _code(a.value for a in assignments_in(index, "opt", step)) == ["make(7)"]
    assert _code(a.value for a in assignments_in(index, "opt", None)) == ["make(1)", "make(2)"]
    assert assignments_in(index, None, None) == []


def test_the_tables_belong_to_their_index():
    """Two indexes of the same text answer from their own nodes (no cache keyed elsewhere)."""
    first, second = _index(), _index()
    assert assignments_to(first, "opt")[0] is not assignments_to(second, "opt")[0]


def test_class_bases_are_the_module_classes_a_class_derives_from_nearest_first():
    index = ModuleIndex.build(
        cst.parse_module("class A: pass\nclass B(A): pass\nclass C(B, Other): pass\nclass D(D): pass\n")
    )
    a, b, c, d = index.classes
    assert bases_in_module(index, c) == [b, a]
    assert bases_in_module(index, a) == []
    assert bases_in_module(index, d) == []  # a class named after its base (imported) is not its own base
    assert subclasses_in_module(index, a) == [b, c]
