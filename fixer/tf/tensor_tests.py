"""Which `if`/`while` tests hold a tensor: decided by the graph at run time, not by Python at trace time.

Inside a `tf.function`, autograph turns an `if` or `while` whose test is a tensor into `tf.cond`
or `tf.while_loop`; a test on a Python value (a config int, a flag) is decided once, when the
function is traced, and leaves no condition in the graph. Only the first kind matters to a rule
about what runs under a graph condition, so a test counts as a tensor only with evidence: a
TensorFlow op, an optimizer's `iterations`, or a name whose value is one of those (a
`tf.Variable` step counter, `step = tf.cast(...)`, a tensor given to `strategy.run`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.tf.bindings import assignments_to
from fixer.tf.names import dotted_name
from fixer.tf.parameters import call_position, takes_receiver

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

# TensorFlow calls that return Python values (or objects that are no tensor) even in a graph.
_PYTHON_VALUED = (
    "tensorflow.distribute.",
    "tensorflow.config.",
    "tensorflow.io.gfile.",
    "tensorflow.test.",
    "tensorflow.sysconfig.",
    "tensorflow.executing_eagerly",
    "tensorflow.compat.v1.executing_eagerly",
    "tensorflow.inside_function",
    "tensorflow.is_tensor",
    "tensorflow.get_static_value",
    "tensorflow.TensorShape",
    "tensorflow.as_dtype",
)
_MAX_DEPTH = 4


def is_tensor_test(model: TFModel, test: cst.BaseExpression) -> bool:
    """True when ``test`` (an `if`/`while` test) is known to hold a tensor or a variable."""
    return _tensor_valued(model, test, 0)


def _tensor_valued(model: TFModel, expr: cst.BaseExpression, depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if isinstance(expr, cst.Call):
        return _tensor_call(model, expr)
    if isinstance(expr, cst.Attribute):
        if expr.attr.value == "iterations":  # a Keras optimizer's step counter is a variable
            return True
        return any(_tensor_valued(model, a.value, depth + 1) for a in assignments_to(model.index, dotted_name(expr)))
    if isinstance(expr, cst.Name):
        return _name_holds_tensor(model, expr, depth)
    if isinstance(expr, cst.Comparison):
        # `x is None`, `k in table`: Python's own answer, whatever `x` is.
        if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons):
            return False
        return _tensor_valued(model, expr.left, depth) or any(
            _tensor_valued(model, c.comparator, depth) for c in expr.comparisons
        )
    if isinstance(expr, cst.BinaryOperation):
        return _tensor_valued(model, expr.left, depth) or _tensor_valued(model, expr.right, depth)
    if isinstance(expr, cst.BooleanOperation):
        return _tensor_valued(model, expr.left, depth) or _tensor_valued(model, expr.right, depth)
    if isinstance(expr, cst.UnaryOperation):
        return _tensor_valued(model, expr.expression, depth)
    if isinstance(expr, cst.Subscript):
        return _tensor_valued(model, expr.value, depth)
    return False


def _tensor_call(model: TFModel, call: cst.Call) -> bool:
    """A TensorFlow op (`tf.equal`, `tf.math.floormod`, `tf.Variable`, `tf.reduce_any` ...)."""
    callee = model.names.callee(call) or ""
    return callee.startswith("tensorflow.") and not callee.startswith(_PYTHON_VALUED)


def _name_holds_tensor(model: TFModel, name: cst.Name, depth: int) -> bool:
    """``name``'s value, as the bindings that can reach this use say, is a tensor or variable."""
    for binding in model.semantic.resolve(name):
        if binding.value is not None and _tensor_valued(model, binding.value, depth + 1):
            return True
        if binding.kind is BindingKind.PARAMETER and _run_argument_is_tensor(
            model, binding.scope.node, name.value, depth
        ):
            return True
    return False


def _run_argument_is_tensor(model: TFModel, func: cst.CSTNode, parameter: str, depth: int) -> bool:
    """``func`` is run by `strategy.run(func, args=(...))` and gives ``parameter`` a tensor there."""
    if not isinstance(func, cst.FunctionDef):
        return False
    position = call_position(func, parameter, skip_first=takes_receiver(func))
    for run in model.replica.run_calls:
        if func not in run.targets or not isinstance(run.args, (cst.Tuple, cst.List)):
            continue
        elements = run.args.elements
        if (
            position is not None
            and position < len(elements)
            and _tensor_valued(model, elements[position].value, depth + 1)
        ):
            return True
    return False
