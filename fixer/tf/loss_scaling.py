"""Shared analysis for the reduction rules: how a replica function's loss is scaled.

Not a rule: TFD301 needs it to choose the all-reduce op, TFD303 to find unscaled losses.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.targets import assignment_targets
from fixer.tf.bindings import assignments_to
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike
    from fixer.tf.model import TFModel

_MEANS = frozenset({"tensorflow.reduce_mean", "tensorflow.math.reduce_mean", "keras.ops.mean"})
_SUMS = frozenset({"tensorflow.reduce_sum", "tensorflow.math.reduce_sum", "keras.ops.sum"})
_AVERAGE = frozenset({"tensorflow.nn.compute_average_loss", "tensorflow.nn.scale_regularization_loss"})
_PASS_THROUGH = frozenset({"tensorflow.grad_pass_through", "tensorflow.custom_gradient.grad_pass_through"})
_PER_REPLICA_COUNTS = _SUMS | frozenset({"tensorflow.size", "tensorflow.math.count_nonzero"})


class Scaling(enum.Enum):
    """What the loss given to `tape.gradient` is, per replica."""

    GLOBAL = "divided by the global batch"  # compute_average_loss, reduce_sum / GLOBAL
    MEAN = "a per-replica mean"  # tf.reduce_mean, keras.ops.mean
    PER_EXAMPLE = "a per-example vector"  # keras.losses.mse(...), reduction NONE
    REPLICA_SUM = "a per-replica sum over the replicas"  # reduce_sum(x) / num_replicas_in_sync
    UNKNOWN = "unknown"


def last_assignment(tf: TFModel, func: FunctionLike, name: str, before: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of the last plain ``name = value`` in ``func`` that can reach ``before``.

    Flow-aware (fixer/semantic): an assignment in an arm that returns, or one a later statement
    always replaces, does not reach.
    """
    found: cst.BaseExpression | None = None
    for binding in tf.semantic.reaching(name, before):
        statement = binding.statement
        if binding.scope.node is (func or tf.module) and isinstance(statement, cst.Assign):
            if any(t.target is binding.node for t in statement.targets):
                found = statement.value
    return found


def gradient_calls(tf: TFModel, func: FunctionLike) -> list[cst.Call]:
    """`<tape>.gradient(loss, ...)` calls whose nearest function is ``func``."""
    return [
        call
        for call in tf.replica.calls_in(func)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "gradient" and call.args
    ]


def loss_origin(tf: TFModel, func: FunctionLike, gradient: cst.Call) -> tuple[cst.BaseExpression | None, FunctionLike]:
    """The expression that computed the loss given to ``gradient`` and the function holding it."""
    loss = gradient.args[0].value
    if isinstance(loss, cst.Name):
        value = last_assignment(tf, func, loss.value, gradient)
        if value is None:
            return None, func
        loss = _accumulated_term(tf, func, loss.value, value, gradient) or value
    if isinstance(loss, cst.Call):
        helper = loss_helper(tf, func, loss)
        if helper is not None:
            returned = _returned_expression(tf, helper)
            if returned is not None:
                return returned, helper
    return loss, func


def _accumulated_term(
    tf: TFModel, func: FunctionLike, name: str, start: cst.BaseExpression, gradient: cst.Call
) -> cst.BaseExpression | None:
    """``loss = 0.0`` then one ``loss += term`` (in a loop, one term per head or step): the loss is
    scaled like ``term``, so the term is the origin. None for any other start or several ``+=``."""
    if not (isinstance(start, (cst.Float, cst.Integer)) and float(start.value.replace("_", "")) == 0.0):
        return None
    terms = [
        node
        for node in tf.index.in_function("assigns", func)
        if isinstance(node, cst.AugAssign)
        and isinstance(node.operator, cst.AddAssign)
        and isinstance(node.target, cst.Name)
        and node.target.value == name
        and tf.index.before(start, node)
        and tf.index.before(node, gradient)
    ]
    return terms[0].value if len(terms) == 1 else None


def loss_call(tf: TFModel, func: FunctionLike, gradient: cst.Call) -> cst.Call | None:
    """The call of a loss helper in ``func`` whose result ``gradient`` differentiates, or None."""
    loss: cst.BaseExpression | None = gradient.args[0].value
    if isinstance(loss, cst.Name):
        loss = last_assignment(tf, func, loss.value, gradient)
    if isinstance(loss, cst.Call) and loss_helper(tf, func, loss) is not None:
        return loss
    return None


