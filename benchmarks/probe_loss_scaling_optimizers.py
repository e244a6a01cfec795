"""Probe for TFD303: what a per-replica mean loss (not scaled to the global batch) changes, per optimizer.

Two replicas (the CPU split in two logical devices) under `MirroredStrategy` train one Dense
layer for 5 steps of a custom loop (`strategy.run`, `apply_gradients`, which sums gradients
across replicas) on the same data twice: once with the loss scaled to the global batch
(`tf.nn.compute_average_loss`), once with a per-replica `tf.reduce_mean`. The probe prints,
per optimizer, the largest weight difference between the two runs and the loss each reports
(the per-replica values reduced with `strategy.reduce(SUM)` and with `(MEAN)`: a MEAN of
per-replica means is the global mean whatever the optimizer), and what a `keras.metrics.Mean`
updated with the loss on each replica reports. Adam with `clipnorm`/`global_clipnorm` shows
whether clipping keeps the scale invariance. Run under Keras 3 and tf-keras:

    python benchmarks/probe_loss_scaling_optimizers.py
    TF_USE_LEGACY_KERAS=1 python benchmarks/probe_loss_scaling_optimizers.py

Output on TensorFlow 2.21, 2026-11-27 (Keras 3 names `tf.keras` `keras._tf_keras.keras`; SUM and MEAN
are the two reductions of the same per-replica losses; `metrics.Mean` is a `keras.metrics.Mean` updated
with the loss inside the replica function, read after the 5 steps: with the per-replica mean it is the
global mean, with the scaled loss N times smaller; `tf.optimizers` is `tf.keras.optimizers`):

    keras._tf_keras.keras, 2 replicas, tf.optimizers is tf.keras.optimizers: True
    SGD: largest weight difference 0.27591; reported loss 3.5039 scaled, 5.1247 per-replica mean (SUM), 2.5623 per-replica mean (MEAN); metrics.Mean 1.3275 scaled, 2.1689 per-replica mean
    SGD(momentum=0.9): largest weight difference 0.65156; reported loss 2.1221 scaled, 2.4423 per-replica mean (SUM), 1.2212 per-replica mean (MEAN); metrics.Mean 1.0825 scaled, 1.6689 per-replica mean
    Adam: largest weight difference 0.00000; reported loss 4.9725 scaled, 9.9450 per-replica mean (SUM), 4.9725 per-replica mean (MEAN); metrics.Mean 1.6738 scaled, 3.3476 per-replica mean
    RMSprop: largest weight difference 0.00000; reported loss 4.6609 scaled, 9.3217 per-replica mean (SUM), 4.6609 per-replica mean (MEAN); metrics.Mean 1.5986 scaled, 3.1972 per-replica mean
    Adagrad: largest weight difference 0.00400; reported loss 4.3808 scaled, 8.7581 per-replica mean (SUM), 4.3791 per-replica mean (MEAN); metrics.Mean 1.5292 scaled, 3.0605 per-replica mean
    AdamW: largest weight difference 0.00000; reported loss 4.9715 scaled, 9.9431 per-replica mean (SUM), 4.9715 per-replica mean (MEAN); metrics.Mean 1.6736 scaled, 3.3472 per-replica mean
    Nadam: largest weight difference 0.00000; reported loss 5.0158 scaled, 10.0316 per-replica mean (SUM), 5.0158 per-replica mean (MEAN); metrics.Mean 1.6820 scaled, 3.3641 per-replica mean
    Adamax: largest weight difference 0.00000; reported loss 5.0232 scaled, 10.0465 per-replica mean (SUM), 5.0232 per-replica mean (MEAN); metrics.Mean 1.6824 scaled, 3.3648 per-replica mean
    Adam(clipnorm=1.0): largest weight difference 0.02171; reported loss 4.9851 scaled, 10.1063 per-replica mean (SUM), 5.0532 per-replica mean (MEAN); metrics.Mean 1.6757 scaled, 3.3810 per-replica mean
    Adam(global_clipnorm=1.0): largest weight difference 0.00184; reported loss 5.0464 scaled, 10.0985 per-replica mean (SUM), 5.0492 per-replica mean (MEAN); metrics.Mean 1.6894 scaled, 3.3795 per-replica mean

    tf_keras.api._v2.keras, 2 replicas, tf.optimizers is tf.keras.optimizers: True
    SGD: largest weight difference 0.27591; reported loss 3.5039 scaled, 5.1247 per-replica mean (SUM), 2.5623 per-replica mean (MEAN); metrics.Mean 1.3275 scaled, 2.1689 per-replica mean
    SGD(momentum=0.9): largest weight difference 0.65156; reported loss 2.1221 scaled, 2.4423 per-replica mean (SUM), 1.2212 per-replica mean (MEAN); metrics.Mean 1.0825 scaled, 1.6689 per-replica mean
    Adam: largest weight difference 0.00000; reported loss 4.9725 scaled, 9.9450 per-replica mean (SUM), 4.9725 per-replica mean (MEAN); metrics.Mean 1.6738 scaled, 3.3476 per-replica mean
    RMSprop: largest weight difference 0.00000; reported loss 4.6609 scaled, 9.3217 per-replica mean (SUM), 4.6609 per-replica mean (MEAN); metrics.Mean 1.5986 scaled, 3.1972 per-replica mean
    Adagrad: largest weight difference 0.00400; reported loss 4.3808 scaled, 8.7581 per-replica mean (SUM), 4.3791 per-replica mean (MEAN); metrics.Mean 1.5292 scaled, 3.0605 per-replica mean
    AdamW: largest weight difference 0.00000; reported loss 4.9715 scaled, 9.9431 per-replica mean (SUM), 4.9715 per-replica mean (MEAN); metrics.Mean 1.6736 scaled, 3.3472 per-replica mean
    Nadam: largest weight difference nan; reported loss nan scaled, nan per-replica mean (SUM), nan per-replica mean (MEAN); metrics.Mean nan scaled, nan per-replica mean
    Adamax: largest weight difference 0.00000; reported loss 5.0232 scaled, 10.0465 per-replica mean (SUM), 5.0232 per-replica mean (MEAN); metrics.Mean 1.6824 scaled, 3.3648 per-replica mean
    Adam(clipnorm=1.0): largest weight difference 0.00000; reported loss 4.9750 scaled, 9.9591 per-replica mean (SUM), 4.9795 per-replica mean (MEAN); metrics.Mean 1.6741 scaled, 3.3502 per-replica mean
    Adam(global_clipnorm=1.0): largest weight difference 0.00000; reported loss 4.9718 scaled, 9.9435 per-replica mean (SUM), 4.9718 per-replica mean (MEAN); metrics.Mean 1.6735 scaled, 3.3469 per-replica mean
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OPTIMIZERS = {
    "SGD": lambda: tf.keras.optimizers.SGD(0.05),
    "SGD(momentum=0.9)": lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9),
    "Adam": lambda: tf.keras.optimizers.Adam(0.01),
    "RMSprop": lambda: tf.keras.optimizers.RMSprop(0.01),
    "Adagrad": lambda: tf.keras.optimizers.Adagrad(0.05),
    "AdamW": lambda: tf.keras.optimizers.AdamW(0.01),
    "Nadam": lambda: tf.keras.optimizers.Nadam(0.01),
    "Adamax": lambda: tf.keras.optimizers.Adamax(0.01),
    "Adam(clipnorm=1.0)": lambda: tf.keras.optimizers.Adam(0.01, clipnorm=1.0),
    "Adam(global_clipnorm=1.0)": lambda: tf.keras.optimizers.Adam(0.01, global_clipnorm=1.0),
}
STEPS = 5
GLOBAL_BATCH = 8


def train(strategy: tf.distribute.Strategy, make_optimizer, scaled: bool) -> tuple[np.ndarray, float, float, float]:
    """The kernel after STEPS steps, the last loss reported with `strategy.reduce(SUM)` and `(MEAN)`,
    and what a `keras.metrics.Mean` updated with the loss on each replica reports over the run."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH * STEPS, 3)).astype("float32")
    y = rng.normal(size=(GLOBAL_BATCH * STEPS, 1)).astype("float32")
    with strategy.scope():
        layer = tf.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
        layer.build((None, 3))
        optimizer = make_optimizer()
        # Slots made before the compiled step (an unbuilt Keras 3 optimizer fails inside it).
        optimizer.build(layer.trainable_variables)
        metric = tf.keras.metrics.Mean()
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))

    def replica_step(features, labels):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean(tf.square(layer(features) - labels), axis=-1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH) if scaled else tf.reduce_mean(per_example)
        grads = tape.gradient(loss, layer.trainable_variables)
        optimizer.apply_gradients(zip(grads, layer.trainable_variables))
        metric.update_state(loss)
        return loss

    @tf.function
    def step(features, labels):
        losses = strategy.run(replica_step, args=(features, labels))
        return (
            strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None),
            strategy.reduce(tf.distribute.ReduceOp.MEAN, losses, axis=None),
        )

    summed = averaged = 0.0
    for features, labels in dataset:
        summed, averaged = (float(value) for value in step(features, labels))
    return layer.kernel.numpy(), summed, averaged, float(metric.result())


def main() -> None:
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    aliased = tf.optimizers.Adam is tf.keras.optimizers.Adam
    print(f"{tf.keras.__name__}, {strategy.num_replicas_in_sync} replicas, tf.optimizers is tf.keras.optimizers: {aliased}")
    for name, make in OPTIMIZERS.items():
        scaled_kernel, scaled_loss, _, scaled_metric = train(strategy, make, scaled=True)
        mean_kernel, mean_loss, mean_loss_averaged, mean_metric = train(strategy, make, scaled=False)
        difference = float(np.max(np.abs(scaled_kernel - mean_kernel)))
        print(
            f"{name}: largest weight difference {difference:.5f}; reported loss {scaled_loss:.4f} scaled, "
            f"{mean_loss:.4f} per-replica mean (SUM), {mean_loss_averaged:.4f} per-replica mean (MEAN); "
            f"metrics.Mean {scaled_metric:.4f} scaled, {mean_metric:.4f} per-replica mean",
            flush=True,
        )


if __name__ == "__main__":
    main()
