"""Per-example buffers: plain `tf.Variable`s the replicas update row by row with `scatter_*`.

A buffer with one row per training example (``buf = tf.Variable(tf.zeros((N, k)))``) that the
replica function reads with `tf.gather(buf, ids)` and updates with ``buf.scatter_add(...)`` on the
rows of its own examples is made outside `strategy.scope()` on purpose (ledger14a class 1, an
Uncertainty Baselines SOP loss). Measured on TensorFlow 2.21 with two replicas
(benchmarks/probe_ledger14a_premises.py): made outside the scope under MirroredStrategy, every
replica's rows are updated on the one copy; made inside, it is a MirroredVariable, each replica's
`scatter_add` lands on its own copy without error and the value read back holds only replica 0's
rows. Such a variable is no TFD101 finding under MirroredStrategy, and moving it into the scope is
never the fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.calls import in_arguments_of_method

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from fixer.tf.index import ModuleIndex

# Calls that hand a variable to an optimizer: then it is a weight, which the scope must mirror.
_OPTIMIZER_CALLS = frozenset({"apply_gradients", "minimize", "apply", "build"})
# Strategies under which a variable made outside the scope cannot be used in replica code, and
# those of unknown class (a parameter, `tf.distribute.get_strategy()`), which may be one.
_TPU_KINDS = frozenset(
    {
        "tensorflow.distribute.TPUStrategy",
        "tensorflow.distribute.experimental.TPUStrategy",
        "tensorflow.distribute.Strategy",
        "tensorflow.distribute.get_strategy",
    }
)


def updated_by_rows(index: ModuleIndex, uses: Iterable[cst.CSTNode], in_replica: Callable[[cst.CSTNode], bool]) -> bool:
    """The variable whose ``uses`` are given is written only through `scatter_*` methods, at least
    once in replica code (``in_replica``), never with `assign*`, and never handed to an optimizer:
    per-example state each replica updates on its own rows, not a weight."""
    scattered = False
    for use in uses:
        parent = index.parent.get(use)
        if isinstance(parent, cst.Attribute) and parent.value is use:
            method = parent.attr.value
            if method.startswith("assign"):
                return False  # a whole-variable write: order-dependent across replicas
            if method.startswith("scatter_"):
                scattered = scattered or in_replica(use)
                continue
        if in_arguments_of_method(index, use, _OPTIMIZER_CALLS):
            return False
    return scattered


def tpu_possible(kinds: Iterable[str]) -> bool:
    """Some strategy of the module is (or may be: a strategy of unknown class) a TPUStrategy, under
    which a variable made outside the scope fails in replica code."""
    return any(kind in _TPU_KINDS for kind in kinds)
