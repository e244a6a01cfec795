"""Premises of ledger24b's verdict and recall note (benchmarks/WILD.md, "ledger24b (blind)").

Two facts the blind round's write-up rests on, measured on TensorFlow 2.21 with a two-replica
MirroredStrategy on two logical CPU devices (and a one-replica one where it matters):

- a scale variable assigned by every replica: a non-trainable `tf.Variable` is created outside
  `strategy.scope()` (or, as TFD101's fix moves it, inside), then each replica computes
  `1 / reduce_std(its shard)` and `assign`s it from within `strategy.run` in a `tf.function`
  (in the scope once with the default aggregation, once with `aggregation=MEAN`).
  The shards are chosen so that the replicas compute different values (2.0 and 0.6667). What
  does the variable hold afterwards (per replica for the in-scope one)?
- a parenthesised single argument: `strategy.run(fn, args=(batch))` (no trailing comma, so
  `args` is the batch itself, not a one-element tuple) inside a `tf.function`, with a batch
  from a distributed dataset.

    python benchmarks/probe_ledger24b_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger24b):

    outside the scope: ResourceVariable holds 0.6667 (one replica's value; the other wrote 2.0)
    inside the scope: MirroredVariable holds [2.0, 0.6667] (one value per replica)
    inside the scope, aggregation=MEAN: MirroredVariable holds [1.3333, 1.3333]
    2 replicas | run(fn, args=(batch)): ValueError: positional args must be a list or tuple, got PerReplica
    1 replicas | run(fn, args=(batch)): ValueError: positional args must be a list or tuple, got SymbolicTensor
    2 replicas | run(fn, args=(batch,)): ran, 8 rows
"""

from __future__ import annotations

import os
import re

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402 - the log level must be set before TensorFlow loads

# Two shards of two rows whose standard deviations differ: 0.5 and 1.5, so scales 2.0 and 0.6667.
SHARDED_ROWS = [0.0, 1.0, 2.0, 5.0]


def two_cpu_devices() -> None:
    """Split the host CPU into two logical devices (once per process, before any op)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)


def scale_assigned_by_replicas(strategy: tf.distribute.Strategy, in_scope: bool, mean: bool = False) -> str:
    """Create the scale variable outside or inside the scope, let each replica assign its own value."""
    if in_scope:
        aggregation = tf.VariableAggregation.MEAN if mean else tf.VariableAggregation.NONE
        with strategy.scope():
            scale = tf.Variable(1.0, trainable=False, name="scale", aggregation=aggregation)
    else:
        scale = tf.Variable(1.0, trainable=False, name="scale")
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(SHARDED_ROWS).batch(4))

    def encode(rows: tf.Tensor) -> tf.Tensor:
        scale.assign(1.0 / tf.math.reduce_std(rows))
        return rows * scale

    @tf.function
    def step(batch: tf.Tensor) -> None:
        strategy.run(encode, args=(batch,))

    for batch in dataset:
        step(batch)
    kind = type(scale).__name__
    if in_scope:
        values = [round(float(v.numpy()), 4) for v in scale.values]  # type: ignore[attr-defined]
        if mean:
            return f"inside the scope, aggregation=MEAN: {kind} holds {values}"
        return f"inside the scope: {kind} holds {values} (one value per replica)"
    value = round(float(scale.numpy()), 4)
    return f"outside the scope: {kind} holds {value} (one replica's value; the other wrote 2.0)"


def run_with_args(strategy: tf.distribute.Strategy, trailing_comma: bool) -> str:
    """Call strategy.run with `args=(batch)` or `args=(batch,)` in a tf.function."""
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(tf.ones([8, 3])).batch(8))

    def features(rows: tf.Tensor) -> tf.Tensor:
        return rows * 2.0

    @tf.function
    def gather(batch: tf.Tensor) -> tf.Tensor:
        args = (batch,) if trailing_comma else (batch)  # noqa: UP034 - the parentheses are the case under test
        out = strategy.run(features, args=args)
        return tf.concat(strategy.experimental_local_results(out), axis=0)

    label = f"{strategy.num_replicas_in_sync} replicas | run(fn, args=(batch{',' if trailing_comma else ''}))"
    batch = next(iter(dataset))
    try:
        rows = gather(batch).shape[0]
    except ValueError as error:
        # The error comes wrapped in autograph's "in user code" trace; its last error line is TensorFlow's.
        lines = [line.strip() for line in str(error).splitlines() if "Error" in line]
        # Keep the refused type's class name only ("<class 'tensorflow...PerReplica'>" -> "PerReplica").
        text = re.sub(r"<class '(?:\w+\.)*(\w+)'>", r"\1", lines[-1] if lines else str(error))
        return f"{label}: {text}"
    return f"{label}: ran, {rows} rows"


def main() -> None:
    """Print one line per case."""
    two_cpu_devices()
    two = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    one = tf.distribute.MirroredStrategy(["/cpu:0"])
    print(scale_assigned_by_replicas(two, in_scope=False))
    print(scale_assigned_by_replicas(two, in_scope=True))
    print(scale_assigned_by_replicas(two, in_scope=True, mean=True))
    print(run_with_args(two, trailing_comma=False))
    print(run_with_args(one, trailing_comma=False))
    print(run_with_args(two, trailing_comma=True))


if __name__ == "__main__":
    main()
