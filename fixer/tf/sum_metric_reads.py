"""Whether a `keras.metrics.Sum` of per-example losses is read as a mean.

A custom loop often keeps its training loss in ``train_loss = metrics.Sum()``, updates it on every
replica with the step's per-example loss vector and reports
``train_loss.result() / (BATCH_SIZE * steps)``. Updated on every replica, the `Sum` holds the
global batch's sum, so that division is the per-example mean (benchmarks/probe_ledger17c_premises.py,
part 3): the read is a mean read, like a `keras.metrics.Mean`'s.

Not a rule: TFD303 asks it to know whether the loss a user sees differs from the averaged one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.bindings import assigned_values
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_SUM_METRIC = "keras.metrics.Sum"
_RESETS = frozenset({"reset_state", "reset_states"})


def sum_read_as_mean(tf: TFModel, read: cst.Name) -> bool:
    """``read`` is the value given to a `keras.metrics.Sum` (``total.update_state(loss)``,
    ``total(loss)``) bound only to that constructor, and every other use of the metric's name in the
    module is an update, a reset, a ``result()`` divided by a product naming a batch size
    (``total.result().numpy() / (BATCH_SIZE * steps)``), or membership in a list that is only
    iterated to reset its metrics. At least one such divided read must be seen: a `Sum` whose result
    is read in another file (a utility script) is not followed."""
    metric = _updated_metric(tf, read)
    if metric is None:
        return False
    values = assigned_values(tf.index, metric)
    if not values or not all(
        isinstance(v, cst.Call) and (tf.names.callee(v) or "").endswith(_SUM_METRIC) for v in values
    ):
        return False
    divided = 0
    for name in tf.index.names.get(metric, ()):
        use = _use(tf, name)
        if use == "divided":
            divided += 1
        elif use is None:
            return False
    return divided > 0


def _updated_metric(tf: TFModel, read: cst.Name) -> str | None:
    """The plain name of the metric that the call taking ``read`` as its first argument updates."""
    call = tf.index.parent.get(tf.index.parent.get(read) or read)
    if not isinstance(call, cst.Call) or not call.args or call.args[0].value is not read:
        return None
    metric = call.func
    if isinstance(metric, cst.Attribute) and metric.attr.value == "update_state":
        metric = metric.value
    return metric.value if isinstance(metric, cst.Name) else None


def _use(tf: TFModel, name: cst.Name) -> str | None:
    """How one occurrence of the metric's name is used: "bound", "updated", "reset", "divided" (a
    result read as a mean), "listed" (in a list only iterated to reset), None for anything else."""
    parent = tf.index.parent.get(name)
    if isinstance(parent, cst.AssignTarget):
        return "bound"
    if isinstance(parent, cst.Call) and parent.func is name:
        return "updated"  # `total(loss)`
    if isinstance(parent, cst.Attribute) and parent.value is name:
        called = tf.index.parent.get(parent)
        if not isinstance(called, cst.Call) or called.func is not parent:
            return None
        if parent.attr.value == "update_state":
            return "updated"
        if parent.attr.value in _RESETS:
            return "reset"
        if parent.attr.value == "result" and _divided_by_a_batch(tf, called):
            return "divided"
        return None
    if isinstance(parent, cst.Element) and _only_reset_list(tf, parent):
        return "listed"
    return None


def _divided_by_a_batch(tf: TFModel, result: cst.Call) -> bool:
    """``result`` (optionally ``.numpy()``'d or passed through ``float``) is the left side of a
    division by a product with a name that says batch (``BATCH_SIZE * epoch_steps``)."""
    node: cst.CSTNode = result
    for _ in range(4):
        parent = tf.index.parent.get(node)
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Divide):
            return parent.left is node and _names_a_batch_product(parent.right)
        if isinstance(parent, cst.Attribute | cst.Call | cst.Arg):
            node = parent  # `.numpy()`, `float(...)`
            continue
        return False
    return False


def _names_a_batch_product(expr: cst.BaseExpression) -> bool:
    """``A * B`` where one factor is a name or attribute mentioning "batch"."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply)):
        return False
    return any("batch" in (dotted_name(side) or "").lower() for side in (expr.left, expr.right))


def _only_reset_list(tf: TFModel, element: cst.Element) -> bool:
    """``element`` is in a list bound to a name whose every read is ``for m in <name>:`` with a
    body that only resets ``m`` (``m.reset_states()``)."""
    listed = tf.index.parent.get(element)
    statement = tf.index.parent.get(listed) if isinstance(listed, cst.List | cst.Tuple) else None
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return False
    target = statement.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    reads = [n for n in tf.index.names.get(target.value, ()) if n is not target]
    return bool(reads) and all(_resets_each(tf, n) for n in reads)


def _resets_each(tf: TFModel, name: cst.Name) -> bool:
    """``name`` is the iterable of a ``for`` whose body only calls ``<target>.reset_state(s)()``."""
    loop = tf.index.parent.get(name)
    if not (isinstance(loop, cst.For) and loop.iter is name and isinstance(loop.target, cst.Name)):
        return False
    body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
    for line in body:
        if not isinstance(line, cst.SimpleStatementLine):
            return False
        for small in line.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if not (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in _RESETS
                and isinstance(call.func.value, cst.Name)
                and call.func.value.value == loop.target.value
            ):
                return False
    return bool(body)
