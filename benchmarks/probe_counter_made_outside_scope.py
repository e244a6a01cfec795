"""Probe for a ledger10b TFD101 verdict: a step counter made outside the scope, bumped per replica.

On 2 logical CPU devices under `MirroredStrategy`: a `tf.Variable(0, dtype=int64)` made outside
`strategy.scope()` and one made inside it, each bumped with `assign_add(1)` in the replica function
of a `tf.function` that calls `strategy.run`, 3 steps. The counter made outside the scope is one
plain variable that every replica bumps: it counts replicas x steps, so the step numbers it gives
summaries and logs run ahead by the replica count. The one made in the scope counts steps.

    python benchmarks/probe_counter_made_outside_scope.py

Output on TensorFlow 2.21 (2026-11-27):

    made outside the scope: 6 after 3 steps on 2 replicas
    made inside the scope: 3 after 3 steps on 2 replicas
"""

from __future__ import annotations

import tensorflow as tf
from probing import two_cpu_replicas

STEPS = 3


def count_steps(strategy, counter) -> int:  # noqa: ANN001 - a strategy and a tf.Variable
    """Bump ``counter`` once in each replica function for ``STEPS`` steps; return its value."""

    @tf.function
    def distributed_step() -> None:
        strategy.run(lambda: counter.assign_add(1))

    for _ in range(STEPS):
        distributed_step()
    return int(counter.numpy())


def main() -> None:
    """Print what each counter reads after ``STEPS`` steps."""
    strategy = two_cpu_replicas(tf)
    outside = tf.Variable(0, trainable=False, dtype=tf.int64)
    with strategy.scope():
        inside = tf.Variable(0, trainable=False, dtype=tf.int64)
    replicas = strategy.num_replicas_in_sync
    for label, counter in (("made outside the scope", outside), ("made inside the scope", inside)):
        print(f"{label}: {count_steps(strategy, counter)} after {STEPS} steps on {replicas} replicas")


if __name__ == "__main__":
    main()
