"""Two premises the ledger9b verdicts (benchmarks/WILD.md) rest on, measured on TF 2.21.

1. A `MultiWorkerMirroredStrategy` made with no `TF_CONFIG` (no cluster: a single worker on its
   local devices), the model built and compiled in its scope: do Keras `fit` and `evaluate`
   work? (TFD504 reports them; its own measurement is on two workers.) And with `compile` called
   outside the scope (TFD101)?
2. A model and an Adam optimizer made in a MirroredStrategy scope over two CPUs, the gradient taken on the
   whole batch outside `strategy.run` and applied in cross-replica context (an eager debugging
   loop that ignores the strategy; TFD103 reports it): does `apply_gradients` raise, or does it
   take one whole-batch step?

Each case runs in its own process, once per Keras flavour (the strategy is fixed per process):

    python benchmarks/probe_ledger9b_premises.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-27, ledger9b):

    keras 3 | MWMS without a cluster, compiled in the scope: fit and evaluate work
    keras 3 | MWMS without a cluster, compiled outside the scope: RuntimeError: Mixing different
        tf.distribute.Strategy objects: ...
    tf-keras | MWMS without a cluster, compiled in the scope: fit and evaluate work
    tf-keras | MWMS without a cluster, compiled outside the scope: fit and evaluate work
    keras 3 | gradients applied outside strategy.run: RuntimeError: Need to be inside "with strategy.scope()" for ...
    tf-keras | gradients applied outside strategy.run: applied, one whole-batch step

So TFD504's premise needs a cluster: without one, Keras 3 trains under the strategy. An eager
loop that applies gradients outside `strategy.run` trains on one device with the whole batch on
tf-keras (Keras 2), and raises on Keras 3.
"""

from __future__ import annotations

import os
import subprocess
import sys

from probing import KERAS_FLAVOURS, first_error_line, print_outcomes, two_cpu_replicas

CASES = ("mwms", "inline")


def mwms_without_cluster(flavour: str) -> None:
    """Case 1: fit and evaluate under a MultiWorkerMirroredStrategy with no TF_CONFIG."""
    import numpy as np
    import tensorflow as tf

    os.environ.pop("TF_CONFIG", None)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    features = np.random.default_rng(0).random((64, 4)).astype("float32")
    labels = np.zeros(64, dtype="int64")

    def train(compile_in_scope: bool) -> str:
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])
        loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        if compile_in_scope:
            with strategy.scope():
                model.compile(optimizer="adam", loss=loss, metrics=["accuracy"])
        else:
            model.compile(optimizer="adam", loss=loss, metrics=["accuracy"])
        model.fit(features, labels, epochs=1, batch_size=16, verbose=0)
        model.evaluate(features, labels, verbose=0)
        return "fit and evaluate work"

    print_outcomes(
        flavour,
        [
            ("MWMS without a cluster, compiled in the scope", lambda: train(True)),
            ("MWMS without a cluster, compiled outside the scope", lambda: train(False)),
        ],
        describe=first_error_line,
    )


def gradients_outside_run(flavour: str) -> None:
    """Case 2: a whole-batch gradient applied to mirrored variables outside `strategy.run`."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(
            0.1
        )  # as the eager loop that prompted this (its slots are made at the first step)

    def apply() -> str:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(tf.ones((4, 3))))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
        return "applied, one whole-batch step"

    print_outcomes(flavour, [("gradients applied outside strategy.run", apply)], describe=first_error_line)


def main() -> None:
    """Each case and Keras flavour in a fresh process."""
    if len(sys.argv) > 2:
        flavour, case = sys.argv[1], sys.argv[2]
        (mwms_without_cluster if case == "mwms" else gradients_outside_run)(flavour)
        return
    for case in CASES:
        for flavour, legacy in KERAS_FLAVOURS:
            env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
            env.pop("TF_CONFIG", None)
            subprocess.run([sys.executable, __file__, flavour, case], env=env, check=False)


if __name__ == "__main__":
    main()
