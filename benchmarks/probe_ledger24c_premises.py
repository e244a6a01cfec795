"""Premises of ledger24c's recall notes (benchmarks/WILD.md, "ledger24c (blind)").

Three facts the blind round's write-up rests on, measured on TensorFlow 2.21 (Keras 3) with a
two-replica MirroredStrategy on two logical CPUs:

- element-wise clipping on each replica: a replica function computes its share of the
  global-batch gradient (loss scaled by the global batch), clips it with `tf.clip_by_value`
  and hands it to `optimizer.apply_gradients`, which sums the replicas' shares. Against
  clipping the whole gradient once (what one device does), does the step differ?
- a strategy created and never entered: a model built after `MirroredStrategy()` but outside
  `strategy.scope()`. Are its variables distributed, and which strategy is current?
- `tf.data.Options().experimental_distribute.auto_shard = False` (the TF 2.0-2.1 switch).

    python benchmarks/probe_ledger24c_premises.py

Output on TensorFlow 2.21, Keras 3 (2026-11-28, ledger24c):

    clip_by_value on the whole gradient, SGD 0.1, clip 1: [0.9, 0.9]
    clip_by_value on each replica's share, then apply_gradients: [0.8, 0.8]
    model built after MirroredStrategy(), outside its scope: variable type ResourceVariable,
      has_strategy False (built in the scope: MirroredVariable)
    experimental_distribute.auto_shard = False: AttributeError: Cannot set the property auto_shard on DistributeOptions.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402


def _two_cpus() -> None:
    """Split the one CPU into two logical devices, so that MirroredStrategy has two replicas."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
    )


def _clip_step(per_replica: bool) -> list[float]:
    """One SGD step on w = [1, 1] whose global gradient is [4, 3] = shares [3, 1] + [1, 2]."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        w = tf.Variable([1.0, 1.0])
        opt = tf.keras.optimizers.SGD(0.1)
    shares = tf.constant([[3.0, 1.0], [1.0, 2.0]])  # row r is replica r's share

    @tf.function
    def step() -> None:
        def replica_fn() -> None:
            r = tf.distribute.get_replica_context().replica_id_in_sync_group
            grad = tf.gather(shares, r)
            if per_replica:
                grad = tf.clip_by_value(grad, -1.0, 1.0)  # each share clipped, then summed
                opt.apply_gradients([(grad, w)])
            else:
                total = tf.distribute.get_replica_context().all_reduce("sum", grad)
                clipped = tf.clip_by_value(total, -1.0, 1.0)
                # apply_gradients sums the replicas' copies again: hand each 1/N of the clip
                opt.apply_gradients([(clipped / 2.0, w)])

        strategy.run(replica_fn)

    step()
    return [round(float(v), 4) for v in w.numpy()]


def _unentered_strategy() -> str:
    """Build a model after MirroredStrategy() without entering its scope."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    outside = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    current = tf.distribute.has_strategy()
    with strategy.scope():
        inside = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    return (
        f"variable type {_variable_kind(outside)},\n      has_strategy {current}"
        f" (built in the scope: {_variable_kind(inside)})"
    )


def _variable_kind(model: tf.keras.Model) -> str:
    """The TensorFlow variable class behind a Keras 3 weight (its `.value`)."""
    weight = model.weights[0]
    value = getattr(weight, "value", weight)
    return type(value).__name__


def _auto_shard() -> str:
    options = tf.data.Options()
    try:
        options.experimental_distribute.auto_shard = False  # type: ignore[attr-defined]
    except AttributeError as err:
        return f"AttributeError: {err}"
    return "set"


def main() -> None:
    _two_cpus()
    print("clip_by_value on the whole gradient, SGD 0.1, clip 1:", _clip_step(per_replica=False))
    print("clip_by_value on each replica's share, then apply_gradients:", _clip_step(per_replica=True))
    print("model built after MirroredStrategy(), outside its scope:", _unentered_strategy())
    print("experimental_distribute.auto_shard = False:", _auto_shard())


if __name__ == "__main__":
    main()
