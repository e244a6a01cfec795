"""An optimizer object made outside `strategy.scope()` and given to `compile` inside it, per Keras.

TFD101 reports an optimizer created outside the scope and used by distributed code. A held-out
notebook (ledger6, Keras 2) makes `SGD(momentum=0.9)` before the scope and compiles a model
inside it. This probe runs that shape on two logical CPUs (MirroredStrategy) under Keras 3 and
tf-keras: fit for 2 epochs of 4 steps, then the optimizer's step count and variable kinds.

    python benchmarks/probe_optimizer_made_outside_scope.py

Output on TensorFlow 2.21, Keras 3.15.1 / tf-keras 2.21.0, 2026-11-27 (ledger6, issue 28):

    ## Keras 3
    fit: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow ...
    ## tf-keras (TF_USE_LEGACY_KERAS=1)
    fit: trained, iterations 8 (expected 8), variables ResourceVariable, MirroredVariable, MirroredVariable

Keras 3 fails at `fit`, so the finding is right there; under tf-keras (Keras 2) the momentum
slots are made mirrored at the first step and the step count is right: the finding is wrong
for a Keras 2 program.
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
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)  # outside the scope
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=optimizer, loss="mse")
x = np.random.rand(64, 4).astype("float32")
y = x.sum(axis=1, keepdims=True)
try:
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
except Exception as exc:
    print("fit:", type(exc).__name__ + ":", str(exc).splitlines()[0][:60] + " ...")
else:
    kinds = ", ".join(type(v).__name__ for v in optimizer.variables)
    print(f"fit: trained, iterations {int(optimizer.iterations.numpy())} (expected 8), variables {kinds}")
"""

if __name__ == "__main__":
    run_under_both_kerases(CHILD)
