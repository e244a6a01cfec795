"""The premises two ledger13a verdicts (benchmarks/WILD.md) rest on, measured on TF 2.21.

1. A course homework with no TensorFlow pin builds its VAE from Keras layers in a way only Keras 2
   accepts: `Input(shape=150)` (an int, not a tuple) and `tf.shape` of a symbolic Keras tensor
   while the functional model is built. If those raise under Keras 3, the program stops at the
   model's construction there and never reaches its compiled `strategy.run` step, so a finding
   whose premise is Keras 3's behaviour in that step cannot happen; and under Keras 2 (tf-keras),
   does an Adam made in a MirroredStrategy scope and first applied inside `strategy.run` in a
   `tf.function` train (the official custom-loop tutorial's shape)?
2. A `fit` inside a MirroredStrategy scope (one machine, two replicas): does it train under
   Keras 3? (A program that later makes a MultiWorkerMirroredStrategy does not change the
   strategy this `fit` runs under.)

    python benchmarks/probe_ledger13a_premises.py

Output on TensorFlow 2.21 (2026-11-27, ledger13a), two logical CPUs:

    keras 3 | Input(shape=150): ValueError: Cannot convert '150' to a shape.
    keras 3 | tf.shape of a symbolic input: ValueError: A KerasTensor cannot be used as input to a TensorFlow ...
    keras 3 | unbuilt Adam in a compiled strategy.run step: InvalidArgumentError: Graph execution error:
    keras 3 | fit in a MirroredStrategy scope: trains, finite loss
    tf-keras | Input(shape=150): builds
    tf-keras | tf.shape of a symbolic input: builds
    tf-keras | unbuilt Adam in a compiled strategy.run step: trains, 2 steps
    tf-keras | fit in a MirroredStrategy scope: trains, finite loss

So under Keras 3 such a program stops where its model is built (the unbuilt Adam would fail too,
but the step is never reached); under Keras 2 it builds and its unbuilt Adam trains. A `fit` in a
MirroredStrategy scope trains under both Kerases.
"""

from __future__ import annotations

import numpy as np
from probing import first_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def premise_cases(flavour: str) -> None:
    """Measure each premise under the Keras flavour this process was started with."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    keras = tf.keras

    def int_input_shape() -> str:
        keras.layers.Input(shape=150)
        return "builds"

    def shape_of_symbolic_input() -> str:
        inputs = keras.layers.Input(shape=(4,))
        tf.shape(keras.layers.Dense(2)(inputs))
        return "builds"

    def unbuilt_adam_in_compiled_step() -> str:
        with strategy.scope():
            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
            optimizer = keras.optimizers.Adam(0.01)

        def replica_step(features: tf.Tensor) -> None:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(features) ** 2)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))

        @tf.function
        def step(features: tf.Tensor) -> None:
            strategy.run(replica_step, args=(features,))

        data = tf.data.Dataset.from_tensor_slices(np.ones((8, 3), "float32")).batch(4)
        steps = 0
        for batch in strategy.experimental_distribute_dataset(data):
            step(batch)
            steps += 1
        return f"trains, {steps} steps"

    def fit_in_mirrored_scope() -> str:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(16, 3)).astype("float32")
        y = rng.normal(size=(16, 1)).astype("float32")
        with strategy.scope():
            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
            history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)
        loss = history.history["loss"][-1]
        return "trains, finite loss" if np.isfinite(loss) else f"loss {loss}"

    print_outcomes(
        flavour,
        [
            ("Input(shape=150)", int_input_shape),
            ("tf.shape of a symbolic input", shape_of_symbolic_input),
            ("unbuilt Adam in a compiled strategy.run step", unbuilt_adam_in_compiled_step),
            ("fit in a MirroredStrategy scope", fit_in_mirrored_scope),
        ],
        describe=first_error_line,
    )


if __name__ == "__main__":
    main_per_keras(__file__, premise_cases)
