"""Premises of prec19c's TFD303 policy (benchmarks/WILD.md): which per-example vector losses have a
step that depends on the replica count.

One SGD step and one Adam step, global batch 8, a Dense(1) layer starting from the same weights,
run on the default strategy (one device) and on two replicas of one MirroredStrategy:

1. the unreduced vector (`mse(reduction="none")` given to `tape.gradient`): the step is the same on
   one and on two replicas (the replicas' batch sums add up to the one-device sum), so its scale is
   the program's choice, not a distribution mistake;
2. the vector divided by `num_replicas_in_sync`: the SGD step with two replicas is half the
   one-device step (each replica sums its share and divides by N); Adam normalises the scale;
3. control: the vector averaged with `tf.nn.compute_average_loss` takes the same step on both.

    python benchmarks/probe_prec19c_premises.py

Output on TensorFlow 2.21 (2026-11-28, prec19c), CPU:

    keras 3 | vector, SGD: 2 replicas / one device step ratio 1.0000
    keras 3 | vector, Adam: 2 replicas / one device step ratio 1.0000
    keras 3 | vector / num_replicas_in_sync, SGD: 2 replicas / one device step ratio 0.5000
    keras 3 | vector / num_replicas_in_sync, Adam: 2 replicas / one device step ratio 1.0000
    keras 3 | compute_average_loss, SGD: 2 replicas / one device step ratio 1.0000
    keras 3 | compute_average_loss, Adam: 2 replicas / one device step ratio 1.0000
    tf-keras | vector, SGD: 2 replicas / one device step ratio 1.0000
    tf-keras | vector, Adam: 2 replicas / one device step ratio 1.0000
    tf-keras | vector / num_replicas_in_sync, SGD: 2 replicas / one device step ratio 0.5000
    tf-keras | vector / num_replicas_in_sync, Adam: 2 replicas / one device step ratio 1.0000
    tf-keras | compute_average_loss, SGD: 2 replicas / one device step ratio 1.0000
    tf-keras | compute_average_loss, Adam: 2 replicas / one device step ratio 1.0000
"""

from __future__ import annotations

import sys

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas

GLOBAL_BATCH = 8


def premises(flavour: str) -> None:
    """Compare the one-device and the two-replica step of each loss shape under this process's Keras."""
    import tensorflow as tf

    mirrored = two_cpu_replicas(tf)  # before any other op: the two logical CPUs
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(GLOBAL_BATCH, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32") + 0.3).astype("float32")

    def step_size(strategy: tf.distribute.Strategy, shape: str, optimizer_name: str) -> float:
        """The largest weight change of one step of ``shape``'s loss on ``strategy``."""
        with strategy.scope():
            layer = tf.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")
            layer.build((None, 3))
            optimizer = getattr(tf.keras.optimizers, optimizer_name)(0.01)
            if hasattr(optimizer, "build"):  # Keras 3 makes its slots here, in the scope
                optimizer.build(layer.trainable_variables)
        start = np.concatenate([v.numpy().ravel() for v in layer.trainable_variables])
        mse = tf.keras.losses.MeanSquaredError(reduction="none")

        def step(features, labels):
            with tf.GradientTape() as tape:
                per_example = mse(labels, layer(features))
                replicas = tf.distribute.get_replica_context().num_replicas_in_sync
                loss = {
                    "vector": per_example,
                    "divided": per_example / replicas,
                    "average": tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH),
                }[shape]
            grads = tape.gradient(loss, layer.trainable_variables)
            optimizer.apply_gradients(zip(grads, layer.trainable_variables, strict=True))

        data = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
        for features, labels in strategy.experimental_distribute_dataset(data):
            strategy.run(tf.function(step), args=(features, labels))
        end = np.concatenate([v.numpy().ravel() for v in layer.trainable_variables])
        return float(np.abs(end - start).max())

    def ratio(shape: str, optimizer_name: str) -> str:
        one = step_size(tf.distribute.get_strategy(), shape, optimizer_name)
        two = step_size(mirrored, shape, optimizer_name)
        return f"2 replicas / one device step ratio {two / one:.4f}"

    labels = {"vector": "vector", "divided": "vector / num_replicas_in_sync", "average": "compute_average_loss"}
    print_outcomes(
        flavour,
        [
            (f"{labels[shape]}, {name}", lambda shape=shape, name=name: ratio(shape, name))
            for shape in labels
            for name in ("SGD", "Adam")
        ],
    )


if __name__ == "__main__":
    if len(sys.argv) > 1:
        premises(sys.argv[1])
    else:
        rerun_per_keras(__file__)
