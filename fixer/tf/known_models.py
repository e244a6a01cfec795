"""Whether an expression is known to hold a Keras model: built, loaded, annotated or constructed as one.

Used where a method name alone is not enough: `predict` is also the forward pass of many other
classes (a detection model that subclasses a Keras *Layer*, an ensemble wrapper), so TFD106 reports
it only on an object the module shows to be a Keras `Model`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.tf.keras_models import KERAS_MODELS, keras_model_base

if TYPE_CHECKING:
    from fixer.semantic.bindings import Binding
    from fixer.tf.model import TFModel

# What calling gives a Keras model (prefixes of canonical names; `keras.models.` covers
# `Sequential`, `Model`, `load_model` and `clone_model`).
_MODEL_CALLS = ("keras.Sequential", "keras.Model", "keras.models.", "keras.applications.", "keras.saving.load_model")


def known_keras_model(tf: TFModel, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """``expr`` (a name, or `self.<attr>` in a method) holds a Keras model on every binding that
    reaches it; False for an unknown parameter, an unbound name or anything else. A parameter is
    known by its annotation or by what every call of its function in the module passes."""
    if depth > 3:
        return False
    if isinstance(expr, cst.Name):
        bindings = tf.semantic.resolve(expr)
        return bool(bindings) and all(_binds_a_model(tf, binding, depth) for binding in bindings)
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
        values = _self_attribute_values(tf, expr)
        return bool(values) and all(isinstance(v, cst.Call) and constructs_a_model(tf, v) for v in values)
    return False


def constructs_a_model(tf: TFModel, call: cst.Call) -> bool:
    """``call`` builds or loads a Keras model: a Keras constructor or loader, a Keras model class of
    this module, or a function of another module of the project that returns one."""
    qualified = tf.names.callee(call)
    if qualified is not None and qualified.startswith(_MODEL_CALLS):
        return True
    if isinstance(call.func, cst.Name):
        for cls in tf.index.classes:
            if cls.name.value == call.func.value and keras_model_base(tf.index, tf.names, cls) is not None:
                return True
    returned = tf.project.returned(call.func)
    return returned is not None and returned.kind == "model"


def _binds_a_model(tf: TFModel, binding: Binding, depth: int) -> bool:
    if binding.kind is BindingKind.PARAMETER:
        param = binding.node
        annotation = param.annotation if isinstance(param, cst.Param) else None
        if annotation is not None:
            return tf.names.qualified(annotation.annotation) in KERAS_MODELS
        if not isinstance(binding.statement, cst.FunctionDef):
            return False
        passed = tf.replica.arguments_for(binding.statement, binding.name)
        return bool(passed) and all(
            value is not None and known_keras_model(tf, value, depth + 1) for _, value in passed or ()
        )
    return isinstance(binding.value, cst.Call) and constructs_a_model(tf, binding.value)


def _self_attribute_values(tf: TFModel, attribute: cst.Attribute) -> list[cst.BaseExpression]:
    """What the methods of ``attribute``'s class assign to `self.<attr>`."""
    func = tf.index.enclosing_function(attribute)
    owner = tf.index.method_class(func) if isinstance(func, cst.FunctionDef) else None
    if owner is None:
        return []
    name = attribute.attr.value
    values: list[cst.BaseExpression] = []
    for assign in tf.index.assigns:
        if not isinstance(assign, cst.Assign) or not tf.index.is_within(assign, owner):
            continue
        for target in assign.targets:
            node = target.target
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.value.value == "self"
                and node.attr.value == name
            ):
                values.append(assign.value)
    return values
