"""Probe for TFD114: a Keras metric made in `strategy.scope()` and updated in cross-replica code.

The CPU is split into 2 logical devices; a `MirroredStrategy` (2 replicas) and a
`OneDeviceStrategy` each own a `Mean` metric made in their scope. Each case, in a fresh
process, updates the metric with the loss that `strategy.reduce` returned, or per replica:

- in the outer `tf.function`, after `strategy.reduce`;
- eagerly, in the Python loop, with the reduced loss;
- eagerly, directly under `with strategy.scope():`;
- by calling the metric (`metric(value)`) in the outer `tf.function`;
- inside the replica function given to `strategy.run` (the fix);
- with a plain Python accumulator of the reduced loss (the other fix);
- a metric made outside the scope, updated in the Python loop;
- `reset_state()` and `result()` in cross-replica code;
- under `OneDeviceStrategy`, in the outer `tf.function`.

Each prints what happened and the metric's result; run under Keras 3 and tf-keras.

    python benchmarks/probe_metric_updated_cross_replica.py

Output on TensorFlow 2.21 (Keras 3.15.1, tf-keras 2.21), 2026-11-26 (messages cut at 160 characters):

    ## Keras 3
    outer tf.function after reduce: works; result 3.50
    python loop, reduced loss: works; result 3.50
    directly under strategy.scope(): works; result 3.50
    metric(value) in outer tf.function: works; result 3.50
    inside the replica function (fix): works; result 3.50
    python accumulator (fix): works; result 3.50
    metric made outside the scope, python loop: works; result 3.50
    reset_state() and result() cross-replica: works; result 0.00
    OneDeviceStrategy, outer tf.function: works; result 3.50
    ## tf-keras (TF_USE_LEGACY_KERAS=1)
    outer tf.function after reduce: ValueError: SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is set to `tf.VariableAggregation.SUM`.
    python loop, reduced loss: ValueError: SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is set to `tf.VariableAggregation.SUM`.
    directly under strategy.scope(): ValueError: SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is set to `tf.VariableAggregation.SUM`.
    metric(value) in outer tf.function: ValueError: SyncOnReadVariable does not support `assign_add` in cross-replica context when aggregation is set to `tf.VariableAggregation.SUM`.
    inside the replica function (fix): works; result 3.50
    python accumulator (fix): works; result 3.50
    metric made outside the scope, python loop: works; result 3.50
    reset_state() and result() cross-replica: works; result 0.00
    OneDeviceStrategy, outer tf.function: works; result 3.50
"""

from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from keras_flavours import run_under_both_kerases  # noqa: E402

CASES = (
    "outer tf.function after reduce",
    "python loop, reduced loss",
    "directly under strategy.scope()",
    "metric(value) in outer tf.function",
    "inside the replica function (fix)",
    "python accumulator (fix)",
    "metric made outside the scope, python loop",
    "reset_state() and result() cross-replica",
    "OneDeviceStrategy, outer tf.function",
)

CHILD = r"""
import subprocess, sys
case = sys.argv[1] if len(sys.argv) > 1 else None
if case is None:
    for case in CASES:
        out = subprocess.run([sys.executable, "-c", CHILD_SOURCE, case], capture_output=True, text=True)
        print(out.stdout.strip() or (case + ": no output; " + (out.stderr.strip().splitlines() or ["?"])[-1]))
    sys.exit(0)

import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
keras = tf.keras

if case.startswith("OneDevice"):
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
else:
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
if case.startswith("metric made outside"):
    metric = keras.metrics.Mean()
else:
    with strategy.scope():
        metric = keras.metrics.Mean()
# Two steps; each replica's loss is its batch's mean, so the reduced (mean) losses are known.
data = tf.data.Dataset.from_tensor_slices(tf.range(8, dtype=tf.float32)).batch(4)
dist = strategy.experimental_distribute_dataset(data)


def replica_loss(x):
    return tf.reduce_mean(x)


def replica_update(x):
    loss = tf.reduce_mean(x)
    metric.update_state(loss)
    return loss


@tf.function
def outer(x):
    loss = strategy.reduce("MEAN", strategy.run(replica_loss, args=(x,)), axis=None)
    if case == "outer tf.function after reduce" or case.startswith("OneDevice"):
        metric.update_state(loss)
    elif case == "metric(value) in outer tf.function":
        metric(loss)
    return loss


@tf.function
def outer_fixed(x):
    return strategy.reduce("MEAN", strategy.run(replica_update, args=(x,)), axis=None)


total = 0.0
steps = 0
try:
    for x in dist:
        if case == "inside the replica function (fix)":
            loss = outer_fixed(x)
        else:
            loss = outer(x)
        if case in ("python loop, reduced loss", "metric made outside the scope, python loop"):
            metric.update_state(loss)
        elif case == "directly under strategy.scope()":
            with strategy.scope():
                metric.update_state(loss)
        elif case == "python accumulator (fix)":
            total += float(loss)
            steps += 1
        elif case == "reset_state() and result() cross-replica":
            metric.result()
            metric.reset_state()
    value = total / steps if steps else float(metric.result())
    print(f"{case}: works; result {value:.2f}")
except Exception as exc:
    print(f"{case}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
"""


def main() -> None:
    """Run each case in its own process under both Kerases."""
    source = CHILD.replace("CASES", repr(CASES)).replace("CHILD_SOURCE", repr(CHILD.replace("CASES", repr(CASES))))
    run_under_both_kerases(source)


if __name__ == "__main__":
    main()
