"""Probe (TF 2.21): variables made per replica with `experimental_distribute_values_from_function` (TFD301).

Model parallelism (ledger12b class 7, prec32): each replica builds its own `tf.Variable` (a slice of a
weight, chosen by `ctx.replica_id_in_sync_group`), the replica step updates it with `assign_add` from
its own value. Measured on two logical CPUs under MirroredStrategy:

- the replicas hold distinct variables (both created on CPU:0 here, the function's default device),
  each update lands on its owner's variable only, and nothing raises: there is no other copy for it
  to drift from (after two steps `[[2.0, 2.0], [12.0, 4.0]]`: replica 0 from 0, replica 1 from 10);
- the control: a mirrored variable (made in the scope) given the replica's own update by
  `assign_add` in `strategy.run` ends with different values per replica (the drift TFD301 reports:
  `[[2.0, 2.0], [2.0, 4.0]]`).
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def own_slice(ctx):
    return tf.Variable([float(ctx.replica_id_in_sync_group) * 10.0, 0.0])


slices = strategy.experimental_distribute_values_from_function(own_slice)
with strategy.scope():
    mirrored = tf.Variable([0.0, 0.0])


@tf.function
def step(part):
    def replica_fn(own):
        rid = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        own.assign_add([1.0, rid + 1.0])
        mirrored.assign_add([1.0, rid + 1.0])

    strategy.run(replica_fn, args=(part,))


for _ in range(2):
    step(slices)

devices = [v.device.split("/")[-1] for v in slices.values]
print("per-replica slices: distinct variables (devices", devices, ") ->", [v.numpy().tolist() for v in slices.values])
print("mirrored control: copies ->", [v.numpy().tolist() for v in mirrored.values])
