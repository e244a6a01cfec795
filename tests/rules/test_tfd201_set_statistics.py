"""TFD201 leaves a replica function that only evaluates a statistic of one whole batch (a distance
between the batch's feature distribution and a reference, as FID is): splitting that batch across
replicas computes a different, per-shard statistic, and no optimizer step is reached. Each case
has a control that stays reported with its rewrite."""

from __future__ import annotations

from fixer.engine import check_source, fix_source

_SETUP = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    generator = tf.keras.Sequential([tf.keras.layers.Dense(8)])
    optimizer = tf.keras.optimizers.Adam()
valid = tf.data.Dataset.from_tensor_slices(tf.zeros((64, 8))).batch(32)


def feature_distance(real, fake):
    mean_gap = tf.reduce_sum(tf.square(tf.reduce_mean(real, 0) - tf.reduce_mean(fake, 0)))
    return mean_gap + tf.linalg.trace(tf.linalg.matmul(real, real, transpose_a=True))


def score_batch(images):
    return feature_distance(images, generator(images))


def train_batch(images):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(generator(images) - images))
    grads = tape.gradient(loss, generator.trainable_variables)
    optimizer.apply_gradients(zip(grads, generator.trainable_variables))
    return loss


def train_through_helper(images):
    return train_batch(images)

"""


def _tfd201(tail: str) -> list[int]:
    source = _SETUP + tail
    return [f.start.line for f in check_source("eval.py", source).findings if f.code == "TFD201"]


def test_one_batch_scored_as_a_set_is_not_reported():
    tail = "for _ in range(3):\n    images = next(iter(valid))\n    fid = strategy.run(score_batch, args=(images,))\n"
    assert _tfd201(tail) == []


def test_one_batch_passed_directly_is_not_reported():
    assert _tfd201("score = strategy.run(score_batch, args=(next(iter(valid)),))\n") == []


def test_control_a_training_step_fed_one_batch_stays_reported_with_its_rewrite():
    tail = "images = next(iter(valid))\nloss = strategy.run(train_batch, args=(images,))\n"
    assert len(_tfd201(tail)) == 1
    fixed = fix_source("train.py", _SETUP + tail, unsafe=True).fixed_text
    assert "next(iter(strategy.experimental_distribute_dataset(valid)))" in fixed


def test_control_training_reached_through_a_helper_stays_reported():
    tail = "images = next(iter(valid))\nloss = strategy.run(train_through_helper, args=(images,))\n"
    assert len(_tfd201(tail)) == 1


def test_control_an_evaluation_looping_over_every_batch_stays_reported():
    """Over the whole set, batch by batch, the statistic is the author's per-batch choice: the
    duplicated work on every replica is still the finding."""
    assert len(_tfd201("for images in valid:\n    score = strategy.run(score_batch, args=(images,))\n")) == 1
