"""Premises of ledger21b's recall notes: two misses in domain-science trees.

1. ctorney/vi-nsgp `nsgp_vi.py` builds `dist_dataset = strategy.experimental_distribute_dataset(...)`,
   then loops over the undistributed `self.dataset` and hands each plain batch to a compiled
   `strategy.run(train_step, args=(batch,))`, reducing the per-replica loss and gradients with SUM.
   This probe asks what each replica receives from a plain batch and what SUM gives.
2. BioSystemsUM/propythia `deep_ml.py` creates a module-level `MirroredStrategy()` and never opens
   its scope. This probe asks which strategy a Keras model built outside that scope trains under.

Two logical CPU devices stand for two GPUs:

    python benchmarks/probe_ledger21b_premises.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-28:

    plain batch of 4 into strategy.run: per-replica sizes [4, 4]
    one-replica loss 6.0; SUM over replicas 12.0
    model built outside the scope: has_strategy False; model strategy is the MirroredStrategy: False

Each replica gets the whole plain batch, so SUM doubles the loss (and the summed gradients) with two
devices; a model built without entering the scope does not train under the module's strategy.
"""

from __future__ import annotations

import tensorflow as tf


def _two_cpus() -> list[str]:
    """Split the host CPU in two logical devices (must run before TF initialises)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    return [d.name for d in tf.config.list_logical_devices("CPU")]


def plain_batch_into_run(strategy: tf.distribute.Strategy) -> None:
    """Part 1: a non-distributed batch handed to strategy.run, reduced with SUM."""
    batch = tf.constant([1.0, 2.0, 1.0, 2.0])

    def step(x: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        return tf.shape(x)[0], tf.reduce_sum(x)

    @tf.function
    def dist_step(x: tf.Tensor) -> tuple[object, tf.Tensor]:
        sizes, losses = strategy.run(step, args=(x,))
        return sizes, strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    sizes, total = dist_step(batch)
    local = [int(v) for v in strategy.experimental_local_results(sizes)]
    print(f"plain batch of 4 into strategy.run: per-replica sizes {local}")
    print(f"one-replica loss {float(tf.reduce_sum(batch))}; SUM over replicas {float(total)}")


def model_outside_scope(strategy: tf.distribute.Strategy) -> None:
    """Part 2: a Keras model built without entering the module-level strategy's scope."""
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    print(
        "model built outside the scope: has_strategy "
        f"{tf.distribute.has_strategy()}; model strategy is the MirroredStrategy: "
        f"{model.distribute_strategy is strategy}"
    )


def main() -> None:
    """Run both parts on one two-device MirroredStrategy."""
    strategy = tf.distribute.MirroredStrategy(_two_cpus())
    plain_batch_into_run(strategy)
    model_outside_scope(strategy)


if __name__ == "__main__":
    main()
