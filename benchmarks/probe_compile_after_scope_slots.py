"""TFD101: a model built in a strategy's scope and compiled after it: where the optimizer's slots go.

The shape of issue 28's last TFD101 verdicts (prec27): `with strategy.scope(): model = ...`, then
`model.compile(optimizer="adam", ...)` (or an `Adam()` made outside the scope) after the block,
then `fit`. Each variant trains the same model (fixed initial weights, fixed data, no shuffling)
for 2 epochs and prints whether `compile` or `fit` raised, the kinds of the optimizer's variables
after `fit` (the step counter and Adam's two slots per weight), and whether the final kernel equals
the reference's (everything in the scope). Run with 2 logical CPUs (2 replicas) and with a
one-device `MirroredStrategy` (one GPU on a notebook platform), under both Keras flavours:

    python benchmarks/probe_compile_after_scope_slots.py

Output on TensorFlow 2.21, Keras 3.15.1 / tf-keras 2.21.0, 2026-11-27 (prec27; `C` is
`compile('adam') after the scope`, `A` is `Adam() made and compiled after the scope`, `RE` is
`RuntimeError: Mixing different tf.distribute.Strategy objects`):

    ## Keras 3
    2 replicas, all inside (reference): trained; variables MirroredVariable x6; kernel = reference
    2 replicas, C: fit raised RE; variables ResourceVariable x2
    2 replicas, A: fit raised RE; variables ResourceVariable x2
    1 device, all inside (reference): trained; variables MirroredVariable x6; kernel = reference
    1 device, C: fit raised RE; variables ResourceVariable x2
    1 device, A: fit raised RE; variables ResourceVariable x2
    ## tf-keras (TF_USE_LEGACY_KERAS=1)
    2 replicas, all inside (reference): trained; variables MirroredVariable x5; kernel = reference
    2 replicas, C: trained; variables MirroredVariable x5; kernel = reference
    2 replicas, A: trained; variables ResourceVariable, MirroredVariable x4; kernel = reference
    1 device, all inside (reference): trained; variables MirroredVariable x5; kernel = reference
    1 device, C: trained; variables MirroredVariable x5; kernel = reference
    1 device, A: trained; variables ResourceVariable, MirroredVariable x4; kernel = reference

Keras 3 raises at the first `fit` step whatever the number of devices: the optimizer built
outside the scope holds its step counter and learning rate as plain variables of no strategy,
and its slots are never made. tf-keras's `compile` enters the model's own strategy: a string
optimizer makes all its variables there (mirrored), an `Adam()` made outside keeps a plain step
counter but makes its four slots mirrored at the first step, and both train the reference's
weights. So the finding is right for a project that runs Keras 3 (a fresh install of TensorFlow
2.16 or later, an unpinned notebook opened today) and wrong for one that runs Keras 2
(TensorFlow 2.15 or older, or tf-keras selected).
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
STRATEGIES = {
    "2 replicas": lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]),
    "1 device": lambda: tf.distribute.MirroredStrategy(["/cpu:0"]),
}
rng = np.random.default_rng(0)
x = rng.random((64, 4)).astype("float32")
y = 2 * x.sum(axis=1, keepdims=True) + 1  # not the initial weights: training must move them


def build():
    return tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])


def kinds(optimizer):
    # Keras 3 wraps each tf.Variable in a backend variable whose `.value` is the tf.Variable;
    # tf-keras's variables are the tf.Variables themselves (`.value` is a method there).
    names = []
    for variable in optimizer.variables:
        inner = variable.value if not callable(getattr(variable, "value", None)) else variable
        names.append(type(inner).__name__)
    counted = {n: names.count(n) for n in dict.fromkeys(names)}
    return ", ".join(n if c == 1 else f"{n} x{c}" for n, c in counted.items())


def run(strategy, variant):
    with strategy.scope():
        model = build()
        if variant == "all inside (reference)":
            model.compile("adam", loss="mse")
    stage = "compile"
    try:
        if variant == "compile('adam') after the scope":
            model.compile("adam", loss="mse")
        elif variant == "Adam() made and compiled after the scope":
            model.compile(tf.keras.optimizers.Adam(), loss="mse")
        stage = "fit"
        model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    except (ValueError, RuntimeError) as exc:
        reason = str(exc).split(": <")[0].split(". ")[0]
        made = model.optimizer is not None and model.optimizer.variables
        made = f"; variables {kinds(model.optimizer)}" if made else ""
        return f"{stage} raised {type(exc).__name__}: {reason}{made}", None
    return f"trained; variables {kinds(model.optimizer)}", model.layers[-1].kernel.numpy().ravel()


VARIANTS = ("all inside (reference)", "compile('adam') after the scope", "Adam() made and compiled after the scope")
for label, make in STRATEGIES.items():
    reference = None
    for variant in VARIANTS:
        text, kernel = run(make(), variant)
        if kernel is not None:
            reference = kernel if reference is None else reference
            same = np.allclose(kernel, reference, atol=1e-6)
            text += "; kernel = reference" if same else f"; kernel {np.round(kernel, 5).tolist()} != reference"
        print(f"{label}, {variant}: {text}")
"""

if __name__ == "__main__":
    run_under_both_kerases(CHILD)
