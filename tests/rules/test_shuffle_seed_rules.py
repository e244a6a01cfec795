"""TFD204 (one constant seed on a shuffle before the shard point) and TFD501 (per-worker seeds)
never pull against each other: applied together, the result keeps every pre-shard shuffle
identical on every worker and is a fixed point for both."""

from __future__ import annotations

import textwrap

import pytest

from fixer.config import Config
from fixer.engine import check_source, fix_source
from fixer.registry import default_registry
from fixer.rule import Invalid, dedent_example

BOTH = Config(select=("TFD204", "TFD501"))


def _findings(text: str, code: str):
    result = check_source("both.py", text, Config(select=(code,)))
    assert result.error is None, result.error
    return result.findings


def _fix_both(text: str) -> str:
    fixed = fix_source("both.py", text, BOTH, unsafe=True)
    assert fixed.reverted is None, fixed.reverted
    result = fixed.fixed_text or text
    assert fix_source("again.py", result, BOTH, unsafe=True).fixed_text is None, "not a fixed point"
    return result


TASK_SEEDED_SHUFFLE = textwrap.dedent(
    """\
    import tensorflow as tf

    tf.random.set_seed(7)
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
    dataset = tf.data.Dataset.range(64).shuffle(64, seed=resolver.task_id).batch(8)


    def replica_fn(x):
        return tf.cast(x, tf.float32) * tf.random.uniform([])


    for x in strategy.experimental_distribute_dataset(dataset):
        strategy.run(replica_fn, args=(x,))
    """
)


def test_task_seeded_shuffle_gets_one_constant_and_the_global_seed_stays():
    assert [f.fix is not None for f in _findings(TASK_SEEDED_SHUFFLE, "TFD204")] == [True]
    assert [f.fix is None for f in _findings(TASK_SEEDED_SHUFFLE, "TFD501")] == [True]  # advice: a shuffle precedes the shard
    fixed = _fix_both(TASK_SEEDED_SHUFFLE)
    assert fixed == TASK_SEEDED_SHUFFLE.replace("seed=resolver.task_id", "seed=42")
    assert _findings(fixed, "TFD204") == []
    assert [f.fix for f in _findings(fixed, "TFD501")] == [None]


PYTHON_SEED_AND_UNSEEDED_SHUFFLE = textwrap.dedent(
    """\
    import random

    import keras
    import tensorflow as tf

    random.seed(1)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    flip = keras.layers.RandomFlip("horizontal")
    dataset = tf.data.Dataset.from_tensor_slices(images).shuffle(512).batch(32)
    dist = strategy.experimental_distribute_dataset(dataset)
    """
)


def test_python_seed_per_worker_and_shuffle_seeded_once_apply_together():
    """Python's seed drives Keras layers, not TensorFlow's shuffle: both fixes apply."""
    fixed = _fix_both(PYTHON_SEED_AND_UNSEEDED_SHUFFLE)
    assert "random.seed(_worker_seed(1))" in fixed
    assert ".shuffle(512, seed=42)" in fixed
    assert _findings(fixed, "TFD204") == [] and _findings(fixed, "TFD501") == []


GLOBAL_SEED_AND_UNSEEDED_SHUFFLE = textwrap.dedent(
    """\
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(5)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    dataset = tf.data.Dataset.range(64).shuffle(64).batch(8)


    def replica_fn(x):
        return tf.cast(x, tf.float32) + tf.random.normal([])


    for x in strategy.experimental_distribute_dataset(dataset):
        strategy.run(replica_fn, args=(x,))
    """
)


def test_one_global_seed_keeps_the_shuffle_identical_so_neither_rule_edits():
    assert _findings(GLOBAL_SEED_AND_UNSEEDED_SHUFFLE, "TFD204") == []
    assert [f.fix for f in _findings(GLOBAL_SEED_AND_UNSEEDED_SHUFFLE, "TFD501")] == [None]
    assert _fix_both(GLOBAL_SEED_AND_UNSEEDED_SHUFFLE) == GLOBAL_SEED_AND_UNSEEDED_SHUFFLE


def _examples():
    for rule in default_registry().rules:
        if rule.code in ("TFD204", "TFD501"):
            for number, example in enumerate(rule.examples, start=1):
                if isinstance(example, Invalid):
                    yield pytest.param(dedent_example(example.code), id=f"{rule.code}-{number}")


@pytest.mark.parametrize("source", list(_examples()))
def test_both_fixes_never_leave_a_per_worker_seed_before_a_shard(source: str):
    """On every invalid example of either rule, fixing with both leaves nothing for TFD204 to
    edit, and a per-worker seed that TFD501 added never meets a shuffle TFD204 needs identical."""
    fixed = _fix_both(source)
    remaining = _findings(fixed, "TFD204")
    assert all(f.fix is None for f in remaining)
    if "_worker_seed(" in fixed and "_worker_seed(" not in source:
        assert remaining == []


RUNNABLE_BOTH = """\
import tensorflow as tf

tf.random.set_seed(7)
resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
with strategy.scope():
    w = tf.Variable([0.0])
    optimizer = tf.keras.optimizers.SGD(0.01)

dataset = tf.data.Dataset.range(20).map(lambda i: tf.cast(i, tf.float32))
dataset = dataset.shuffle(20, seed=resolver.task_id).batch(2)


def replica_fn(batch):
    with tf.GradientTape() as tape:
        noisy = batch + tf.random.uniform([1], maxval=0.01)
        loss = tf.nn.compute_average_loss(tf.square(noisy * w - 1.0), global_batch_size=2)
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


@tf.function
def train_step(batch):
    return strategy.run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    train_step(batch)
"""


@pytest.mark.tensorflow
def test_both_fixes_applied_give_two_workers_disjoint_examples(tmp_path):
    """Run on 2 local workers: with per-worker shuffle seeds the workers read overlapping examples
    (one example per worker batch, so `inputs-distinct` sees it); after every fix distfix makes
    (TFD204 seeds the shuffle with 42, TFD501 only explains), they read disjoint ones."""
    from fixer.validate.runner import RunSpec
    from fixer.validate.session import validate

    assert [f.fix is not None for f in _findings(RUNNABLE_BOTH, "TFD204")] == [True]
    assert [f.fix for f in _findings(RUNNABLE_BOTH, "TFD501")] == [None]
    script = tmp_path / "both.py"
    script.write_text(RUNNABLE_BOTH)
    report = validate(script, RunSpec(workers=2, device="cpu", max_steps=10, timeout=120))
    original = {c.name: c for c in report.variants["original"].checks}
    fixed = {c.name: c for c in report.variants["fixed"].checks}
    assert original["inputs-distinct"].result == "fail", report.table()
    assert fixed["inputs-distinct"].result == "pass", report.table()
    assert report.variants["fixed"].status == "passed", report.table()
