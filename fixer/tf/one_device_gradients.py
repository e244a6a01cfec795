"""Replica steps whose applied gradient already is the one-device gradient, whatever the loss's scale.

TFD303 reports a loss whose replicas' gradients are summed N times too large. Gradients
MEAN-reduced by hand before `apply_gradients` (``ctx.merge_call(lambda s, g: s.reduce(MEAN, g,
axis=None), args=(grads,))``, ``ctx.all_reduce(MEAN, grads)``) give the one-device step instead,
so that premise does not describe them: measured with two replicas, Keras 3 SGD takes the
one-device step (tf-keras raises in its own all-reduce, a failure TFD303's rescaling would not
cure): benchmarks/probe_ledger12b_premises.py, ledger12b class 8.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.dataflow import names_in

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike
    from fixer.tf.model import TFModel

# The calls that reduce values across replicas by hand in a replica function.
_REDUCING = frozenset({"merge_call", "all_reduce", "batch_reduce_to", "reduce_to"})
# `ReduceOp.MEAN`, `"MEAN"`; not `reduce_mean` (a word character before it).
_MEAN = re.compile(r"\bMEAN\b")


def mean_reduced_by_hand(tf: TFModel, func: FunctionLike, gradient: cst.Call) -> bool:
    """The gradients of ``gradient`` (a `tape.gradient` call in ``func``) go, inline or through the
    names its assignment binds, into a cross-replica reduction in ``func`` that averages (its text
    names ``MEAN``)."""
    reading = _gradient_targets(tf, gradient)
    for call in tf.replica.calls_in(func):
        func_node = call.func
        if not (isinstance(func_node, cst.Attribute) and func_node.attr.value in _REDUCING):
            continue
        given = any(tf.index.is_within(gradient, arg.value) for arg in call.args) or any(
            reading & names_in(arg.value) for arg in call.args
        )
        if given and any(_MEAN.search(_text(part).upper()) for part in _reducing_parts(tf, call)):
            return True
    return False


def _reducing_parts(tf: TFModel, call: cst.Call) -> list[cst.CSTNode]:
    """The code that picks the reduction: the call itself, and for a `merge_call` the functions
    of the module its merge function resolves to (``def merge_fn(strategy, v): return
    strategy.reduce(MEAN, v, axis=None)``)."""
    parts: list[cst.CSTNode] = [call]
    if cst.ensure_type(call.func, cst.Attribute).attr.value == "merge_call" and call.args:
        parts += tf.replica.resolve_callable(call.args[0].value, call)
    return parts


def _text(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _gradient_targets(tf: TFModel, gradient: cst.Call) -> set[str]:
    """The names ``grads = tape.gradient(...)`` (or ``g1, g2 = ...``) binds; empty when the call is
    not an assignment's whole value."""
    statement = tf.index.statement_of(gradient)
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return set()
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or small.value is not gradient:
        return set()
    found: set[str] = set()
    for target in small.targets:
        found |= names_in(target.target)
    return found
