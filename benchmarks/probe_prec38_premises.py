"""Probe for prec38's TFD303 change: an unreduced per-example loss vector under a custom loop, per optimizer.

Two replicas (the CPU split in two logical devices) under `MirroredStrategy` train one Dense layer
for 5 steps of a custom loop (`strategy.run`, `apply_gradients`, which sums gradients across
replicas) on the same data twice: once with the per-example losses averaged over the global batch
(`tf.nn.compute_average_loss`), once with the per-example vector itself given to `tape.gradient`
(a loss object built with `reduction=NONE`, the TF 2.0 DCGAN port's shape). The probe prints, per
optimizer, the largest weight difference between the two runs, and the loss each reports: the
scaled run's per-replica values reduced with SUM (the global mean), the vector run's reduced with
`strategy.reduce(MEAN, ..., axis=0)` (the port's report) and with SUM over every axis. A second
table runs the same vector on one device (no strategy) against its mean: the vector's gradient is
the sum over the batch there too. Run under Keras 3 and tf-keras:

    python benchmarks/probe_prec38_premises.py
    TF_USE_LEGACY_KERAS=1 python benchmarks/probe_prec38_premises.py

Output on TensorFlow 2.21, 2026-11-28 (Keras 3 names `tf.keras` `keras._tf_keras.keras`; "scaled (SUM)" is
the averaged run's report, the global mean; the vector run's MEAN over axis 0 equals it wherever the
weights are identical, its SUM is the global batch (8) times it):

    keras._tf_keras.keras, 2 replicas, global batch 8
    SGD: largest weight difference 2.11697;
        last reported loss 2.6935 scaled (SUM), 0.0431 vector (MEAN, axis=0), 0.3448 vector (SUM, axis=0)
    Adam: largest weight difference 0.00000;
        last reported loss 4.4113 scaled (SUM), 4.4113 vector (MEAN, axis=0), 35.2902 vector (SUM, axis=0)
    RMSprop: largest weight difference 0.00000;
        last reported loss 4.2739 scaled (SUM), 4.2739 vector (MEAN, axis=0), 34.1911 vector (SUM, axis=0)
    Adam(clipnorm=1.0): largest weight difference 0.00262;
        last reported loss 4.4117 scaled (SUM), 4.4108 vector (MEAN, axis=0), 35.2868 vector (SUM, axis=0)
    one device, the vector against its mean:
    SGD: largest weight difference 2.11697
    Adam: largest weight difference 0.00000
    RMSprop: largest weight difference 0.00000
    Adam(clipnorm=1.0): largest weight difference 0.01140

    tf_keras.api._v2.keras, 2 replicas, global batch 8
    SGD: largest weight difference 2.11697;
        last reported loss 2.6935 scaled (SUM), 0.0431 vector (MEAN, axis=0), 0.3448 vector (SUM, axis=0)
    Adam: largest weight difference 0.00000;
        last reported loss 4.4113 scaled (SUM), 4.4113 vector (MEAN, axis=0), 35.2902 vector (SUM, axis=0)
    RMSprop: largest weight difference 0.00000;
        last reported loss 4.2739 scaled (SUM), 4.2739 vector (MEAN, axis=0), 34.1911 vector (SUM, axis=0)
    Adam(clipnorm=1.0): largest weight difference 0.01140;
        last reported loss 4.4126 scaled (SUM), 4.4245 vector (MEAN, axis=0), 35.3959 vector (SUM, axis=0)
    one device, the vector against its mean:
    SGD: largest weight difference 2.11697
    Adam: largest weight difference 0.00000
    RMSprop: largest weight difference 0.00000
    Adam(clipnorm=1.0): largest weight difference 0.01140
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OPTIMIZERS = {
    "SGD": lambda: tf.keras.optimizers.SGD(0.05),
    "Adam": lambda: tf.keras.optimizers.Adam(0.01),
    "RMSprop": lambda: tf.keras.optimizers.RMSprop(0.01),
    "Adam(clipnorm=1.0)": lambda: tf.keras.optimizers.Adam(0.01, clipnorm=1.0),
}
GLOBAL_BATCH = 8
STEPS = 5


def _data() -> tf.data.Dataset:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH * STEPS, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32") + 0.3).astype("float32")
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)


def _train(strategy: tf.distribute.Strategy | None, make_optimizer, vector: bool) -> tuple[np.ndarray, list[float]]:
    scope = strategy.scope() if strategy is not None else tf.init_scope()
    with scope:
        layer = tf.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
        layer.build((None, 3))
        optimizer = make_optimizer()
        optimizer.build(layer.trainable_variables) if hasattr(optimizer, "build") else None
    mse = tf.keras.losses.MeanSquaredError(reduction="none")

    def step(x, y):
        with tf.GradientTape() as tape:
            per_example = mse(y, layer(x))
            loss = per_example if vector else tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, layer.trainable_variables)
        optimizer.apply_gradients(zip(grads, layer.trainable_variables, strict=True))
        return loss

    reports: list[float] = []
    data = _data()
    if strategy is None:
        for x, y in data:
            loss = step(x, y)
            reports.append(float(tf.reduce_mean(loss)) if vector else float(loss))
    else:
        for x, y in strategy.experimental_distribute_dataset(data):
            loss = strategy.run(tf.function(step), args=(x, y))
            if vector:
                mean = strategy.reduce(tf.distribute.ReduceOp.MEAN, loss, axis=0)
                summed = strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=0)
                reports.append((float(mean), float(summed)))  # type: ignore[arg-type]
            else:
                reports.append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None)))
    return np.concatenate([v.numpy().ravel() for v in layer.trainable_variables]), reports


def main() -> None:
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    print(f"{tf.keras.__name__}, {strategy.num_replicas_in_sync} replicas, global batch {GLOBAL_BATCH}")
    for name, make in OPTIMIZERS.items():
        scaled, scaled_reports = _train(strategy, make, vector=False)
        vector, vector_reports = _train(strategy, make, vector=True)
        last_mean, last_sum = vector_reports[-1]  # type: ignore[misc]
        print(
            f"{name}: largest weight difference {np.abs(scaled - vector).max():.5f};\n    last reported loss "
            f"{scaled_reports[-1]:.4f} scaled (SUM), {last_mean:.4f} vector (MEAN, axis=0), "
            f"{last_sum:.4f} vector (SUM, axis=0)"
        )
    print("one device, the vector against its mean:")
    for name, make in OPTIMIZERS.items():
        mean_weights, _ = _train(None, make, vector=False)
        vector_weights, _ = _train(None, make, vector=True)
        print(f"{name}: largest weight difference {np.abs(mean_weights - vector_weights).max():.5f}")


if __name__ == "__main__":
    main()