def loss_helper(tf: TFModel, func: FunctionLike, call: cst.Call) -> FunctionLike | None:
    """The one function of this module that ``call`` runs: a plain function (``loss_fn(...)``), a
    lambda bound to a name, or a method of the class ``func`` belongs to (``self._loss(...)``)."""
    target = call.func
    if isinstance(target, cst.Name):
        defs: list[FunctionLike] = [
            f for f in tf.index.functions_by_name.get(target.value, []) if tf.index.method_class(f) is None
        ]
        if len(defs) > 1:
            # Several defs share the name (a `compute_loss` in each test method): the one Python's
            # scoping reaches from the call is the helper.
            reached = [f for f in tf.replica.resolve_callable(target, call) if f in defs]
            defs = reached or defs
        if not defs:
            # A lambda bound to a name, or the inner function a local loss factory returns
            # (`compute_loss = make_loss()`, then `compute_loss(y, p)`).
            defs = [
                f
                for f in tf.replica.resolve_callable(target, call)
                if isinstance(f, cst.Lambda) or (isinstance(f, cst.FunctionDef) and tf.index.method_class(f) is None)
            ]
    elif (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value in ("self", "cls")
    ):
        owner = _owner_class(tf, func)
        defs = [
            f
            for f in tf.index.functions_by_name.get(target.attr.value, [])
            if tf.index.method_class(f) is not None and (owner is None or tf.index.method_class(f) is owner)
        ]
    else:
        return None
    return defs[0] if len(defs) == 1 else None


def _owner_class(tf: TFModel, func: FunctionLike | None) -> cst.ClassDef | None:
    """The class whose method holds ``func`` (itself, or a function or lambda nested in it)."""
    while func is not None:
        if isinstance(func, cst.FunctionDef) and tf.index.method_class(func) is not None:
            return tf.index.method_class(func)
        func = tf.index.enclosing_function(func)
    return None


def _returned_expression(tf: TFModel, helper: FunctionLike) -> cst.BaseExpression | None:
    if isinstance(helper, cst.Lambda):
        return helper.body
    returns: list[cst.Return] = [r for r in tf.index.in_function("returns", helper) if r.value is not None]
    if len(returns) != 1:
        return None
    return returns[0].value


def classify(tf: TFModel, expr: cst.BaseExpression | None, func: FunctionLike, _depth: int = 0) -> Scaling:
    """How ``expr`` (a loss) is scaled."""
    names = tf.names
    if expr is None or _depth > 6:
        return Scaling.UNKNOWN
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Divide):
        left = expr.left
        if isinstance(left, cst.Call) and names.callee(left) in _SUMS:
            right = expr.right
            # Divided by a count taken on this replica (`reduce_sum(mask)`, `tf.size(x)`): a
            # per-replica (weighted) mean. Divided by anything else: taken as the global batch.
            if isinstance(right, cst.Call) and names.callee(right) in _PER_REPLICA_COUNTS:
                return Scaling.MEAN
            if _only_replica_count(tf, right):
                # The replica's batch size is missing: the step grows with it.
                return Scaling.REPLICA_SUM
            return Scaling.GLOBAL
        if mentions_replicas(expr.right):
            inner = classify(tf, left, func, _depth + 1)
            if inner is Scaling.MEAN:
                return Scaling.GLOBAL
            if inner is Scaling.PER_EXAMPLE:
                # A vector divided by the replicas is still a vector: its gradient is the sum
                # over the batch divided by N, not by the global batch.
                return Scaling.PER_EXAMPLE
        return Scaling.UNKNOWN
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        # A sum of losses is scaled like its terms when they agree (`bce(a) + bce(b)`).
        # Unscaled regularization (`sum(model.losses)`) is summed across replicas like a mean, so
        # it follows the other term.
        left_reg, right_reg = is_regularization(tf, expr.left), is_regularization(tf, expr.right)
        if left_reg and right_reg:
            return Scaling.UNKNOWN
        left_scaling = Scaling.MEAN if left_reg else classify(tf, expr.left, func, _depth + 1)
        right_scaling = Scaling.MEAN if right_reg else classify(tf, expr.right, func, _depth + 1)
        # Two per-example vectors of one batch add up to one (`bce(ones, real) + bce(zeros, fake)`).
        agree = left_scaling is right_scaling and left_scaling in (Scaling.MEAN, Scaling.GLOBAL, Scaling.PER_EXAMPLE)
        return left_scaling if agree else Scaling.UNKNOWN
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        # A constant weight keeps the scaling (`0.5 * mse`, `AUX_WEIGHT * aux`).
        if is_constant_weight(tf, expr.left):
            return classify(tf, expr.right, func, _depth + 1)
        if is_constant_weight(tf, expr.right):
            return classify(tf, expr.left, func, _depth + 1)
        return Scaling.UNKNOWN
    if isinstance(expr, cst.Name):
        value = last_assignment(tf, func, expr.value, expr)
        return classify(tf, value, func, _depth + 1) if value is not None else Scaling.UNKNOWN
    if not isinstance(expr, cst.Call):
        return Scaling.UNKNOWN
    passed = gradient_passed_through(tf, expr)
    if passed is not None:
        # `tf.grad_pass_through(f)(x)`: whatever `f` does to the value, the gradient is x's.
        return classify(tf, passed, func, _depth + 1)
    callee = names.callee(expr)
    if callee in _AVERAGE:
        return Scaling.GLOBAL
    if callee in _MEANS:
        has_axis = any(a.keyword is not None and a.keyword.value == "axis" for a in expr.args) or len(expr.args) > 1
        return Scaling.UNKNOWN if has_axis else Scaling.MEAN
    if callee is not None and callee.startswith("keras.losses.") and callee.rsplit(".", 1)[1][:1].islower():
        return Scaling.PER_EXAMPLE
    constructed = loss_object_constructor(tf, expr)
    if constructed is not None:
        return _object_reduction(tf, constructed)
    # A loss helper used inside a larger expression (`get_loss(y, p) + sum(model.losses)`) is
    # scaled like what it returns.
    helper = loss_helper(tf, func, expr)
    if helper is not None:
        return classify(tf, _returned_expression(tf, helper), helper, _depth + 1)
    return Scaling.UNKNOWN


