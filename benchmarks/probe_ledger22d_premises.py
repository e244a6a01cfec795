"""Premise of ledger22d's TFD103 verdict: gradients reduced first, then applied in cross-replica context.

A training loop computes each replica's gradients with `strategy.run`, reduces them with
`strategy.reduce(MEAN, g, axis=None)` inside the same `tf.function`, returns them, and calls a
second `tf.function` that runs `optimizer.apply_gradients(zip(reduced, model.trainable_variables))`
directly (not through `strategy.run`). Does that apply, on TensorFlow 2.21 with a two-replica
MirroredStrategy, the same update as one device would with the whole batch, and keep the replicas'
copies of each variable equal? With Keras 3's SGD, tf-keras's SGD (the optimizer `tf.keras` gives
from TF 2.11 on) and tf-keras's `optimizers.legacy.SGD` (OptimizerV2, what `tf.keras.optimizers`
gave before 2.11; fix22e). Two logical CPUs stand in for two GPUs:

    python benchmarks/probe_ledger22d_premises.py

Output on TensorFlow 2.21, Keras 3, tf-keras 2.21 (2026-11-28, ledger22d; tf-keras rows fix22e):

    replicas: 2
    cross-replica apply of reduced gradients: ran, copies equal True, matches one device True
    tf-keras SGD: ran, copies equal True, matches one device True
    tf-keras legacy SGD: ran, copies equal False, matches one device True

The OptimizerV2 update runs but changes only the first replica's copy (the other keeps its start):
the replicas drift apart, so fixer/tf/reduced_values.py's exemption from TFD103 holds from TF 2.11 on.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

BATCH = 8


def make_model() -> tf.keras.Model:
    """A one-layer model with fixed weights, so that both runs start from the same point."""
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
    return model


def single_device_update(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The kernel after one SGD step on the whole batch, on one device."""
    model = make_model()
    optimizer = tf.keras.optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return model.trainable_variables[0].numpy()


def main() -> None:
    """Print whether the cross-replica apply runs, keeps the copies equal and matches one device."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    print("replicas:", strategy.num_replicas_in_sync)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, 3)).astype("float32")
    y = rng.normal(size=(BATCH, 1)).astype("float32")
    with strategy.scope():
        model = make_model()
        optimizer = tf.keras.optimizers.SGD(0.1)
        optimizer.build(model.trainable_variables)
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors((x, y)))

    @tf.function
    def grads_step(batch: tuple[tf.Tensor, tf.Tensor]) -> list[tf.Tensor]:
        def replica_fn(inputs: tf.Tensor, labels: tf.Tensor) -> list[tf.Tensor]:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(inputs) - labels))
            return tape.gradient(loss, model.trainable_variables)

        per_replica = strategy.run(replica_fn, args=batch)
        return [strategy.reduce(tf.distribute.ReduceOp.MEAN, g, axis=None) for g in per_replica]

    @tf.function
    def apply_step(grads: list[tf.Tensor]) -> None:
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))

    reduced = grads_step(next(iter(dataset)))
    reference = single_device_update(x, y)
    print("cross-replica apply of reduced gradients:", _applied(strategy, model, apply_step, reduced, reference))
    for label, legacy in (("tf-keras SGD", False), ("tf-keras legacy SGD", True)):
        print(f"{label}:", _tf_keras_apply(strategy, legacy, [g.numpy() for g in reduced], reference))


def _applied(
    strategy: tf.distribute.Strategy, model: object, apply: object, grads: object, reference: np.ndarray
) -> str:
    """Run ``apply(grads)`` and say whether the replicas' kernels agree and match ``reference``."""
    try:
        apply(grads)  # type: ignore[operator]
    except Exception as error:  # noqa: BLE001 - the probe reports whatever the apply raises
        return f"{type(error).__name__}: {error}"
    kernel = model.trainable_variables[0]  # type: ignore[attr-defined]
    copies = [v.numpy() for v in strategy.experimental_local_results(kernel)]
    equal = all(np.allclose(copies[0], c) for c in copies[1:])
    matches = np.allclose(copies[0], reference, atol=1e-6)
    return f"ran, copies equal {equal}, matches one device {matches}"


def _tf_keras_apply(
    strategy: tf.distribute.Strategy, legacy: bool, grads: list[np.ndarray], reference: np.ndarray
) -> str:
    """The same cross-replica apply with a tf-keras model and SGD (``legacy``: OptimizerV2)."""
    import tf_keras  # noqa: PLC0415 - only this part needs tf-keras

    with strategy.scope():
        model = tf_keras.Sequential([tf_keras.Input((3,)), tf_keras.layers.Dense(1, kernel_initializer="ones")])
        optimizer = tf_keras.optimizers.legacy.SGD(0.1) if legacy else tf_keras.optimizers.SGD(0.1)

    @tf.function
    def apply_step(grads: list[tf.Tensor]) -> None:
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))

    return _applied(strategy, model, apply_step, [tf.constant(g) for g in grads], reference)


if __name__ == "__main__":
    main()
