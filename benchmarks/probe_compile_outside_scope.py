"""`compile` outside `strategy.scope()` for a model and optimizer built inside it, per Keras.

Backs TFD101's treatment of such a `compile` under tf-keras (Keras 2, what a project pinned below
TensorFlow 2.16 runs): tf-keras's `Model.compile` enters the model's own strategy scope, so the
metrics and optimizer state it builds are the strategy's. Two logical CPUs make MirroredStrategy
run 2 replicas. Run: python benchmarks/probe_compile_outside_scope.py
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
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam(0.01)
    metric = tf.keras.metrics.MeanAbsoluteError()
model.compile(optimizer=optimizer, loss="mse", metrics=[metric])  # outside the scope
x = np.random.rand(64, 4).astype("float32")
y = x.sum(axis=1, keepdims=True)
history = model.fit(x, y, batch_size=16, epochs=2, verbose=0)
print("replicas", strategy.num_replicas_in_sync)
print("fit trained: loss", [round(v, 4) for v in history.history["loss"]])
print("optimizer variables distributed:", all(isinstance(v, tf.distribute.DistributedValues) for v in optimizer.variables))
print("model strategy is the program's:", model.distribute_strategy is strategy)
"""

if __name__ == "__main__":
    run_under_both_kerases(CHILD)
