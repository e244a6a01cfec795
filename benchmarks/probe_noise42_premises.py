"""Probe for TFD202 (noise42): `AutoShardPolicy.OFF` on a dataset read only by `model.evaluate`.

With OFF under MultiWorkerMirroredStrategy every worker reads the whole evaluation set, so each
example is evaluated once per worker; `evaluate` all-reduces its metrics' running totals and counts
across the replicas before dividing. Running two local workers is too heavy for this machine, so
the probe measures the two facts that claim rests on, with MirroredStrategy over two logical CPUs:

1. `evaluate` of a set in which every example appears twice (what two workers reading the whole set
   add up to) returns the same loss and accuracy as `evaluate` of the set itself.
2. Under the strategy, batches handed to `strategy.run` undistributed reach every replica whole
   (every replica reads the whole set, as every worker does with OFF); the `Mean` and
   `SparseCategoricalAccuracy` metrics updated there, made in the scope and so aggregated across
   the replicas, equal the one-device values.

That OFF makes every worker read all the data is measured by the existing multi-worker probes
(docs/probes.md, TFD202). Run for Keras 3 and tf-keras (a child with TF_USE_LEGACY_KERAS=1):

    python benchmarks/probe_noise42_premises.py

Output on TensorFlow 2.21, 2026-11-28:

    keras 3 | evaluate(set): loss 1.257430 acc 0.5 | evaluate(set twice): loss 1.257430 acc 0.5
    keras 3 | 2 replicas, each reads the whole set: mean loss 1.257430 acc 0.5 (one device: 1.257430, 0.5)
    tf-keras | evaluate(set): loss 1.257430 acc 0.5 | evaluate(set twice): loss 1.257430 acc 0.5
    tf-keras | 2 replicas, each reads the whole set: mean loss 1.257430 acc 0.5 (one device: 1.257430, 0.5)
"""

from __future__ import annotations

import os
import subprocess
import sys


def _measure() -> None:
    import numpy as np
    import tensorflow as tf

    legacy = os.environ.get("TF_USE_LEGACY_KERAS") == "1"
    if legacy:
        import tf_keras as keras
    else:
        import keras
    label = "tf-keras" if legacy else "keras 3"
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype("float32")
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1], dtype="int64")

    def build() -> keras.Model:
        model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
        model.set_weights([np.array([[0.5, -0.5], [1.0, -1.0], [-0.25, 0.25]], "float32"), np.zeros(2, "float32")])
        model.compile(
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        return model

    model = build()
    data = tf.data.Dataset.from_tensor_slices((x, y))
    once = model.evaluate(data.batch(4), verbose=0)
    twice = model.evaluate(data.concatenate(data).batch(4), verbose=0)
    print(
        f"{label} | evaluate(set): loss {once[0]:.6f} acc {once[1]:g} | "
        f"evaluate(set twice): loss {twice[0]:.6f} acc {twice[1]:g}"
    )

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        replicated = build()
        loss_mean = keras.metrics.Mean()
        accuracy = keras.metrics.SparseCategoricalAccuracy()

    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    @tf.function
    def step(batch: tuple[tf.Tensor, tf.Tensor]) -> None:
        features, labels = batch
        logits = replicated(features, training=False)
        loss_mean.update_state(loss(labels, logits))
        accuracy.update_state(labels, logits)

    for batch in data.batch(4):  # not distributed: every replica gets every example, as with OFF
        strategy.run(step, args=(batch,))
    print(
        f"{label} | {strategy.num_replicas_in_sync} replicas, each reads the whole set: "
        f"mean loss {float(loss_mean.result()):.6f} "
        f"acc {float(accuracy.result()):g} (one device: {once[0]:.6f}, {once[1]:g})"
    )


if __name__ == "__main__":
    if os.environ.get("NOISE42_CHILD") == "1":
        _measure()
    else:
        for legacy in ("0", "1"):
            env = {**os.environ, "NOISE42_CHILD": "1", "TF_USE_LEGACY_KERAS": legacy, "TF_CPP_MIN_LOG_LEVEL": "3"}
            done = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True, check=False)
            sys.stdout.write(done.stdout)
            if done.returncode:
                sys.stderr.write(done.stderr[-2000:])
