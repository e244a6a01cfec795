"""What TFD101's move of a functional `Model(inputs, outputs)` (and its `compile`) into the scope
does when the layers were called on the symbolic input outside it, in statements the move leaves
(prec40; ledger15b measured layers first called on an eager batch: probe_ledger15b_premises.py).

1. `x = Dense(4)(inputs)`, `outputs = Dense(2)(x)` outside the scope, then `Model(inputs,
   outputs)` and `compile` in it: does `fit` train on the two replicas, or raise?
2. The same with the layer calls in the scope too (the move that takes them along): the control.

    python benchmarks/probe_functional_layers_outside_scope.py

Output on TensorFlow 2.21 (2026-11-28, prec40), CPU:

    keras 3 | layers outside, Model+compile in scope, fit: ValueError: `colocate_vars_with` must only be passed
    keras 3 | layers, Model and compile all in scope, fit: trains on 2 replica(s)
    tf-keras | layers outside, Model+compile in scope, fit: ValueError: Variable (<tf.Variable 'dense/kernel:0'
    tf-keras | layers, Model and compile all in scope, fit: trains on 2 replica(s)
"""

from __future__ import annotations

from probing import first_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def premises(flavour: str) -> None:
    """Build the layers symbolically outside or inside the scope, then fit."""
    import numpy as np
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    features, labels = np.ones((8, 3), dtype=np.float32), np.ones((8, 2), dtype=np.float32)

    def layers_outside() -> str:
        inputs = tf.keras.Input(shape=(3,))
        hidden = tf.keras.layers.Dense(4)(inputs)
        outputs = tf.keras.layers.Dense(2)(hidden)
        with strategy.scope():
            model = tf.keras.Model(inputs, outputs)
            model.compile(optimizer="adam", loss="mse")
        model.fit(features, labels, epochs=1, batch_size=4, verbose=0)
        return "trains"

    def layers_inside() -> str:
        with strategy.scope():
            inputs = tf.keras.Input(shape=(3,))
            hidden = tf.keras.layers.Dense(4)(inputs)
            outputs = tf.keras.layers.Dense(2)(hidden)
            model = tf.keras.Model(inputs, outputs)
            model.compile(optimizer="adam", loss="mse")
        model.fit(features, labels, epochs=1, batch_size=4, verbose=0)
        return f"trains on {model.distribute_strategy.num_replicas_in_sync} replica(s)"

    print_outcomes(
        flavour,
        [
            ("layers outside, Model+compile in scope, fit", layers_outside),
            ("layers, Model and compile all in scope, fit", layers_inside),
        ],
        describe=lambda exc: first_error_line(exc, width=40),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
