"""A training loop inside one ``tf.function``, and per-replica (ON_READ) variables (real TensorFlow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate.runner import RunSpec
from fixer.validate.session import validate

pytestmark = pytest.mark.tensorflow

LOOP = """\
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
x = np.arange(64, dtype="float32").reshape(32, 2)
dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(x).batch(8))
with strategy.scope():
    w = tf.Variable(1.0)
    # Per replica by design: each replica counts what it saw (replica 1 counts twice as fast).
    seen = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ, aggregation=tf.VariableAggregation.SUM)


def step(batch):
    context = tf.distribute.get_replica_context()
    seen.assign_add(tf.cast(context.replica_id_in_sync_group, tf.float32) + 1.0)
    w.assign_sub(context.all_reduce("sum", tf.reduce_sum(batch)) * 1e-6)


@tf.function
def train(dataset):
    for batch in dataset:
        strategy.run(step, args=(batch,))


train(dist)
"""


def test_batches_of_a_loop_inside_one_function_are_recorded_and_on_read_copies_may_differ(tmp_path: Path):
    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    report = validate(script, RunSpec(replicas=2, device="cpu", timeout=300), compare=False)
    checks = {c.name: c for c in report.variants["original"].checks}
    assert checks["runs"].result == "pass", report.table()
    assert checks["runs"].detail == "1 process(es) finished after 1 step(s), 4 batch(es)", checks["runs"]
    assert checks["replicas-consistent"].result == "pass", checks["replicas-consistent"]
    invariant = checks["replica-count-invariant"]
    assert invariant.result == "pass" and "4 global batch(es) of 8 rows (32 examples)" in invariant.detail, invariant
