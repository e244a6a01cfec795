"""Probe for TFD303: what a per-replica mean loss (not scaled to the global batch) changes, per optimizer.

Two replicas (the CPU split in two logical devices) under `MirroredStrategy` train one Dense
layer for 5 steps of a custom loop (`strategy.run`, `apply_gradients`, which sums gradients
across replicas) on the same data twice: once with the loss scaled to the global batch
(`tf.nn.compute_average_loss`), once with a per-replica `tf.reduce_mean`. The probe prints,
per optimizer, the largest weight difference between the two runs and the loss each reports
(the per-replica values reduced with `strategy.reduce(SUM)` and with `(MEAN)`: a MEAN of
per-replica means is the global mean whatever the optimizer). Run under Keras 3 and tf-keras:

    python benchmarks/probe_loss_scaling_optimizers.py
    TF_USE_LEGACY_KERAS=1 python benchmarks/probe_loss_scaling_optimizers.py

Output on TensorFlow 2.21, 2026-11-27 (Keras 3 names `tf.keras` `keras._tf_keras.keras`; SUM and MEAN
are the two reductions of the same per-replica losses):

    keras._tf_keras.keras, 2 replicas
    SGD: largest weight difference 0.27591; reported loss 3.5039 scaled, 5.1247 per-replica mean (SUM), 2.5623 per-replica mean (MEAN)
    SGD(momentum=0.9): largest weight difference 0.65156; reported loss 2.1221 scaled, 2.4423 per-replica mean (SUM), 1.2212 per-replica mean (MEAN)
    Adam: largest weight difference 0.00000; reported loss 4.9725 scaled, 9.9450 per-replica mean (SUM), 4.9725 per-replica mean (MEAN)
    RMSprop: largest weight difference 0.00000; reported loss 4.6609 scaled, 9.3217 per-replica mean (SUM), 4.6609 per-replica mean (MEAN)
    Adagrad: largest weight difference 0.00400; reported loss 4.3808 scaled, 8.7581 per-replica mean (SUM), 4.3791 per-replica mean (MEAN)
    AdamW: largest weight difference 0.00000; reported loss 4.9715 scaled, 9.9431 per-replica mean (SUM), 4.9715 per-replica mean (MEAN)
    Nadam: largest weight difference 0.00000; reported loss 5.0158 scaled, 10.0316 per-replica mean (SUM), 5.0158 per-replica mean (MEAN)
    Adamax: largest weight difference 0.00000; reported loss 5.0232 scaled, 10.0465 per-replica mean (SUM), 5.0232 per-replica mean (MEAN)

    tf_keras.api._v2.keras, 2 replicas
    SGD: largest weight difference 0.27591; reported loss 3.5039 scaled, 5.1247 per-replica mean (SUM), 2.5623 per-replica mean (MEAN)
    SGD(momentum=0.9): largest weight difference 0.65156; reported loss 2.1221 scaled, 2.4423 per-replica mean (SUM), 1.2212 per-replica mean (MEAN)
    Adam: largest weight difference 0.00000; reported loss 4.9725 scaled, 9.9450 per-replica mean (SUM), 4.9725 per-replica mean (MEAN)
    RMSprop: largest weight difference 0.00000; reported loss 4.6609 scaled, 9.3217 per-replica mean (SUM), 4.6609 per-replica mean (MEAN)
    Adagrad: largest weight difference 0.00400; reported loss 4.3808 scaled, 8.7581 per-replica mean (SUM), 4.3791 per-replica mean (MEAN)
    AdamW: largest weight difference 0.00000; reported loss 4.9715 scaled, 9.9431 per-replica mean (SUM), 4.9715 per-replica mean (MEAN)
    Nadam: largest weight difference nan; reported loss nan scaled, nan per-replica mean (SUM), nan per-replica mean (MEAN)
    Adamax: largest weight difference 0.00000; reported loss 5.0232 scaled, 10.0465 per-replica mean (SUM), 5.0232 per-replica mean (MEAN)
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
}
STEPS = 5
GLOBAL_BATCH = 8


def train(strategy: tf.distribute.Strategy, make_optimizer, scaled: bool) -> tuple[np.ndarray, float, float]:
    """The kernel after STEPS steps and the last loss reported with `strategy.reduce(SUM)` and `(MEAN)`."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH * STEPS, 3)).astype("float32")
    y = rng.normal(size=(GLOBAL_BATCH * STEPS, 1)).astype("float32")
    with strategy.scope():
        layer = tf.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
        layer.build((None, 3))
        optimizer = make_optimizer()
        # Slots made before the compiled step (an unbuilt Keras 3 optimizer fails inside it).
        optimizer.build(layer.trainable_variables)
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))

    def replica_step(features, labels):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean(tf.square(layer(features) - labels), axis=-1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH) if scaled else tf.reduce_mean(per_example)
        grads = tape.gradient(loss, layer.trainable_variables)
        optimizer.apply_gradients(zip(grads, layer.trainable_variables))
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
    return layer.kernel.numpy(), summed, averaged


def main() -> None:
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    print(f"{tf.keras.__name__}, {strategy.num_replicas_in_sync} replicas")
    for name, make in OPTIMIZERS.items():
        scaled_kernel, scaled_loss, _ = train(strategy, make, scaled=True)
        mean_kernel, mean_loss, mean_loss_averaged = train(strategy, make, scaled=False)
        difference = float(np.max(np.abs(scaled_kernel - mean_kernel)))
        print(
            f"{name}: largest weight difference {difference:.5f}; reported loss {scaled_loss:.4f} scaled, "
            f"{mean_loss:.4f} per-replica mean (SUM), {mean_loss_averaged:.4f} per-replica mean (MEAN)",
            flush=True,
        )


if __name__ == "__main__":
    main()
