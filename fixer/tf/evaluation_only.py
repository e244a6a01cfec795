"""Whether a replica function only evaluates (reaches no training step), and whether a value is one
batch taken by ``next(...)``.

TFD201 leaves a replica function that reaches no gradient or optimizer step and is fed one batch
taken with ``next(iter(ds))``: such a function computes a statistic over the batch it is given (a
Fréchet Inception Distance, an Inception Score), and a set-level statistic of a split batch is a
different, per-shard value, so distributing the dataset is not the fix. Training is recognised by
its calls (``apply_gradients``, ``minimize``, ``fit``, ``train_on_batch``, a ``train_step``, a tape's
``gradient``) in the function or in the functions of the module it calls, three calls deep.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike
    from fixer.tf.model import TFModel
    from fixer.tf.replica import RunCall

_TRAINING = re.compile(
    r"\.(?:apply_gradients|minimize|fit|train_on_batch|train_step|gradient|apply)\s*\(|GradientTape|\boptimizer\b"
)
_DEPTH = 3


def only_evaluates(tf: TFModel, run: RunCall) -> bool:
    """Every function ``run`` runs on the replicas is known and reaches no training step."""
    if not run.targets:
        return False  # the replica function cannot be told: it may train
    seen: set[int] = set()
    return not any(_trains(tf, target, seen, 0) for target in run.targets)


def _trains(tf: TFModel, func: FunctionLike, seen: set[int], depth: int) -> bool:
    if id(func) in seen:
        return False
    seen.add(id(func))
    if _TRAINING.search(tf.source(func)):
        return True
    if depth >= _DEPTH:
        return True  # too deep to tell: it may train
    for call in tf.index.in_function("calls", func):
        for callee in tf.replica.resolve_callable(call.func, call):
            if _trains(tf, callee, seen, depth + 1):
                return True
    return False


def is_one_batch(tf: TFModel, value: cst.BaseExpression) -> bool:
    """``value`` is ``next(iter(ds))`` (or an element of it), or a name whose only binding is: the
    first batch of a fresh iterator, one batch (a ``next(it)`` of an iterator kept across calls
    walks the whole set batch by batch instead)."""
    if isinstance(value, cst.Subscript):
        value = value.value
    if isinstance(value, cst.Name):
        binding = tf.semantic.only_binding(value)
        statement = binding.statement if binding is not None else None
        if not isinstance(statement, cst.Assign):
            return False
        value = statement.value
    return _calls(value, "next") and _calls(cst.ensure_type(value, cst.Call).args[0].value, "iter")


def _calls(value: cst.BaseExpression, name: str) -> bool:
    """``value`` is a call of the builtin ``name`` with an argument."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == name
        and bool(value.args)
    )
