"""Probe: a batch split by one `strategy.run` and handed to another gives each replica its own part.

TFD201 leaves out a name rebound to a `strategy.run(...)` result. Measured here with 2 logical
CPUs under MirroredStrategy: a whole host batch is made a tensor, a first `strategy.run` returns
each replica's row (`batch[replica_id_in_sync_group]`), and the second `strategy.run` receives
that PerReplica value: each replica sees only its own row, not the whole batch.

Run: python benchmarks/probe_run_result_fed_to_run.py
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402


def main() -> None:
    """Print what each replica of the second `strategy.run` receives."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    batch = tf.constant([[1, 3], [5, 7]])

    @tf.function
    def split() -> tf.Tensor:
        replica = tf.distribute.get_replica_context().replica_id_in_sync_group
        return tf.gather(batch, replica)

    def step(rows: tf.Tensor) -> tf.Tensor:
        return tf.identity(rows)

    batch = strategy.run(split)
    seen = strategy.run(step, args=(batch,))
    per_replica = [t.numpy().tolist() for t in strategy.experimental_local_results(seen)]
    print("replicas:", strategy.num_replicas_in_sync)
    print("each replica receives:", per_replica)
    print("whole batch to every replica:", all(rows == [[1, 3], [5, 7]] for rows in per_replica))


if __name__ == "__main__":
    main()
