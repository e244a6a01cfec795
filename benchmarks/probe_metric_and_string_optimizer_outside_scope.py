"""TFD101: a Keras metric, `compile("sgd")` or `compile("adam")` outside the scope of a model built in it.

Two logical CPUs make MirroredStrategy run 2 replicas. Each variant trains the same model (fixed
initial weights, fixed data, no shuffling) for 2 epochs with `fit` and prints the final weights
and the metric `fit` reports: everything inside the scope (the reference), a
`MeanAbsoluteError` metric constructed outside the scope and passed to `compile` inside it,
`compile("sgd", metrics=["mae"])` called outside the scope, and the same two with `"adam"`
(everything inside, and `compile("adam", metrics=["mae"])` outside), and that last one for a model
with a Keras 2 style `train_step` of its own (`compiled_loss`, `compiled_metrics`, the optimizer
applied by hand; added by prec18). Run under both Keras flavours:

    python benchmarks/probe_metric_and_string_optimizer_outside_scope.py

Output on TensorFlow 2.21, 2026-11-27:

    ## Keras 3
    all inside: kernel [1.2206799983978271, 1.2439899444580078, 1.260509967803955, 1.2404799461364746]; mae 2.4599
    metric outside: kernel [1.2206799983978271, 1.2439899444580078, 1.260509967803955, 1.2404799461364746]; mae 2.4599
    compile('sgd') outside: kernel [1.2206799983978271, 1.2439899444580078, 1.260509967803955, 1.2404799461364746]; mae 2.4599
    all inside, adam: kernel [1.007949948310852, 1.0079900026321411, 1.0078799724578857, 1.007830023765564]; mae 3.12793
    compile('adam') outside: RuntimeError: Mixing different tf.distribute.Strategy objects
    own train_step, compile('adam') outside: RuntimeError: Mixing different tf.distribute.Strategy objects
    ## tf-keras (TF_USE_LEGACY_KERAS=1)
    all inside: kernel [1.2206799983978271, 1.2439899444580078, 1.260509967803955, 1.2404799461364746]; mae 2.4599
    metric outside: ValueError: Metric (MeanAbsoluteError(name=mae,dtype=float32)) passed to `model.compile` was created inside a different distribution strategy scope than the model
    compile('sgd') outside: kernel [1.2206799983978271, 1.2439899444580078, 1.260509967803955, 1.2404799461364746]; mae 2.4599
    all inside, adam: kernel [1.007949948310852, 1.0079900026321411, 1.0078799724578857, 1.007830023765564]; mae 3.12793
    compile('adam') outside: kernel [1.007949948310852, 1.0079900026321411, 1.0078799724578857, 1.007830023765564]; mae 3.12793
    own train_step, compile('adam') outside: kernel [1.007949948310852, 1.0079900026321411, 1.0078799724578857, 1.007830023765564]; mae 3.12793

A string optimizer with state (`"adam"`) compiled outside the scope fails under Keras 3 (the
optimizer's slot variables belong to no strategy) and trains identically under tf-keras, whose
`compile` enters the model's own scope. A `train_step` of the model's own changes neither
outcome: Keras 3 still raises, tf-keras still trains identically.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from keras_flavours import run_under_both_kerases  # noqa: E402

CHILD = r"""
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
rng = np.random.default_rng(0)
x = rng.random((64, 4)).astype("float32")
y = 2 * x.sum(axis=1, keepdims=True) + 1  # not the initial weights: training must move them


def build():
    return tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])


class OwnStep(tf.keras.Model):
    # A model wrapping another, with a Keras 2 style `train_step` of its own (compiled_loss,
    # compiled_metrics, the optimizer applied by hand).

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def call(self, inputs):
        return self.inner(inputs)

    def train_step(self, data):
        features, labels = data
        with tf.GradientTape() as tape:
            predictions = self.inner(features, training=True)
            loss = self.compiled_loss(labels, predictions)
        gradients = tape.gradient(loss, self.inner.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.inner.trainable_variables))
        self.compiled_metrics.update_state(labels, predictions)
        return {m.name: m.result() for m in self.metrics}


def run(variant):
    if variant == "metric outside":
        metric = tf.keras.metrics.MeanAbsoluteError(name="mae")
    with strategy.scope():
        model = OwnStep(build()) if variant.startswith("own train_step") else build()
        if variant == "all inside":
            model.compile("sgd", loss="mse", metrics=[tf.keras.metrics.MeanAbsoluteError(name="mae")])
        elif variant == "metric outside":
            model.compile("sgd", loss="mse", metrics=[metric])
    if variant == "compile('sgd') outside":
        model.compile("sgd", loss="mse", metrics=["mae"])
    if variant in ("compile('adam') outside", "own train_step, compile('adam') outside"):
        model.compile("adam", loss="mse", metrics=["mae"])
    if variant == "all inside, adam":
        with strategy.scope():
            model.compile("adam", loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    kernel = (model.inner if isinstance(model, OwnStep) else model).layers[-1].kernel.numpy().ravel()
    print(f"{variant}: kernel {np.round(kernel, 5).tolist()}; mae {round(history.history['mae'][-1], 5)}")


VARIANTS = (
    "all inside",
    "metric outside",
    "compile('sgd') outside",
    "all inside, adam",
    "compile('adam') outside",
    "own train_step, compile('adam') outside",
)
for variant in VARIANTS:
    try:
        run(variant)
    except (ValueError, RuntimeError) as exc:
        print(f"{variant}: {type(exc).__name__}: {str(exc).split('. ')[0].split(': <')[0]}")
"""

if __name__ == "__main__":
    run_under_both_kerases(CHILD)
