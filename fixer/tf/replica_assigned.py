"""Variables the replica function writes whole: moving them into the scope is no fix by itself.

A ``scale = tf.Variable(1.0, trainable=False)`` made outside `strategy.scope()` that the replica
function (run by `strategy.run`, directly or through a helper it calls) writes with ``assign``,
``assign_add`` or ``assign_sub`` is a TFD101 finding: every replica writes the one copy, and the
value left is one replica's (order-dependent). But TFD101's move alone makes it a MirroredVariable
with aggregation NONE, whose replicas each keep their own copy: measured on TensorFlow 2.21 with two
replicas (benchmarks/probe_replica_assigned_variable.py) `[2.0, 0.6667]`, where `MEAN` gives
`[1.3333, 1.3333]`, `SUM` `[2.6667, 2.6667]`, `ONLY_FIRST_REPLICA` `[2.0, 2.0]`, and an ON_READ
variable keeps the per-replica values and reads their aggregate. Which one the code means is the
author's choice (ledger24b's wrong fix: latent-diffusion-tf's latent scale), so the finding is
advice with no edit. A variable the replica function only reads computes the same either side
of the scope (the probe's control) and keeps its move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fixer.tf.index import ModuleIndex
    from fixer.tf.replica import ReplicaModel

# The methods that overwrite a variable as a whole (not `scatter_*`, which writes rows:
# fixer/tf/row_buffers.py).
_WHOLE_WRITES = frozenset({"assign", "assign_add", "assign_sub"})

ADVICE = (
    "variable made outside `strategy.scope()`, assigned by replicas: moved in as is, each keeps its copy; "
    "make it in the scope with `aggregation=` MEAN, SUM or ONLY_FIRST_REPLICA (by intent), or ON_READ"
)


def assigned_by_replicas(index: ModuleIndex, replica: ReplicaModel, names: Iterable[str]) -> bool:
    """A variable held by one of ``names`` (plain or dotted, ``self.scale``) is the receiver of an
    `assign`, `assign_add` or `assign_sub` call that runs on every replica."""
    wanted = set(names)
    for method in index.attributes:
        if method.attr.value not in _WHOLE_WRITES or dotted_name(method.value) not in wanted:
            continue
        call = index.parent.get(method)
        if not isinstance(call, cst.Call) or call.func is not method:
            continue
        if replica.in_replica_context(call) or any(index.is_within(call, run.call) for run in replica.run_calls):
            return True
    return False
