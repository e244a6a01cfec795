"""A premise ledger11a verdicts (benchmarks/WILD.md) rest on, measured on TF 2.21.

A custom training loop (no `fit`): the model is built in `MirroredStrategy.scope()`, an Adam made
outside the scope (a GAN's own `compile` storing optimizers made in its call arguments), and a
`tf.function` step applies the gradients inside `strategy.run`. Does it train, per Keras flavour?
For contrast, the Adam made inside the scope, once built lazily by the first `apply_gradients` and
once built in the scope on the model's variables before the loop.

    python benchmarks/probe_ledger11a_premises.py

Output on TensorFlow 2.21 (2026-11-27, ledger11a), two logical CPUs (each case: the Adam's place):

    keras 3 | made outside the scope: RuntimeError: Mixing different tf.distribute.Strategy objects ...
    keras 3 | made in the scope, built lazily: InvalidArgumentError: You must feed a value for placeholder tensor ...
    keras 3 | made and built in the scope: trains, 2 steps
    tf-keras | made outside the scope: trains, 2 steps
    tf-keras | made in the scope, built lazily: trains, 2 steps
    tf-keras | made and built in the scope: trains, 2 steps

So TFD101's Keras 3 premise holds for custom loops too (not only `fit`), tf-keras trains, and on
Keras 3 making the optimizer in the scope is not enough in such a loop on this strategy: it must also
be built there (`optimizer.build(model.trainable_variables)`) before the first step.
"""

from __future__ import annotations

from probing import last_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def custom_loop_cases(flavour: str) -> None:
    """Where the optimizer is made and built, against a `strategy.run` step that applies it."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    keras = tf.keras
    data = tf.data.Dataset.from_tensor_slices((tf.ones((8, 3)), tf.ones((8, 1)))).batch(4)

    def train(where: str) -> str:
        with strategy.scope():
            model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
            if where != "outside":
                optimizer = keras.optimizers.Adam(1e-2)
                if where == "built":
                    optimizer.build(model.trainable_variables)
        if where == "outside":
            optimizer = keras.optimizers.Adam(1e-2)

        @tf.function
        def step(batch: tuple[tf.Tensor, tf.Tensor]) -> object:
            def replica(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((model(x) - y) ** 2)
                gradients = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
                return loss

            return strategy.run(replica, args=batch)

        for batch in strategy.experimental_distribute_dataset(data):
            step(batch)
        return f"trains, {int(optimizer.iterations.numpy())} steps"

    print_outcomes(
        flavour,
        [
            ("made outside the scope", lambda: train("outside")),
            ("made in the scope, built lazily", lambda: train("lazy")),
            ("made and built in the scope", lambda: train("built")),
        ],
        describe=_cause,
    )


# The line that names the cause, in errors raised while tracing or running a graph (the traceback's
# last line is often only "N derived errors ignored").
CAUSES = ("Mixing different tf.distribute.Strategy objects", "You must feed a value for placeholder tensor")


def _cause(exc: Exception) -> str:
    """The exception's type and the cause it states (without object addresses), else its last line."""
    for cause in CAUSES:
        if cause in str(exc):
            return f"{type(exc).__name__}: {cause} ..."
    return last_error_line(exc)


if __name__ == "__main__":
    main_per_keras(__file__, custom_loop_cases)
