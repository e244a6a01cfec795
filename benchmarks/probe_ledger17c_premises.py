"""Premises of the ledger17c verdicts (benchmarks/WILD.md): whether a Kaggle notebook that puts a
tf-keras layer (what Hugging Face's TF model classes and TensorFlow Hub's `KerasLayer` are once
tf-keras is installed) into a `tensorflow.keras` model can run on Keras 3, what the default
strategy offers, and what a `keras.metrics.Sum` of per-example losses holds under two replicas.

1. On TensorFlow 2.21 `tensorflow.keras` is Keras 3. A tf-keras layer called on a Keras 3
   `layers.Input` (the notebooks' `base_model({'input_ids': input_ids, ...})`) and a tf-keras
   layer put in a Keras 3 `Sequential` (the notebooks' `hub.KerasLayer(...)` base) both raise:
   such a program only builds with Keras 2 (tf-keras), whatever its optimizer code.
2. `tf.distribute.get_strategy()` outside every scope is the default strategy: one replica, no
   `experimental_run_v2` on 2.21 (so TFD401's rename to `run` is right there too).
3. A `keras.metrics.Sum` made in a two-replica scope and updated in `strategy.run` with each
   replica's per-example loss vector holds the sum over the global batch: divided by the global
   batch size times the steps (what the notebooks' `custom_fit` prints) it is the per-example
   mean, under both Kerases.

    python benchmarks/probe_ledger17c_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger17c), CPU:

    keras 3 | tf-keras Dense called on a tensorflow.keras Input: AttributeError: 'tuple' object has no attribute 'rank'
    keras 3 | tf-keras Dense added to a tensorflow.keras Sequential: ValueError: Only instances of `keras.Lay
    keras 3 | default strategy: replicas 1, has experimental_run_v2 False, has run True
    keras 3 | Sum of per-example losses over 2 replicas / (global batch x steps): 2.5 (per-example mean 2.5)
    tf-keras | tf-keras Dense called on a tensorflow.keras Input: builds (tf_keras tensor)
    tf-keras | tf-keras Dense added to a tensorflow.keras Sequential: builds (1 layer)
    tf-keras | default strategy: replicas 1, has experimental_run_v2 False, has run True
    tf-keras | Sum of per-example losses over 2 replicas / (global batch x steps): 2.5 (per-example mean 2.5)

(lines cut at 115 characters; the tf-keras rows are the control: there `tensorflow.keras` is
tf-keras itself and both builds succeed.)
"""

from __future__ import annotations

import sys

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas


def premises(flavour: str) -> None:
    """Run the three premises under the Keras selected for this process."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)  # before any other op: the two logical CPUs
    import numpy as np
    import tf_keras

    def tf_keras_layer_on_input() -> str:
        inputs = tf.keras.layers.Input(shape=(4,), dtype="float32")
        outputs = tf_keras.layers.Dense(1)(inputs)
        return f"builds ({type(outputs).__module__.split('.')[0]} tensor)"

    def tf_keras_layer_in_sequential() -> str:
        model = tf.keras.Sequential([tf.keras.layers.Input(shape=(4,)), tf_keras.layers.Dense(1)])
        return f"builds ({len(model.layers)} layer)"

    def default_strategy() -> str:
        default = tf.distribute.get_strategy()
        return (
            f"replicas {default.num_replicas_in_sync}, has experimental_run_v2 "
            f"{hasattr(default, 'experimental_run_v2')}, has run {hasattr(default, 'run')}"
        )

    def summed_per_example_losses() -> str:
        with strategy.scope():
            total = tf.keras.metrics.Sum()
        losses = np.arange(8, dtype="float32").reshape(8) / 1.4  # per-example values of one step
        dataset = tf.data.Dataset.from_tensor_slices(losses).batch(8)  # global batch 8
        steps = 0
        for batch in strategy.experimental_distribute_dataset(dataset):
            strategy.run(lambda values: total.update_state(values), args=(batch,))
            steps += 1
        read = float(total.result()) / (8 * steps)
        return f"{read:.4g} (per-example mean {float(losses.mean()):.4g})"

    print_outcomes(
        flavour,
        [
            ("tf-keras Dense called on a tensorflow.keras Input", tf_keras_layer_on_input),
            ("tf-keras Dense added to a tensorflow.keras Sequential", tf_keras_layer_in_sequential),
            ("default strategy", default_strategy),
            ("Sum of per-example losses over 2 replicas / (global batch x steps)", summed_per_example_losses),
        ],
    )


if __name__ == "__main__":
    if len(sys.argv) > 1:
        premises(sys.argv[1])
    else:
        rerun_per_keras(__file__)
