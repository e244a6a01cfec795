"""Probe for TFD101: a Keras model made outside `strategy.scope()` and used only in the input
pipeline, as the function of `dataset.map` (a preprocessing model: a tokenizer, a normaliser).

The CPU is split into 2 logical devices. A preprocessing model (a `Dense` layer with fixed weights,
no training) is made outside the scope; a classifier is made and compiled in the scope. The
training dataset maps every batch through the preprocessor, the map written (a) outside the scope
and (b) inside it, and (c) in a helper the scope calls with the preprocessor as an argument. Each
case fits 2 steps and prints whether it trained (a finite loss), whether the preprocessor's kernel
is a distributed (replicated) variable, and whether the preprocessor's weights stayed the same.

    python benchmarks/probe_model_in_dataset_map.py

Output on TensorFlow 2.21 (Keras 3.15.1, tf-keras 2.21), 2026-11-27: in docs/probes.md.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas  # noqa: E402


def main(flavour: str) -> None:
    import numpy as np
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    keras = tf.keras
    x = np.ones((16, 4), "float32")
    y = np.ones((16, 1), "float32")

    def preprocessor() -> keras.Model:
        inputs = keras.Input(shape=(4,))
        return keras.Model(inputs, keras.layers.Dense(3, kernel_initializer="ones")(inputs))

    def classifier() -> keras.Model:
        model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        return model

    def load(prep: keras.Model) -> tf.data.Dataset:
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(8).map(lambda a, b: (prep(a), b))

    def case(where: str) -> str:
        prep = preprocessor()
        before = [w.copy() for w in prep.get_weights()]
        data = load(prep) if where == "outside" else None
        with strategy.scope():
            model = classifier()
            if where == "inside":
                data = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).map(lambda a, b: (prep(a), b))
            elif where == "helper":
                data = load(prep)
        history = model.fit(data, epochs=1, steps_per_epoch=2, verbose=0)
        same = all(np.array_equal(a, b) for a, b in zip(before, prep.get_weights(), strict=True))
        kernel = prep.weights[0]
        replicated = isinstance(getattr(kernel, "value", kernel), tf.distribute.DistributedValues)
        loss = history.history["loss"][-1]
        return f"trained (finite loss {np.isfinite(loss)}), replicated {replicated}, weights unchanged {same}"

    print_outcomes(
        flavour,
        [
            ("map written outside the scope", lambda: case("outside")),
            ("map written inside the scope", lambda: case("inside")),
            ("map in a helper called in the scope", lambda: case("helper")),
        ],
    )


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1])
    else:
        rerun_per_keras(__file__)
