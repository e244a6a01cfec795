"""The step limit and the batch record work with real DistributedIterators (real TensorFlow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate import checks
from fixer.validate.runner import RunSpec, run_script
from fixer.validate.session import validate

pytestmark = pytest.mark.tensorflow

# The official custom-training-loop pattern: the model is built inside main(), the iterator is
# passed into a tf.function that calls next() on it, and the loop runs far longer than --max-steps.
TUTORIAL = """\
import numpy as np
import tensorflow as tf

GLOBAL_BATCH = 4


def main():
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD(0.01)
    features = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], "float32")
    labels = np.array([[1], [2], [3], [4]], "float32")
    dataset = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(GLOBAL_BATCH)
    iterator = iter(strategy.experimental_distribute_dataset(dataset))

    @tf.function
    def train_step(iterator):
        def step_fn(inputs):
            x, y = inputs
            with tf.GradientTape() as tape:
                per_example = tf.square(model(x, training=True) - y)[:, 0]
                loss = LOSS
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        per_replica = strategy.run(step_fn, args=(next(iterator),))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    for step in range(1000):
        print("step", step, "loss", float(train_step(iterator)))


main()
"""
LOSSES = {
    "scaled": ("tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)", "pass"),
    "mean": ("tf.reduce_mean(per_example)", "fail"),  # N times too large with N replicas
}


@pytest.mark.parametrize("loss", LOSSES)
def test_tutorial_iterator_inside_tf_function_stops_cleanly(tmp_path: Path, loss: str):
    expression, invariant = LOSSES[loss]
    script = tmp_path / "tutorial.py"
    script.write_text(TUTORIAL.replace("LOSS", expression))
    report = validate(script, RunSpec(replicas=2, device="cpu", max_steps=5), compare=False)
    variant = report.variants["original"]
    results = {c.name: c for c in variant.checks}
    assert results["runs"].result == "pass", report.table()
    assert results["runs"].detail == "1 process(es) stopped cleanly after 5 step(s), 5 batch(es) (--max-steps)"
    assert variant.output[0].splitlines()[-1].startswith("step 4 loss")
    # The model lives in main(): its variables are still found and compared after every step.
    assert results["replicas-consistent"].result == "pass", results["replicas-consistent"]
    assert "after each of 5 step(s)" in results["replicas-consistent"].detail
    # Its initial weights are random: only the bootstrap's seed makes the runs comparable.
    assert results["replica-count-invariant"].result == invariant, results["replica-count-invariant"]
    assert results["finite"].result == "pass"
    assert report.verdict == invariant


LOOPS = {
    "for-loop with eager strategy.run": """
for batch in dist_ds:
    strategy.run(lambda b: tf.reduce_sum(b), args=(batch,))
    print("drew")
""",
    "next() and get_next()": """
while True:
    next(iterator)
    print("drew")
    iterator.get_next()
    print("drew")
""",
    "get_next_as_optional()": """
while True:
    optional = iterator.get_next_as_optional()
    if not optional.has_value():
        break
    print("drew")
""",
    "tf.function steps without a dataset": """
@tf.function
def step():
    return strategy.run(lambda: tf.constant(1.0))

while True:
    step()
    print("drew")
""",
}
LOOP_PRELUDE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
dist_ds = strategy.experimental_distribute_dataset(tf.data.Dataset.range(10**6).batch(4))
iterator = iter(dist_ds)
"""


@pytest.mark.parametrize("loop", LOOPS, ids=list(LOOPS))
def test_every_way_of_stepping_stops_after_max_steps(tmp_path: Path, loop: str):
    script = tmp_path / "loop.py"
    script.write_text(LOOP_PRELUDE + LOOPS[loop])
    (dump,) = run_script(script, script.read_text(), RunSpec(replicas=2, device="cpu", max_steps=4, timeout=300), tmp_path / "run")
    assert dump.status == "ok" and dump.stopped, (dump.status, dump.error, dump.output[-2000:])
    assert dump.output.count("drew") == 4
    if "dataset" not in loop:
        assert len(dump.inputs) == 4  # every batch drawn was recorded


SHARDING = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.POLICY
dataset = tf.data.Dataset.range(10**6).batch(4).with_options(options)
iterator = iter(strategy.experimental_distribute_dataset(dataset))


@tf.function
def train_step(iterator):
    return strategy.run(lambda b: tf.reduce_sum(b), args=(next(iterator),))


while True:
    train_step(iterator)
"""


@pytest.mark.parametrize(("policy", "expected"), [("OFF", "fail"), ("DATA", "pass")])
def test_batches_drawn_inside_tf_function_are_compared_across_workers(tmp_path: Path, policy: str, expected: str):
    script = tmp_path / "sharding.py"
    script.write_text(SHARDING.replace("POLICY", policy))
    dumps = run_script(script, script.read_text(), RunSpec(workers=2, device="cpu", max_steps=3, timeout=300), tmp_path / "run")
    assert [d.status for d in dumps] == ["ok", "ok"], [d.error for d in dumps]
    assert all(d.stopped and len(d.inputs) == 3 for d in dumps)
    assert checks.inputs_distinct(dumps).result == expected
