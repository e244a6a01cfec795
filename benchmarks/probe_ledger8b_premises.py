"""Two premises the ledger8b verdicts (benchmarks/WILD.md) rest on, measured on TF 2.21.

1. A Keras metric made outside any strategy scope and updated inside `strategy.run` of a custom
   training loop (a trainer class that builds its metrics in `__init__` before the loop enters the
   scope; TFD101 reports them): does it count every replica's update? Two replicas see different
   halves of one batch; the right result is what one device computes on the whole batch.
2. `metric.result()` returned from the replica function of `strategy.run` (a validation step that
   returns its accuracy; TFD108 reports the `.numpy()` on the result): what comes back, and does
   `.numpy()` work on it?

Each Keras flavour runs in its own process:

    python benchmarks/probe_ledger8b_premises.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-27, ledger8b):

    keras 3 | metrics made outside the scope: mean 2.0 accuracy 0.5 (one device: 2.0, 0.5)
    keras 3 | result() from run: PerReplica; .numpy(): AttributeError: 'PerReplica' object has no attribute 'numpy'
    tf-keras | metrics made outside the scope: mean 2.0 accuracy 0.5 (one device: 2.0, 0.5)
    tf-keras | result() from run: EagerTensor; .numpy(): 0.5

So a metric made outside the scope and updated in a custom loop's replica function is right on
both Keras (not a TFD101 finding), and `.numpy()` on a metric result returned by `strategy.run`
raises on Keras 3 only (tf-keras merges the replicas' states into one tensor: 0.5, the
whole batch's accuracy).
"""

from __future__ import annotations

import sys

from probing import first_error_line, print_outcomes, rerun_per_keras, two_cpu_replicas


def run_cases(flavour: str) -> None:
    """Both premises on a MirroredStrategy over two logical CPUs."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    # Rows 0-1 go to replica 0, rows 2-3 to replica 1; label 0 is right for the first two only.
    features = tf.constant([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    labels = tf.constant([0, 0, 0, 0])
    batch = next(
        iter(strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((features, labels)).batch(4)))
    )

    def metrics_outside_scope() -> str:
        mean = tf.keras.metrics.Mean()
        accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

        def replica_step(x, y):
            mean.update_state(tf.reduce_sum(x[:, 1]) + 1.0)
            accuracy.update_state(y, x)

        @tf.function
        def step(inputs):
            strategy.run(replica_step, args=inputs)

        step(batch)
        # One device on the whole batch: the two replica values 1 and 3 average to 2; 2 of 4 right.
        return f"mean {float(mean.result())} accuracy {float(accuracy.result())} (one device: 2.0, 0.5)"

    def result_from_run() -> str:
        with strategy.scope():
            accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

        def replica_step(x, y):
            accuracy.update_state(y, x)
            return accuracy.result()

        @tf.function
        def step(inputs):
            return strategy.run(replica_step, args=inputs)

        value = step(batch)
        try:
            shown = str(value.numpy())
        except AttributeError as exc:
            shown = first_error_line(exc)
        return f"{type(value).__name__}; .numpy(): {shown}"

    print_outcomes(
        flavour,
        [
            ("metrics made outside the scope", metrics_outside_scope),
            ("result() from run", result_from_run),
        ],
        describe=first_error_line,
    )


def main() -> None:
    """Each Keras flavour in a fresh process."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
        return
    rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
