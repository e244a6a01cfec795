"""Premises of ledger22c's verdicts (blind trees with less common tf.distribute APIs).

1. An inference-only Keras model built outside the scope and called in the replica function of a
   compiled `strategy.run` (point0bar1/ebm-life-cycle `fid.py`, a prior energy model added to the
   sampler's energy): does it run, and does each replica get the same values as an eager call?
2. A model built in the scope (or left unbuilt, built by its first call in the step), with an
   optimizer made in the scope and never built, stepped in a compiled `strategy.run` over two
   replicas (filtho/GenoCAE, TF 2.7 / Keras 2): does the step run?
3. `save_weights(prefix, save_format="tf")` (the same tree): which Keras accepts it?

Two logical CPU devices stand for two GPUs:

    python benchmarks/probe_ledger22c_premises.py

Output on TensorFlow 2.21 (Keras 3.15.1 and tf-keras 2.21), 2026-11-28:

    keras 3 | model made outside, inference in run: runs, replicas equal eager: True
    keras 3 | unbuilt Adam: InvalidArgumentError: 0 derived errors ignored. [Op:__inference_fn_with_cond_990]
    keras 3 | lazy model+Adam: InvalidArgumentError: 0 derived errors ignored. [Op:__inference_fn_with_cond_2002]
    keras 3 | save_format='tf': TypeError: Model.save_weights() got an unexpected keyword argument 'save_format'
    tf-keras | model made outside, inference in run: runs, replicas equal eager: True
    tf-keras | unbuilt Adam: trains, loss falls: True
    tf-keras | lazy model+Adam: trains, loss falls: True
    tf-keras | save_format='tf': writes the checkpoint

The inference model built outside the scope runs in both Kerases: both replicas read its weights and
get the eager call's values. The unbuilt optimizer fails on Keras 3 only; and a program that saves
with `save_format="tf"` cannot run on Keras 3 at all (tf-keras, as TF 2.7's Keras 2, writes it).
"""

from __future__ import annotations

import os
import tempfile

from probing import last_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def premises(flavour: str) -> None:
    """Measure the three premises under ``flavour`` (Keras 3 or tf-keras)."""
    import numpy as np
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    images = tf.constant(np.random.default_rng(0).normal(size=(4, 3)), tf.float32)

    def inference_outside_scope() -> str:
        inputs = tf.keras.Input(shape=(3,))
        prior = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
        eager = prior(images, training=False).numpy()

        @tf.function
        def sample(batch: tf.Tensor) -> object:
            return strategy.run(lambda x: prior(x, training=False), args=(batch,))

        per_replica = [t.numpy() for t in strategy.experimental_local_results(sample(images))]
        same = all(np.allclose(values, eager) for values in per_replica)
        return f"runs, replicas equal eager: {same}"

    def unbuilt_optimizer_step(built_model: bool) -> str:
        with strategy.scope():
            if built_model:
                inputs = tf.keras.Input(shape=(3,))
                model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
            else:  # built by its first call, in the replica step
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam(0.1)

        def step(x: tf.Tensor) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x) ** 2) / strategy.num_replicas_in_sync
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        @tf.function
        def train(batch: tf.Tensor) -> tf.Tensor:
            losses = strategy.run(step, args=(batch,))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

        first = float(train(images))
        last = float(train(images))
        return f"trains, loss falls: {last < first}"

    def save_weights_tf_format() -> str:
        inputs = tf.keras.Input(shape=(3,))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
        with tempfile.TemporaryDirectory() as folder:
            model.save_weights(os.path.join(folder, "weights", "1"), save_format="tf")
        return "writes the checkpoint"

    print_outcomes(
        flavour,
        [
            ("model made outside, inference in run", inference_outside_scope),
            ("unbuilt Adam", lambda: unbuilt_optimizer_step(built_model=True)),
            ("lazy model+Adam", lambda: unbuilt_optimizer_step(built_model=False)),
            ("save_format='tf'", save_weights_tf_format),
        ],
        lambda exc: last_error_line(exc, 70),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
