"""What a notebook's saved output prints for Keras objects on TF 2.21, to tell which Keras ran it
(docs/target.md, "A notebook's recorded Keras"; prec39).

A repr of a Keras object names its class's module: `<keras.src.callbacks.history.History at 0x..>`.
Measured here for the objects notebooks print most (the `History` that `fit` returns, a model's
`type()`, a layer, an optimizer) under both Kerases of TF 2.21:

1. Keras 3: every class path starts with `keras.src.` (and names Keras 3's own modules:
   `keras.src.models.sequential`, `keras.src.callbacks.history`).
2. tf-keras: every class path starts with `tf_keras.src.` (the Keras 2.15 layout: `engine.sequential`,
   `callbacks.History`).
3. Neither prints `tensorflow.python.keras.` nor `keras.` without `src.`: those are the class paths
   of a Keras 2 that no 2.21 install has. `tensorflow.python.keras.` is the Keras 2 inside
   TensorFlow's own tree, which `tf.keras` was up to TF 2.5; TF 2.6.0's release notes (not measured
   here): "Keras been split into a separate PIP package (keras), and its code has been moved to the
   GitHub repository keras-team/keras. The API endpoints for tf.keras stay unchanged, but are now
   backed by the keras PIP package." `keras.engine.` / `keras.callbacks.History` is that package
   before its code moved under `keras/src` (the tf-keras layout above, with `keras.` for `tf_keras.`).
4. The in-tree module still imports on 2.21, and an object made from it directly prints its path:
   a notebook that imports `tensorflow.python.keras` itself prints it whatever `tf.keras` is
   (such code is read as Keras 2 code anyway: fixer/tf/keras2_internals.py).

    python benchmarks/probe_recorded_keras.py

Output on TensorFlow 2.21 (2026-11-28, prec39), CPU:

    keras 3 | repr(fit's History): <keras.src.callbacks.history.History object at 0x..>
    keras 3 | type(Sequential model): <class 'keras.src.models.sequential.Sequential'>
    keras 3 | type(functional model): <class 'keras.src.models.functional.Functional'>
    keras 3 | repr(Dense layer): <Dense name=dense, built=True>
    keras 3 | type(Dense layer): <class 'keras.src.layers.core.dense.Dense'>
    keras 3 | type(Adam optimizer): <class 'keras.src.optimizers.adam.Adam'>
    keras 3 | repr of the in-tree History, made directly: <tensorflow.python.keras.callbacks.History object at 0x..>
    tf-keras | repr(fit's History): <tf_keras.src.callbacks.History object at 0x..>
    tf-keras | type(Sequential model): <class 'tf_keras.src.engine.sequential.Sequential'>
    tf-keras | type(functional model): <class 'tf_keras.src.engine.functional.Functional'>
    tf-keras | repr(Dense layer): <tf_keras.src.layers.core.dense.Dense object at 0x..>
    tf-keras | type(Dense layer): <class 'tf_keras.src.layers.core.dense.Dense'>
    tf-keras | type(Adam optimizer): <class 'tf_keras.src.optimizers.adam.Adam'>
    tf-keras | repr of the in-tree History, made directly: <tensorflow.python.keras.callbacks.History object at 0x..>
"""

from __future__ import annotations

import importlib
import re

from probing import first_error_line, main_per_keras, print_outcomes


def _addressless(text: str) -> str:
    """``text`` with object addresses blanked: they differ from run to run."""
    return re.sub(r"0x[0-9a-f]+", "0x..", text)


def reprs(flavour: str) -> None:
    """The reprs and types a notebook prints for common Keras objects, for one Keras."""
    import numpy as np
    import tensorflow as tf

    def history() -> str:
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        return _addressless(repr(model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0)))

    def sequential() -> str:
        return str(type(tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])))

    def functional() -> str:
        inputs = tf.keras.Input(shape=(2,))
        return str(type(tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))))

    def layer() -> str:
        dense = tf.keras.layers.Dense(1, name="dense")
        dense(np.ones((1, 2)))
        return _addressless(repr(dense))

    def layer_type() -> str:
        return str(type(tf.keras.layers.Dense(1)))

    def optimizer() -> str:
        return str(type(tf.keras.optimizers.Adam()))

    def in_tree() -> str:
        callbacks = importlib.import_module("tensorflow.python.keras.callbacks")
        return _addressless(repr(callbacks.History()))

    print_outcomes(
        flavour,
        [
            ("repr(fit's History)", history),
            ("type(Sequential model)", sequential),
            ("type(functional model)", functional),
            ("repr(Dense layer)", layer),
            ("type(Dense layer)", layer_type),
            ("type(Adam optimizer)", optimizer),
            ("repr of the in-tree History, made directly", in_tree),
        ],
        describe=lambda exc: first_error_line(exc, width=60),
    )


if __name__ == "__main__":
    main_per_keras(__file__, reprs)
