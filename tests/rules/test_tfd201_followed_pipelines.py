"""TFD201 follows a dataset through long rebinding chains, progress bars and callable loader objects,
and reports at the call that hands the batch to the replicas."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source, fix_source

_STEP = """
import tensorflow as tf
from tqdm import tqdm

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(8,))])
    optimizer = tf.keras.optimizers.SGD()


@tf.function
def train_step(x, y):
    def step_fn(x, y):
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return strategy.run(step_fn, args=(x, y))


"""

_PIPELINE = """
ds = tf.data.Dataset.from_tensor_slices((tf.zeros((64, 8)), tf.zeros((64, 1))))
ds = ds.map(lambda x, y: (x * 2.0, y))
ds = ds.map(lambda x, y: (x + 1.0, y))
ds = ds.map(lambda x, y: (x, y * 0.5))
ds = ds.filter(lambda x, y: True)
ds = ds.batch(16)
"""


def findings(tail: str) -> list[tuple[int, str]]:
    source = textwrap.dedent(_STEP) + textwrap.dedent(tail)
    return [(f.start.line, f.message[:30]) for f in check_source("train.py", source).findings if f.code == "TFD201"]


def lines(tail: str) -> list[int]:
    return [line for line, _ in findings(tail)]


def test_a_pipeline_rebound_five_times_is_followed():
    assert lines(_PIPELINE + "for x, y in ds:\n    train_step(x, y)\n") == [30]


def test_enumerate_over_a_long_pipeline_is_followed():
    assert lines(_PIPELINE + "for step, (x, y) in enumerate(ds):\n    train_step(x, y)\n") == [30]


def test_a_progress_bar_is_looked_through_and_the_fix_distributes_inside_it():
    tail = _PIPELINE + "for x, y in tqdm(ds, total=4):\n    train_step(x, y)\n"
    assert lines(tail) == [30]
    fixed = fix_source("train.py", textwrap.dedent(_STEP) + tail, unsafe=True).fixed_text
    assert "for x, y in tqdm(strategy.experimental_distribute_dataset(ds), total=4):" in fixed
    assert lines(fixed[len(textwrap.dedent(_STEP)):]) == []


def test_enumerate_of_a_progress_bar_is_looked_through():
    assert lines(_PIPELINE + "for i, (x, y) in enumerate(tqdm(ds)):\n    train_step(x, y)\n") == [30]


_LOADER = """
class Loader:
    def __init__(self, batch_size):
        self.batch_size = batch_size

    def __call__(self):
        ds = tf.data.Dataset.from_tensor_slices((tf.zeros((64, 8)), tf.zeros((64, 1))))
        return {returned}


loader = Loader(16)
for x, y in loader():
    train_step(x, y)
"""


def test_a_callable_loader_object_returning_a_dataset_is_followed():
    assert lines(_LOADER.format(returned="ds.batch(self.batch_size)")) == [34]


def test_a_callable_loader_returning_a_distributed_dataset_is_not_reported():
    returned = "strategy.experimental_distribute_dataset(ds.batch(self.batch_size))"
    assert lines(_LOADER.format(returned=returned)) == []


def test_a_progress_bar_over_a_distributed_dataset_is_not_reported():
    tail = _PIPELINE + "dist = strategy.experimental_distribute_dataset(ds)\nfor x, y in tqdm(dist):\n    train_step(x, y)\n"
    assert lines(tail) == []


def test_the_finding_is_at_the_step_call_and_names_the_dataset_line():
    found = findings("ds = tf.data.Dataset.range(8).batch(4)\nfor x in ds:\n    y = x * 2\n    train_step(x, y)\n")
    assert [line for line, _ in found] == [25]
    source = textwrap.dedent(_STEP) + "ds = tf.data.Dataset.range(8).batch(4)\nfor x in ds:\n    y = x * 2\n    train_step(x, y)\n"
    finding = next(f for f in check_source("train.py", source).findings if f.code == "TFD201")
    assert "`ds` (line 23)" in finding.message and finding.start.column == 5


def test_a_run_call_fed_directly_is_reported_at_the_run():
    tail = (
        "def replica_fn(x):\n    return x * 2\n\n\n"
        "ds = tf.data.Dataset.range(8).batch(4)\nfor x in ds:\n    strategy.run(replica_fn, args=(x,))\n"
    )
    assert lines(tail) == [28]
