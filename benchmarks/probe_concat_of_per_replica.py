"""What `tf.concat` does when handed one `PerReplica` value instead of its `.values` (TFD108's message).

TFD108 says `.concat()` "raises on a `strategy.run` result". A held-out research tree (ledger6)
concatenates the `.values` of five outputs and passes a sixth `PerReplica` itself. This probe
runs that shape on two logical CPUs (MirroredStrategy), eagerly and in a `tf.function`, and
prints what comes back. Plain TensorFlow, no Keras, so one run suffices:

    python benchmarks/probe_concat_of_per_replica.py

Output on TensorFlow 2.21, 2026-11-27 (ledger6, issue 28):

    tf | concat(PerReplica), eager: no error, returns PerReplica (2 parts), not one tensor
    tf | concat(PerReplica), tf.function: no error, returns PerReplica (2 parts), not one tensor
    tf | concat(PerReplica.values), eager: no error, returns Tensor [0.0, 0.0, 1.0, 1.0]

`tf.concat` wraps a lone value in a one-element list and returns it unchanged: no error, and the
replicas' parts are not joined. The mistake is real (the caller gets a `PerReplica` where it
expects one tensor) but it does not raise where the message says.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from probing import print_outcomes, two_cpu_replicas  # noqa: E402


def _describe(tf, value) -> str:  # noqa: ANN001
    """The kind of value `tf.concat` returned."""
    if isinstance(value, tf.distribute.DistributedValues):
        parts = len(value.values)
        return f"no error, returns {type(value).__name__} ({parts} parts), not one tensor"
    return f"no error, returns Tensor {[float(v) for v in value.numpy()]}"


def main() -> None:
    """The three cases once (no Keras is involved)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)

    def replica_fn():  # each replica returns [id, id]
        replica_id = tf.distribute.get_replica_context().replica_id_in_sync_group
        return tf.ones([2]) * tf.cast(replica_id, tf.float32)

    compiled = tf.function(lambda: tf.concat(strategy.run(replica_fn), axis=0))
    print_outcomes("tf", [
        ("concat(PerReplica), eager", lambda: _describe(tf, tf.concat(strategy.run(replica_fn), axis=0))),
        ("concat(PerReplica), tf.function", lambda: _describe(tf, compiled())),
        ("concat(PerReplica.values), eager",
         lambda: _describe(tf, tf.concat(strategy.run(replica_fn).values, axis=0))),
    ])


if __name__ == "__main__":
    main()
