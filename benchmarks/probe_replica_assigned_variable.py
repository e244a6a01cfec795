"""What a variable the replica function assigns holds, by where and how it is created (fix22h, TFD101).

TFD101's unsafe fix moves a `tf.Variable` made outside `strategy.scope()` into the scope. When the
replica function (run by `strategy.run`) writes the whole variable (`assign`, `assign_add`,
`assign_sub`) with a value of its own batch, that move alone changes what the program computes.
Measured on TensorFlow 2.21 with a two-replica MirroredStrategy on two logical CPU devices; each
replica writes a value of its own shard (2.0 and 0.6667, or adds them), in a `tf.function`:

- outside the scope (the code as written);
- in the scope with the default aggregation (the move alone), and with `MEAN`, `SUM`,
  `ONLY_FIRST_REPLICA`, and `synchronization=ON_READ` with `MEAN`;
- a control: a variable the replica function only reads, outside and in the scope.

    python benchmarks/probe_replica_assigned_variable.py

Output on TensorFlow 2.21 (2026-11-28, fix22h):

    assign, outside the scope: ResourceVariable holds 0.6667
    assign, in the scope (aggregation NONE): MirroredVariable copies [2.0, 0.6667]
    assign, in the scope, aggregation=MEAN: MirroredVariable copies [1.3333, 1.3333]
    assign, in the scope, aggregation=SUM: MirroredVariable copies [2.6667, 2.6667]
    assign, in the scope, aggregation=ONLY_FIRST_REPLICA: MirroredVariable copies [2.0, 2.0]
    assign, in the scope, ON_READ MEAN: SyncOnReadVariable copies [2.0, 0.6667], read 1.3333
    assign_add, outside the scope: ResourceVariable holds 3.6667
    assign_add, in the scope (aggregation NONE): MirroredVariable copies [3.0, 1.6667]
    read only, outside the scope: replicas computed [0.0, 1.0, 2.0, 5.0]
    read only, in the scope: replicas computed [0.0, 1.0, 2.0, 5.0]
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402 - the log level must be set before TensorFlow loads

# Two shards of two rows whose standard deviations differ: 0.5 and 1.5, so values 2.0 and 0.6667.
SHARDED_ROWS = [0.0, 1.0, 2.0, 5.0]


def two_cpu_devices() -> None:
    """Split the host CPU into two logical devices (once per process, before any op)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)


def make(strategy: tf.distribute.Strategy, placement: str) -> tf.Variable:
    """The variable (initial value 1.0) made outside the scope ("outside") or in it with a setting."""
    if placement == "outside":
        return tf.Variable(1.0, trainable=False)
    kwargs: dict[str, object] = {}
    if placement == "ON_READ MEAN":
        kwargs = {
            "synchronization": tf.VariableSynchronization.ON_READ,
            "aggregation": tf.VariableAggregation.MEAN,
        }
    elif placement != "NONE":
        kwargs = {"aggregation": getattr(tf.VariableAggregation, placement)}
    with strategy.scope():
        return tf.Variable(1.0, trainable=False, **kwargs)  # type: ignore[arg-type]


def written(strategy: tf.distribute.Strategy, placement: str, method: str) -> str:
    """Each replica writes 1/std of its shard with ``method``; what the variable holds after."""
    variable = make(strategy, placement)
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(SHARDED_ROWS).batch(4))

    def replica_fn(rows: tf.Tensor) -> tf.Tensor:
        getattr(variable, method)(1.0 / tf.math.reduce_std(rows))
        return rows * variable

    @tf.function
    def step(batch: tf.Tensor) -> None:
        strategy.run(replica_fn, args=(batch,))

    for batch in dataset:
        step(batch)
    kind = type(variable).__name__
    where = "outside the scope" if placement == "outside" else "in the scope"
    if placement == "NONE":
        where += " (aggregation NONE)"
    elif placement == "ON_READ MEAN":
        where += ", ON_READ MEAN"
    elif placement != "outside":
        where += f", aggregation={placement}"
    if placement == "outside":
        return f"{method}, {where}: {kind} holds {round(float(variable.numpy()), 4)}"
    copies = [round(float(v.numpy()), 4) for v in variable.values]  # type: ignore[attr-defined]
    text = f"{method}, {where}: {kind} copies {copies}"
    if placement == "ON_READ MEAN":
        text += f", read {round(float(variable.numpy()), 4)}"
    return text


def read_only(strategy: tf.distribute.Strategy, in_scope: bool) -> str:
    """Control: the replica function only reads the variable; what the replicas compute."""
    variable = make(strategy, "NONE" if in_scope else "outside")
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(SHARDED_ROWS).batch(4))

    @tf.function
    def step(batch: tf.Tensor) -> tf.Tensor:
        out = strategy.run(lambda rows: rows * variable, args=(batch,))
        return tf.concat(strategy.experimental_local_results(out), axis=0)

    rows = [round(float(x), 4) for batch in dataset for x in step(batch).numpy()]
    return f"read only, {'in' if in_scope else 'outside'} the scope: replicas computed {rows}"


def main() -> None:
    """Print one line per case."""
    two_cpu_devices()
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    for placement in ("outside", "NONE", "MEAN", "SUM", "ONLY_FIRST_REPLICA", "ON_READ MEAN"):
        print(written(strategy, placement, "assign"))
    for placement in ("outside", "NONE"):
        print(written(strategy, placement, "assign_add"))
    print(read_only(strategy, in_scope=False))
    print(read_only(strategy, in_scope=True))


if __name__ == "__main__":
    main()
