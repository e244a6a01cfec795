"""TFD101: a Keras metric made outside `strategy.scope()` and updated in cross-replica context.

Two logical CPUs make MirroredStrategy run 2 replicas. A `Mean` metric is constructed outside the
scope and updated with 0..9, (a) inside `with strategy.scope():` in cross-replica context and
(b) eagerly outside any scope after the strategy exists, as an evaluation loop on the
coordinator does. The mean of 0..9 is 4.5. Control: (c) the same metric updated in a replica
function through `strategy.run`. Run under both Keras flavours:

    python benchmarks/probe_metric_updated_in_cross_replica_context.py

Output on TensorFlow 2.21, 2026-11-27: kept in docs/probes.md ("Precision round 3").
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from keras_flavours import run_under_both_kerases  # noqa: E402

CHILD = r"""
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def run(variant):
    metric = tf.keras.metrics.Mean("m")
    if variant == "updated in the scope, cross-replica":
        with strategy.scope():
            for i in range(10):
                metric.update_state(float(i))
    elif variant == "updated outside any scope":
        for i in range(10):
            metric.update_state(float(i))
    else:
        values = strategy.experimental_distribute_dataset(tf.data.Dataset.range(10).map(lambda i: tf.cast(i, tf.float32)).batch(2))
        for batch in values:
            strategy.run(tf.function(lambda x: metric.update_state(x)), args=(batch,))
    print(f"{variant}: result {float(metric.result()):.4f}")


for variant in ("updated in the scope, cross-replica", "updated outside any scope", "updated in strategy.run (control)"):
    try:
        run(variant)
    except Exception as exc:  # the control may fail: print what it raises
        print(f"{variant}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
"""

if __name__ == "__main__":
    run_under_both_kerases(CHILD)
