"""Whether a node runs in a Keras `train_step`/`test_step` override that `fit`/`evaluate` run per replica.

TFD101 tells a metric updated in a custom loop's replica function (made outside the scope, it
counts every replica on both Kerases: `benchmarks/probe_ledger8b_premises.py`) from one read in a
step override under `fit`, which reports another value than one made in the scope.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.replica import ReplicaModel


def in_keras_step(replica: ReplicaModel, node: cst.CSTNode) -> bool:
    """``node`` lies in a Keras step override run under a strategy, or in a function of the module
    it calls (directly, or in a lambda of one)."""
    steps = replica.reachable(replica.keras_steps)
    func = replica.index.enclosing_function(node)
    while func is not None:
        if func in steps:
            return True
        func = replica.index.enclosing_function(func) if isinstance(func, cst.Lambda) else None
    return False