def gradient_passed_through(tf: TFModel, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """``x`` of ``tf.grad_pass_through(f)(x)``: its gradient is the identity's (measured,
    benchmarks/probe_grad_pass_through.py), so the loss is scaled like ``x`` for the gradient."""
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Call) and len(expr.args) == 1):
        return None
    if tf.names.callee(expr.func) not in _PASS_THROUGH:
        return None
    return expr.args[0].value


def is_constant_weight(tf: TFModel, expr: cst.BaseExpression) -> bool:
    """A number, or a module-level name bound only to a number (``AUX_WEIGHT = 0.4``): a scalar
    weight, which keeps a loss's scaling."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if not isinstance(expr, cst.Name):
        return False
    bindings = [
        a
        for a in tf.index.assigns
        if any(isinstance(t, cst.Name) and t.value == expr.value for t in assignment_targets(a))
    ]
    return (
        len(bindings) == 1
        and isinstance(bindings[0], cst.Assign)
        and tf.index.enclosing_function(bindings[0]) is None
        and isinstance(bindings[0].value, (cst.Integer, cst.Float))
    )


def loss_object_constructor(tf: TFModel, call: cst.Call) -> cst.Call | None:
    """For ``loss_obj(y, p)`` or ``self.loss_fn(y, p)``: the Keras loss class call that built the object."""
    key = dotted_name(call.func)
    if key is None:
        return None
    constructed = last_assignment_anywhere(tf, key)
    if isinstance(constructed, cst.Call):
        constructor = tf.names.callee(constructed)
        if (
            constructor is not None
            and constructor.startswith("keras.losses.")
            and constructor.rsplit(".", 1)[1][:1].isupper()
        ):
            return constructed
    return None


def _object_reduction(tf: TFModel, constructed: cst.Call) -> Scaling:
    """How a Keras loss object scales the loss it returns in a replica context.

    Keras 3 divides a mean-reducing loss by the number of replicas in sync (measured on
    TensorFlow 2.21 with 2 replicas: `MeanSquaredError()` gave [1.25, 6.25] where `reduce_mean`
    gave [2.5, 12.5]), so summed gradients come out right. tf-keras's `AUTO` raises instead.
    """
    for arg in constructed.args:
        if arg.keyword is not None and arg.keyword.value == "reduction":
            text = tf.source(arg.value).lower()
            if "none" in text:
                return Scaling.PER_EXAMPLE
            if "sum_over_batch_size" in text or "mean" in text:
                return Scaling.GLOBAL
            return Scaling.UNKNOWN  # "sum", tf-keras's "auto", anything computed
    return Scaling.GLOBAL


def last_assignment_anywhere(tf: TFModel, key: str) -> cst.BaseExpression | None:
    """The value of the last ``=`` assignment to ``key`` (``name`` or ``self.attr``) in the module,
    in any scope: a name's from the semantic model, an attribute's from the index's table."""
    statements = tf.semantic.plain_assignments(key) if "." not in key else assignments_to(tf.index, key)
    return statements[-1].value if statements else None


