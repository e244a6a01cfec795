"""Whether a strategy expression may be None where a fix would call its `scope()`.

A rewrite that wraps code in `with <strategy>.scope():` must not run where the strategy is None:
a parameter whose default is None, a None that some call of the module passes, or a program that
tests `if strategy is None:` (a single-device path) would then raise
`AttributeError: 'NoneType' object has no attribute 'scope'` where it ran before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.tf.bindings import assignments_to
from fixer.tf.names import dotted_name
from fixer.tf.parameters import parameter

if TYPE_CHECKING:
    from fixer.semantic.bindings import Binding
    from fixer.tf.model import TFModel


def may_be_none(tf: TFModel, key: str, at: cst.CSTNode) -> bool:
    """``key`` (``strategy`` or ``self.<attr>``) may hold None at ``at``."""
    if _tested_against_none(tf, key):
        return True
    if key.startswith("self.") and key.count(".") == 1:
        return any(_value_may_be_none(tf, assign.value, assign) for assign in assignments_to(tf.index, key))
    if "." in key:
        return False
    return any(_binding_may_be_none(tf, binding) for binding in tf.semantic.reaching(key, at))


def _tested_against_none(tf: TFModel, key: str) -> bool:
    """An `if` of the module compares ``key`` with None (`if key is None:`, `key is not None`)."""
    for branch in tf.index.ifs:
        pending: list[cst.CSTNode] = [branch.test]
        while pending:
            node = pending.pop()
            if isinstance(node, cst.Comparison) and dotted_name(node.left) == key:
                if any(isinstance(c.comparator, cst.Name) and c.comparator.value == "None" for c in node.comparisons):
                    return True
            pending.extend(node.children)
    return False


def _value_may_be_none(tf: TFModel, value: cst.BaseExpression, near: cst.CSTNode) -> bool:
    """``value`` (assigned at ``near``) is None, or a name that may be None there."""
    if isinstance(value, cst.Name):
        if value.value == "None":
            return True
        return any(_binding_may_be_none(tf, binding) for binding in tf.semantic.reaching(value.value, near))
    return False


def _binding_may_be_none(tf: TFModel, binding: Binding) -> bool:
    """``binding`` sets None: `= None`, a parameter defaulting to None or given None by a caller."""
    statement, name, value = binding.statement, binding.name, binding.value
    if binding.kind is BindingKind.PARAMETER and isinstance(statement, cst.FunctionDef):
        param = parameter(statement, name)
        if param is not None and isinstance(param.default, cst.Name) and param.default.value == "None":
            return True
        passed = tf.replica.arguments_for(statement, name) or ()
        return any(isinstance(arg, cst.Name) and arg.value == "None" for _, arg in passed) or _passes_none(
            tf, statement, name
        )
    return isinstance(value, cst.Name) and value.value == "None"


def _passes_none(tf: TFModel, func: cst.FunctionDef, name: str) -> bool:
    """A call of ``func``'s class (for `__init__`) passes None for ``name`` by keyword or position."""
    if func.name.value != "__init__":
        return False
    owner = tf.index.method_class(func)
    if owner is None:
        return False
    params = [p.name.value for p in func.params.params]
    position = params.index(name) - 1 if name in params else -1  # `self` is not passed
    for call in tf.index.calls:
        if not (isinstance(call.func, cst.Name) and call.func.value == owner.name.value):
            continue
        positional = [a for a in call.args if a.keyword is None and not a.star]
        for arg in call.args:
            given = (arg.keyword is not None and arg.keyword.value == name) or (
                arg.keyword is None and 0 <= position < len(positional) and positional[position] is arg
            )
            if given and isinstance(arg.value, cst.Name) and arg.value.value == "None":
                return True
    return False
