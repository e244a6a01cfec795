"""A premise a ledger12a verdict (benchmarks/WILD.md) rests on, measured on TF 2.21.

A Keras model with its own `train_step` computes an unreduced loss (`reduction="none"`, one value
per example) and applies `tape.gradient` of that vector, as keras.io's masked-language-model
example does. On one device the gradient is the sum over the batch. Under `MirroredStrategy` each
replica takes the sum over its share, and `apply_gradients` adds the replicas' gradients: is the
step the same as on one device with the same global batch? Measured with `fit` over one global
batch of 8 (two logical CPUs, 4 examples each), SGD and Adam, per Keras flavour.

    python benchmarks/probe_ledger12a_premises.py

Output on TensorFlow 2.21 (2026-11-27, ledger12a), two logical CPUs:

    keras 3 | SGD: MirroredStrategy vs one device, largest weight difference 0
    keras 3 | Adam: MirroredStrategy vs one device, largest weight difference 0
    tf-keras | SGD: MirroredStrategy vs one device, largest weight difference 4.66e-09
    tf-keras | Adam: MirroredStrategy vs one device, largest weight difference 0

So the strategy changes nothing for such a loss (4.66e-09 is float32 rounding of a sum taken in
another order): the sum of the per-replica sums is the one-device sum over the global batch.
Whatever that scale means for the optimizer, it is the program's own choice, not a distribution
mistake.
"""

from __future__ import annotations

import numpy as np
from probing import last_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def unreduced_loss_cases(flavour: str) -> None:
    """One `fit` step with a per-example loss vector, under MirroredStrategy and on one device."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    keras = tf.keras
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype("float32")
    y = rng.normal(size=(8, 1)).astype("float32")

    class PerExampleLoss(keras.Model):
        """`train_step` differentiates the unreduced loss vector, as the keras.io MLM example does."""

        def train_step(self, data: tuple[tf.Tensor, tf.Tensor]) -> dict[str, tf.Tensor]:
            features, labels = data
            with tf.GradientTape() as tape:
                loss = keras.losses.MeanSquaredError(reduction="none")(labels, self(features, training=True))
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables, strict=True))
            return {"loss": tf.reduce_mean(loss)}  # Keras 3 needs a log to return

    def weights_after_one_step(optimizer_name: str, distributed: bool) -> list[np.ndarray]:
        scope = strategy.scope() if distributed else tf.distribute.get_strategy().scope()
        with scope:
            inputs = keras.Input((3,))
            outputs = keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")(inputs)
            model = PerExampleLoss(inputs, outputs)
            optimizer = keras.optimizers.SGD(0.01) if optimizer_name == "SGD" else keras.optimizers.Adam(0.01)
            model.compile(optimizer=optimizer)
        model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
        return [np.asarray(w) for w in model.get_weights()]

    def compare(optimizer_name: str) -> str:
        mirrored = weights_after_one_step(optimizer_name, distributed=True)
        single = weights_after_one_step(optimizer_name, distributed=False)
        largest = max(float(np.max(np.abs(a - b))) for a, b in zip(mirrored, single, strict=True))
        return f"MirroredStrategy vs one device, largest weight difference {largest:.3g}"

    print_outcomes(
        flavour,
        [("SGD", lambda: compare("SGD")), ("Adam", lambda: compare("Adam"))],
        describe=last_error_line,
    )


if __name__ == "__main__":
    main_per_keras(__file__, unreduced_loss_cases)