def is_regularization(tf: TFModel, expr: cst.BaseExpression) -> bool:
    """``sum(model.losses)``, ``tf.add_n(model.losses)``, ``tf.math.add_n(self.losses)``."""
    if not isinstance(expr, cst.Call) or len(expr.args) != 1:
        return False
    callee = tf.names.callee(expr) or (expr.func.value if isinstance(expr.func, cst.Name) else "")
    argument = expr.args[0].value
    return callee in ("sum", "tensorflow.add_n", "tensorflow.math.add_n") and (
        isinstance(argument, cst.Attribute) and argument.attr.value == "losses"
    )


def _only_replica_count(tf: TFModel, expr: cst.BaseExpression) -> bool:
    """``<x>.num_replicas_in_sync`` alone, or converted (``tf.cast(..., tf.float32)``, ``float(...)``)."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value == "num_replicas_in_sync"
    if isinstance(expr, cst.Call) and expr.args:
        callee = tf.names.callee(expr) or (expr.func.value if isinstance(expr.func, cst.Name) else "")
        if callee in (
            "float",
            "tensorflow.cast",
            "tensorflow.dtypes.cast",
            "tensorflow.constant",
            "tensorflow.convert_to_tensor",
        ):
            return _only_replica_count(tf, expr.args[0].value)
    return False


def mentions_replicas(expr: cst.BaseExpression) -> bool:
    """True when ``expr`` reads ``num_replicas_in_sync`` somewhere."""

    class _Find(cst.CSTVisitor):
        found = False

        def visit_Attribute(self, node: cst.Attribute) -> None:
            if node.attr.value == "num_replicas_in_sync":
                self.found = True

    finder = _Find()
    expr.visit(finder)
    return finder.found


def only_reduce_means(tf: TFModel, expr: cst.BaseExpression, func: FunctionLike, depth: int = 0) -> bool:
    """True when the mean-scaled loss ``expr`` is built only from `reduce_mean` calls (editable),
    directly or through local names assigned once from them."""
    if depth > 6:
        return False
    if isinstance(expr, cst.Name):
        value = last_assignment(tf, func, expr.value, expr)
        return (
            value is not None and _assigned_once(tf, func, expr.value) and only_reduce_means(tf, value, func, depth + 1)
        )
    if isinstance(expr, cst.Call):
        if is_regularization(tf, expr):
            return True
        callee = tf.names.callee(expr)
        if callee is None and (helper := loss_helper(tf, func, expr)) is not None:
            # `get_loss(y, p) + ...`: a helper returning a mean is divided where it is called.
            returned = _returned_expression(tf, helper)
            return returned is not None and only_reduce_means(tf, returned, helper, depth + 1)
        return callee is not None and "reduce_mean" in callee or callee == "keras.ops.mean"
    if isinstance(expr, cst.BinaryOperation):
        if isinstance(expr.operator, cst.Multiply):
            other = expr.right if is_constant_weight(tf, expr.left) else expr.left
            return only_reduce_means(tf, other, func, depth + 1)
        return only_reduce_means(tf, expr.left, func, depth + 1) and only_reduce_means(tf, expr.right, func, depth + 1)
    return False


def _assigned_once(tf: TFModel, func: FunctionLike, name: str) -> bool:
    """``name`` is bound by exactly one plain assignment in ``func`` (not a loop or augmented one)."""
    binds = 0
    for assign in tf.index.in_function("assigns", func):
        targets = assignment_targets(assign)
        if any(isinstance(t, cst.Name) and t.value == name for t in targets):
            if not isinstance(assign, cst.Assign):
                return False
            binds += 1
    return binds == 1


def sum_terms(expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The terms of an unparenthesised chain of ``+`` (``a + b + c``), or None for anything else."""
    if not isinstance(expr, cst.BinaryOperation) or not isinstance(expr.operator, cst.Add):
        return None
    left = sum_terms(expr.left) if not expr.left.lpar else None
    return [*(left or [expr.left]), expr.right]
