"""Probe for TFD101 and TFD109: a Keras model constructed outside `strategy.scope()` but first
built inside it, and what `model.build((None, n))` builds.

The CPU is split into 2 logical devices. Each case constructs a small model, builds it (or not)
as stated, compiles it with Adam and fits 2 steps under a `MirroredStrategy`, then prints whether
it trained and the class of its first kernel:

- a `Sequential` without an input shape, constructed outside, called on a batch in the scope;
- the same, compiled in the scope and first built by `fit` (after the scope);
- a subclassed model without `build()`, constructed outside, called on a batch in the scope;
- control: a `Sequential` with an input shape (built at construction) outside the scope.

Then, for TFD109's fix, the number of weights a subclassed model without `build()` has after
`model.build((None, 2))` and after calling it on one batch of a dataset's `element_spec`, and
what a compiled custom step that applies Adam to it does in each case.

    python benchmarks/probe_model_built_in_scope.py

Output on TensorFlow 2.21 (Keras 3.15.1, tf-keras 2.21), 2026-11-26: in docs/probes.md.
"""

from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from keras_flavours import FLAVOURS  # noqa: E402

CHILD = r"""
import sys
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
keras = tf.keras
x = np.ones((8, 2), "float32"); y = np.ones((8, 1), "float32")


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, inputs):
        return self.dense(inputs)


def kernel_class(model):
    kernel = model.weights[0] if model.weights else None
    kernel = getattr(kernel, "_value", kernel)  # Keras 3 wraps the tf.Variable
    return type(kernel).__name__


def case(label, run):
    strategy = tf.distribute.MirroredStrategy()
    made = []
    try:
        run(strategy, made)
        outcome = "trains"
    except Exception as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        # The first line that says what went wrong (a graph error's root cause is further down).
        said = [line for line in lines if line.startswith(("(0)", "ValueError", "RuntimeError")) or "must" in line]
        message = (said or lines or ["(no message)"])[0][:120]
        outcome = f"raises {type(exc).__name__}: {message}"
    print(f"{label}: {outcome}; kernel is {kernel_class(made[0]) if made else '?'}")


def sequential_called_in_scope(strategy, made):
    model = keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(1)])
    made.append(model)
    with strategy.scope():
        model(tf.zeros((1, 2)))
        model.compile(optimizer=keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)


def sequential_built_by_fit(strategy, made):
    model = keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(1)])
    made.append(model)
    with strategy.scope():
        model.compile(optimizer=keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)


def subclass_called_in_scope(strategy, made):
    model = Net()
    made.append(model)
    with strategy.scope():
        model(tf.zeros((1, 2)))
        model.compile(optimizer=keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)


def sequential_built_outside(strategy, made):
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    made.append(model)
    with strategy.scope():
        model.compile(optimizer=keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)


CASES = {
    "Sequential without input shape, called in scope": sequential_called_in_scope,
    "Sequential without input shape, compiled in scope, built by fit": sequential_built_by_fit,
    "subclassed, called in scope": subclass_called_in_scope,
    "control: Sequential with input shape, built outside": sequential_built_outside,
}

dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)


def custom_step(build):
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = Net()
        optimizer = keras.optimizers.Adam()
        build(model)
        weights = len(model.weights)
        if hasattr(optimizer, "build"):
            optimizer.build(model.trainable_variables)

    @tf.function
    def step(batch):
        def replica(features, labels):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(features) - labels) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        strategy.run(replica, args=batch)

    try:
        for batch in strategy.experimental_distribute_dataset(dataset):
            step(batch)
        outcome = "custom step trains"
    except Exception as exc:
        outcome = f"custom step raises {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
    return weights, outcome


def build_by_shape(model):
    model.build((None, 2))


def build_by_element_spec(model):
    features = dataset.element_spec[0]
    model(tf.zeros([1, *features.shape[1:]], features.dtype))


BUILDS = {"model.build((None, 2))": build_by_shape, "called on a batch of element_spec": build_by_element_spec}

# One case per process: several MirroredStrategy objects in one process share collective keys.
label = sys.argv[1]
if label in CASES:
    case(label, CASES[label])
else:
    weights, outcome = custom_step(BUILDS[label])
    print(f"subclassed without build(), {label}: {weights} weights; {outcome}")
"""

LABELS = (
    "Sequential without input shape, called in scope",
    "Sequential without input shape, compiled in scope, built by fit",
    "subclassed, called in scope",
    "control: Sequential with input shape, built outside",
    "model.build((None, 2))",
    "called on a batch of element_spec",
)


def main() -> None:
    """Run each case in a fresh process under each Keras flavour."""
    for label, legacy in FLAVOURS:
        env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
        sys.stdout.write(f"## {label}\n")
        for case in LABELS:
            result = subprocess.run(
                [sys.executable, "-c", CHILD, case], env=env, capture_output=True, text=True, timeout=300, check=False
            )
            lines = [line for line in result.stdout.splitlines() if line.strip()]
            sys.stdout.write("\n".join(lines or [f"{case}: exit {result.returncode}: {result.stderr.strip()[-300:]}"]) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
