"""Where the weights of a functional Keras model are made: `Model(inputs, outputs)` creates none;
the layers reached from its arguments do, when they are called (on a symbolic input or on a
batch) or, for a `keras.applications` model, when they are constructed. A move of the `Model(...)`
line alone into `strategy.scope()` leaves those weights outside it, and `fit` then raises
ValueError under both Kerases (benchmarks/probe_functional_layers_outside_scope.py,
benchmarks/probe_ledger15b_premises.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.calls import calls_within

if TYPE_CHECKING:
    from collections.abc import Callable

    from fixer.tf.model import TFModel

# Constructors of objects whose call makes weights (a layer, or a model used as one).
_LAYER_PREFIXES = ("keras.layers.", "keras.applications.", "keras.Model", "keras.models.", "keras.Sequential")
# Constructors that make their weights at once (a pretrained application model).
_BUILT_ON_CONSTRUCTION = ("keras.applications.",)
# How far the walk back from `outputs` goes (a layer stack is a chain of `x = layer(x)` lines).
_MAX_STEPS = 200


def weight_statements(
    tf: TFModel, model_call: cst.Call, kept: Callable[[cst.CSTNode], bool]
) -> list[cst.BaseStatement]:
    """The statements, in source order, that make weights of the functional model ``model_call``
    builds, among those ``kept(statement)`` says stay where they are (not moved, not in a scope):
    the lines that call its layers, the lines before them that call the same layer objects, and
    the construction of an application model it wraps. Empty when nothing is known."""
    found: dict[int, cst.BaseStatement] = {}
    seen: set[int] = set()
    pending = [n for arg in model_call.args for n in _names(arg.value)]
    steps = 0
    while pending and steps < _MAX_STEPS:
        steps += 1
        use = pending.pop()
        assigned = tf.semantic.only_binding(use)
        if assigned is None or assigned.value is None or id(assigned.statement) in seen:
            continue
        seen.add(id(assigned.statement))
        statement = tf.index.statement_of(assigned.node)
        for call in calls_within(assigned.value):
            layer = _layer_object(tf, call)
            if layer is None:
                continue
            if kept(statement):
                found[id(statement)] = statement
            for earlier in _earlier_uses(tf, layer, model_call):
                if kept(earlier):
                    found[id(earlier)] = earlier
        pending.extend(_names(assigned.value))
    return sorted(found.values(), key=lambda s: tf.index.order[s])


def _layer_object(tf: TFModel, call: cst.Call) -> cst.Name | cst.Call | None:
    """The layer ``call`` calls: the inline constructor (`Dense(2)(x)`) or the name of one."""
    func = call.func
    if isinstance(func, cst.Call):
        return func if (tf.names.callee(func) or "").startswith(_LAYER_PREFIXES) else None
    if isinstance(func, cst.Name):
        value = tf.semantic.value_of(func)
        if isinstance(value, cst.Call) and (tf.names.callee(value) or "").startswith(_LAYER_PREFIXES):
            return func
    return None


def _earlier_uses(tf: TFModel, layer: cst.Name | cst.Call, model_call: cst.Call) -> list[cst.BaseStatement]:
    """Statements before ``model_call`` that call the named layer object, and the construction of
    an application model (its weights are made there)."""
    if not isinstance(layer, cst.Name):
        return []
    assigned = tf.semantic.only_binding(layer)
    if assigned is None or not isinstance(assigned.value, cst.Call):
        return []
    statements: list[cst.BaseStatement] = []
    if (tf.names.callee(assigned.value) or "").startswith(_BUILT_ON_CONSTRUCTION):
        statements.append(tf.index.statement_of(assigned.node))
    for name in tf.index.names.get(layer.value, ()):
        parent = tf.index.parent.get(name)
        if (
            isinstance(parent, cst.Call)
            and parent.func is name
            and tf.index.before(parent, model_call)
            and tf.semantic.only_binding(name) is assigned
        ):
            statements.append(tf.index.statement_of(parent))
    return statements


def _names(node: cst.CSTNode) -> list[cst.Name]:
    """The names ``node`` reads (not attribute names or keywords)."""
    found: list[cst.Name] = []

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

    node.visit(_Reads())
    return found
