"""Probe for TFD101: a subclassed Keras model that enters `strategy.scope()` inside `call()`.

On 2 logical CPU devices, a `keras.Model` subclass whose `call` runs its layer under
`with strategy.scope():` of a `MirroredStrategy` is constructed, compiled and trained with `fit`
outside the scope (as scripts that "distribute the forward pass" do); a control builds the same
model in the scope. Prints the strategy the model records, the batch rows each `call` receives
for a `fit` batch of 8, and the class of the layer's kernel. Runs once under Keras 3 and once
under tf-keras (`TF_USE_LEGACY_KERAS=1`).

    python benchmarks/probe_scope_inside_call.py
"""

from __future__ import annotations

from keras_flavours import run_under_both_kerases

CHILD = r"""
import sys
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def call(self, x):
        tf.print(LABEL, "call got", tf.shape(x)[0], "rows", output_stream=sys.stdout)
        with strategy.scope():
            return self.dense(x)


x, y = np.ones([8, 4], "float32"), np.ones([8, 1], "float32")
for LABEL in ("constructed outside the scope:", "constructed in the scope:"):
    try:
        if LABEL.startswith("constructed in"):
            with strategy.scope():
                model = Net()
                model.compile(optimizer="sgd", loss="mse")
        else:
            model = Net()
            model.compile(optimizer="sgd", loss="mse")
        print(LABEL, "model strategy", type(model.distribute_strategy).__name__)
        model.fit(x, y, batch_size=8, epochs=1, steps_per_epoch=1, verbose=0)
        print(LABEL, "kernel", type(model.dense.kernel).__name__)
    except Exception as exc:
        # The first line of the error TensorFlow raises (Keras wraps it in context lines).
        lines = [line.strip() for line in str(exc).splitlines() if "Mixing different" in line or "cross-replica context" in line]
        print(LABEL, "raises", type(exc).__name__ + ":", (lines or [""])[0].replace("\x1b[1m", "").replace("\x1b[0m", "")[:120])
"""


def main() -> None:
    run_under_both_kerases(CHILD)


if __name__ == "__main__":
    main()
