"""Probe for TFD203: what each replica receives when the batch size ignores the replicas.

On 2 logical CPU devices under `MirroredStrategy`, `Dataset.range(64)`:

- batched with a per-replica size (4) and given to `experimental_distribute_dataset`;
- batched with the global size (8) inside a `dataset_fn` given to `distribute_datasets_from_function`,
  and, as a control, with `input_context.get_per_replica_batch_size(8)`;
- batched with the per-replica size and given to Keras `fit` (a `train_step` override prints what each
  replica receives);
- batched with `4 * num_workers` where `num_workers` was read from the environment without `int()`,
  or turned into text with `str()` / `"{}".format()`;
- NumPy arrays given to Keras `fit(x, y, batch_size=PER_REPLICA)`.

Prints the size of each replica's first batch. Runs once under Keras 3 and once under tf-keras
(`TF_USE_LEGACY_KERAS=1`), each in its own process.

    python benchmarks/probe_batch_size.py
"""

from __future__ import annotations

from keras_flavours import run_under_both_kerases

CHILD = r"""
import os
import sys
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
PER_REPLICA, GLOBAL = 4, 8


def sizes(dist):
    first = next(iter(dist))
    return [int(t.shape[0]) for t in strategy.experimental_local_results(first)]


def report(label, make):
    try:
        print(f"{label}: replica batch sizes {make()}")
    except Exception as exc:
        print(f"{label}: raises {type(exc).__name__}: {str(exc).splitlines()[0][:150]}")


source = tf.data.Dataset.range(64)
report("experimental_distribute_dataset(ds.batch(PER_REPLICA))", lambda: sizes(strategy.experimental_distribute_dataset(source.batch(PER_REPLICA))))
report("experimental_distribute_dataset(ds.batch(GLOBAL))", lambda: sizes(strategy.experimental_distribute_dataset(source.batch(GLOBAL))))
report("dataset_fn batching GLOBAL", lambda: sizes(strategy.distribute_datasets_from_function(lambda ctx: source.batch(GLOBAL))))
report(
    "dataset_fn batching ctx.get_per_replica_batch_size(GLOBAL)",
    lambda: sizes(strategy.distribute_datasets_from_function(lambda ctx: source.batch(ctx.get_per_replica_batch_size(GLOBAL)))),
)
os.environ["NUM_WORKERS"] = "2"
num_workers = os.environ["NUM_WORKERS"]


class Probe(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, _ = data
        tf.print("Keras fit(ds.batch(PER_REPLICA)): a replica's train_step got", tf.shape(x)[0], "examples", output_stream=sys.stdout)
        return {"n": tf.cast(tf.shape(x)[0], tf.float32)}


with strategy.scope():
    probe = Probe()
    probe.compile(optimizer="sgd", loss="mse")
probe.fit(tf.data.Dataset.from_tensor_slices((tf.ones([64, 2]), tf.ones([64, 1]))).batch(PER_REPLICA), epochs=1, steps_per_epoch=1, verbose=0)
report(f"batch(PER_REPLICA * num_workers) with num_workers = os.environ[...] ({PER_REPLICA * num_workers!r})", lambda: sizes(strategy.experimental_distribute_dataset(source.batch(PER_REPLICA * num_workers))))
as_text = str(strategy.num_replicas_in_sync)
report(f"batch(PER_REPLICA * str(count)) ({PER_REPLICA * as_text!r})", lambda: sizes(strategy.experimental_distribute_dataset(source.batch(PER_REPLICA * as_text))))
formatted = "{}".format(strategy.num_replicas_in_sync)
report(f"batch(PER_REPLICA * '{{}}'.format(count)) ({PER_REPLICA * formatted!r})", lambda: sizes(strategy.experimental_distribute_dataset(source.batch(PER_REPLICA * formatted))))


class ArrayProbe(Probe):
    def train_step(self, data):
        x, _ = data
        tf.print("Keras fit(x, y, batch_size=PER_REPLICA) on arrays: a replica's train_step got", tf.shape(x)[0], "examples", output_stream=sys.stdout)
        return {"n": tf.cast(tf.shape(x)[0], tf.float32)}


with strategy.scope():
    arrays = ArrayProbe()
    arrays.compile(optimizer="sgd", loss="mse")
import numpy as np
arrays.fit(np.ones([64, 2], "float32"), np.ones([64, 1], "float32"), batch_size=PER_REPLICA, epochs=1, steps_per_epoch=1, verbose=0)

"""


def main() -> None:
    run_under_both_kerases(CHILD)


if __name__ == "__main__":
    main()
