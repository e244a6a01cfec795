"""Premises of the ledger23a verdicts (benchmarks/WILD.md): what a training step called directly
(not through ``strategy.run``) does with a model built outside, or inside, a strategy's scope.

A held-out tree of Colab TPU examples (TF 2.3, Keras 2) builds its model and its optimizer outside
the scope, then writes ``with strategy.scope(): model = model`` and defines its step functions in
that block, and calls the step directly in the epoch loop. distfix reports the model (TFD101, with
an unsafe fix that moves the model's construction into a scope) and the step (TFD103: "updates the
strategy's variables but is not called through `strategy.run`"). Another of its notebooks builds
model, optimizer and metrics in the scope and calls its ``tf.function`` step directly.

Each case builds a small Sequential model, an Adam optimizer and one batch, and runs one step. A
MirroredStrategy over two logical CPUs stands in for the TPUStrategy (the checks below are
distribution-strategy checks, not TPU ones):

1. as written ("1 as written"): model and optimizer outside the scope, ``model = model`` in it, the step called;
2. after TFD101's fix ("2 fixed"): the model built in the scope, the optimizer still outside, the step called
   (a ``tf.function`` step and an eager one, the two shapes of the tree);
3. everything in the scope ("3 all in the scope"), the ``tf.function`` step called directly (the other notebook);
4. TFD101's fix on a subclassed model whose first call (which makes its weights) is below the scope.

    python benchmarks/probe_ledger23a_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger23a), CPU:

    keras 3 | 1 as written: ran, plain variables: True
    keras 3 | 2 fixed, tf.function step: TypeError: tuple indices must be integers or slices, not MirroredVariable
    keras 3 | 2 fixed, eager step: TypeError: tuple indices must be integers or slices, not MirroredVariable
    keras 3 | 3 all in the scope: RuntimeError: Need to be inside "with strategy.scope()" for <tensorflow.python
    keras 3 | 4 fixed, subclassed model first called below the scope: ran, plain variables: True
    tf-keras | 1 as written: ran, plain variables: True
    tf-keras | 2 fixed, tf.function step: ValueError: Trying to create optimizer slot variable under the scope for tf.
    tf-keras | 2 fixed, eager step: ValueError: Trying to create optimizer slot variable under the scope for tf.
    tf-keras | 3 all in the scope: ran, plain variables: False
    tf-keras | 4 fixed, subclassed model first called below the scope: ran, plain variables: True

As written, the step runs and the model's variables are plain ones: the self-assignment in the scope
creates nothing, so no variable is the strategy's and "updates the strategy's variables" is false
of it. After TFD101's fix the first step raises where the script ran, under both Kerases: Keras 2's
OptimizerV2 (TF 2.3's class) makes its slots under the default strategy for variables the strategy
owns (ValueError), Keras 3's optimizer indexes a MirroredVariable (TypeError). With everything in
the scope, the step called directly runs under Keras 2 without replicating (one cross-replica
computation, not `strategy.run`) and raises under Keras 3. On a subclassed model whose first call is
below the scope the fix changes nothing: the weights are still made outside it, and the step runs as
before.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

from probing import main_per_keras, print_outcomes, two_cpu_replicas

if TYPE_CHECKING:
    from collections.abc import Callable


def cause(exc: Exception) -> str:
    """The exception's type and the line that states its cause, cut to 64 characters: an error
    raised while tracing wraps it ("in user code:", the frames, then "    ValueError: ...")."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    stated = [re.sub(r"^\w+: ", "", line) for line in lines if re.match(r"^\w+(Error|Exception): ", line)]
    return f"{type(exc).__name__}: {(stated or lines or [''])[0][:64]}"


def measure(flavour: str) -> None:
    """Print one line per case: whether one training step runs, and where the model's variables live."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    x, y = tf.ones([4, 2]), tf.ones([4, 1])
    # TF 2.3's Keras optimizer is OptimizerV2, which tf-keras keeps as `optimizers.legacy`;
    # Keras 3 has one optimizer class.
    adam = tf.keras.optimizers.legacy.Adam if flavour == "tf-keras" else tf.keras.optimizers.Adam

    class Single(tf.keras.Model):
        """A subclassed model: its weights are made at its first call, not at construction."""

        def __init__(self) -> None:
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, inputs: tf.Tensor) -> tf.Tensor:
            return self.dense(inputs)

    def build() -> tf.keras.Model:
        return tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])

    def step_for(model: tf.keras.Model, optimizer: tf.keras.optimizers.Optimizer, traced: bool) -> Callable[[], None]:
        def step() -> None:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))

        return tf.function(step) if traced else step

    def outcome(model: tf.keras.Model, step: Callable[[], None]) -> str:
        step()
        on_default = not tf.distribute.has_strategy() and all(
            not hasattr(v, "values") for v in model.trainable_variables
        )
        return f"ran, plain variables: {on_default}"

    def as_written() -> str:
        model = build()
        optimizer = adam()
        with strategy.scope():
            model = model  # noqa: PLW0127 - the tree's own self-assignment, the premise measured
            step = step_for(model, optimizer, traced=True)
        return outcome(model, step)

    def fixed(traced: bool) -> Callable[[], str]:
        def case() -> str:
            with strategy.scope():
                model = build()
            optimizer = adam()
            return outcome(model, step_for(model, optimizer, traced))

        return case

    def subclassed_fixed() -> str:
        with strategy.scope():
            model = Single()
        model(x)  # the tree's `model(temp_inputs)` below the scope: the weights are made here
        optimizer = adam()
        return outcome(model, step_for(model, optimizer, traced=True))

    def all_in_scope() -> str:
        with strategy.scope():
            model = build()
            optimizer = adam()
            step = step_for(model, optimizer, traced=True)
        return outcome(model, step)

    print_outcomes(
        flavour,
        (
            ("1 as written", as_written),
            ("2 fixed, tf.function step", fixed(traced=True)),
            ("2 fixed, eager step", fixed(traced=False)),
            ("3 all in the scope", all_in_scope),
            ("4 fixed, subclassed model first called below the scope", subclassed_fixed),
        ),
        describe=cause,
    )


if __name__ == "__main__":
    sys.exit(main_per_keras(__file__, measure))
