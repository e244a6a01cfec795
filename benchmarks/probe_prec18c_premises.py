"""Premise of prec18c's TFD303 fix decision (benchmarks/WILD.md, ledger17c's wrong rewrites): what
`loss = tf.nn.compute_average_loss(per_example)` does to a `keras.metrics.Sum` that the same replica
step updates with `loss` and that the loop reads as Sum / (global batch x steps), against averaging
only the value handed to `tape.gradient`.

Two replicas, global batch 8, one linear weight, one step, a per-example squared error:

- "vector": the notebook as written (the gradient is the sum over the global batch);
- "rewritten": `loss = compute_average_loss(vector)`, then `tape.gradient(loss)` and
  `sum_metric.update_state(loss)` (what TFD303's rewrite wrote before prec18c);
- "gradient only": `scaled = compute_average_loss(vector)` for `tape.gradient`, the metric
  still updated with the vector.

The summed gradient of "rewritten" and "gradient only" is the one-device mean's; the metric's
read stays the per-example mean only in "gradient only" and shrinks global-batch times (8x) in
"rewritten"; the vector's gradient is global-batch times (8x) the mean's. So rewriting the loss
name is wrong wherever the name has other reads.

    python benchmarks/probe_prec18c_premises.py

Output on TensorFlow 2.21 (2026-11-28, prec18c), CPU:

    keras 3 | vector: summed gradient 408, metric read 25.5 (one-device mean gradient 51, mean loss 25.5)
    keras 3 | rewritten: summed gradient 51, metric read 3.188 (one-device mean gradient 51, mean loss 25.5)
    keras 3 | gradient only: summed gradient 51, metric read 25.5 (one-device mean gradient 51, mean loss 25.5)
    tf-keras | vector: summed gradient 408, metric read 25.5 (one-device mean gradient 51, mean loss 25.5)
    tf-keras | rewritten: summed gradient 51, metric read 3.188 (one-device mean gradient 51, mean loss 25.5)
    tf-keras | gradient only: summed gradient 51, metric read 25.5 (one-device mean gradient 51, mean loss 25.5)
"""

from __future__ import annotations

import sys

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas

GLOBAL_BATCH = 8


def premises(flavour: str) -> None:
    """Run the three variants under the Keras selected for this process."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)  # before any other op: the two logical CPUs
    import numpy as np

    x = np.arange(1, GLOBAL_BATCH + 1, dtype="float32")
    y = np.zeros(GLOBAL_BATCH, dtype="float32")
    one_device = float(np.mean(2.0 * x**2))  # d/dw of the mean of (y - w x)^2 at w = 1, y = 0
    mean_loss = float(np.mean(x**2))

    def variant(kind: str):  # noqa: ANN202 - returns the closure print_outcomes calls
        def run() -> str:
            with strategy.scope():
                weight = tf.Variable(1.0)
                total = tf.keras.metrics.Sum()
            dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)

            def step(features, labels):  # noqa: ANN001, ANN202 - a replica step as the notebooks write it
                with tf.GradientTape() as tape:
                    vector = tf.square(labels - weight * features)
                    loss = tf.nn.compute_average_loss(vector) if kind == "rewritten" else vector
                    scaled = tf.nn.compute_average_loss(vector) if kind == "gradient only" else loss
                gradient = tape.gradient(scaled, weight)
                total.update_state(loss)
                return gradient

            steps, summed = 0, 0.0
            for features, labels in strategy.experimental_distribute_dataset(dataset):
                per_replica = strategy.run(step, args=(features, labels))
                summed += float(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None))
                steps += 1
            read = float(total.result()) / (GLOBAL_BATCH * steps)
            return (
                f"summed gradient {summed:.4g}, metric read {read:.4g} "
                f"(one-device mean gradient {one_device:.4g}, mean loss {mean_loss:.4g})"
            )

        return run

    print_outcomes(flavour, [(kind, variant(kind)) for kind in ("vector", "rewritten", "gradient only")])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        premises(sys.argv[1])
    else:
        rerun_per_keras(__file__)
