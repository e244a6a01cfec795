"""Non-trainable variables that distributed code only reads: step counters and learning rates.

A ``step = tf.Variable(0, trainable=False)`` or ``lr = tf.Variable(1e-3, trainable=False)`` made
outside `strategy.scope()` can be read inside `strategy.run` and incremented in cross-replica code
between steps: measured on TensorFlow 2.21 with two replicas (benchmarks/probe_ledger12b_premises.py,
ledger12b class 5). What TFD101 must still report is such a variable the replicas write
(``step.assign_add(1)`` in the replica function: each replica's write lands on the one copy) or
that becomes trained state (given to `apply_gradients`, `minimize`, `tape.gradient`/`watch`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.calls import argument_value, in_arguments_of_method

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

# The methods that write a variable in place.
_WRITES = ("assign", "scatter_")
# Calls that make a variable trained state: its value is differentiated or updated by an optimizer.
_TRAINS = frozenset({"apply_gradients", "minimize", "gradient", "watch", "apply"})
_INTEGER_DTYPES = frozenset(f"tensorflow.{kind}{bits}" for kind in ("int", "uint") for bits in (8, 16, 32, 64))


def counter_like(names: NameResolver, call: cst.Call) -> bool:
    """``call`` (a `tf.Variable(...)`) makes a variable no gradient flows into: ``trainable=False``, or
    an integer ``dtype`` (integers are not differentiable)."""
    trainable = argument_value(call, None, "trainable")
    if isinstance(trainable, cst.Name) and trainable.value == "False":
        return True
    dtype = argument_value(call, None, "dtype")
    return dtype is not None and (names.qualified(dtype) or "") in _INTEGER_DTYPES


def only_read(index: ModuleIndex, use: cst.CSTNode) -> bool:
    """``use`` (a name holding the variable) reads it: it is not the receiver of an in-place write
    (``v.assign_add(1)``), nor inside the arguments of a call that trains it."""
    parent = index.parent.get(use)
    if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value.startswith(_WRITES):
        return False
    return not in_arguments_of_method(index, use, _TRAINS)
