"""Every Keras-dependent rule judged against `--target-version` newer than the pin: a finding the
pinned TensorFlow (2.12, Keras 2) does not have says "on upgrade to TF 2.21: "; at the pin there
is no finding. A finding the pin has too keeps its plain wording."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fixer.config import Config
from fixer.engine import check_source

PREFIX = "on upgrade to TF 2.21: "

OPTIMIZER_OUTSIDE_SCOPE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam()


def replica_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


@tf.function
def step(x):
    strategy.run(replica_step, args=(x,))
"""
UNBUILT_OPTIMIZER = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam()


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_train_step(x, y):
    per_replica = strategy.run(train_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
"""
OPTIMIZER_CLIPNORM = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.AdamW(1e-3, global_clipnorm=1.0), loss="mse")
model.fit(dataset, epochs=3)
"""
SYNC_BATCH_NORM = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(16, 3),
        tf.keras.layers.experimental.SyncBatchNormalization(momentum=0.9),
    ])
"""
SKIP_AGGREGATION = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = build_model()
    optimizer = tf.keras.optimizers.Adam()


def replica_step(x, y):
    with tf.GradientTape() as tape:
        loss = compute_loss(model, x, y)
    grads = tape.gradient(loss, model.trainable_variables)
    grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
    optimizer.apply_gradients(zip(grads, model.trainable_variables), experimental_aggregate_gradients=False)


@tf.function
def step(x, y):
    strategy.run(replica_step, args=(x, y))
"""
DECORATED_TRAIN_STEP = """\
import tensorflow as tf


class Model(tf.keras.Model):
    @tf.function
    def train_step(self, data):
        return super().train_step(data)


strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = Model()
model.fit(dataset)
"""
REDUCED_TWICE = SKIP_AGGREGATION.replace(", experimental_aggregate_gradients=False", "")


def findings(tmp_path: Path, source: str, code: str, target: tuple[int, int] | None = None) -> list[str]:
    """The messages of ``code`` for ``source`` in a project pinned to TensorFlow 2.12."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "requirements.txt").write_text("tensorflow==2.12.0\n")
    config = replace(Config(), target_version=target)
    return [f.message for f in check_source(str(tmp_path / "train.py"), source, config).findings if f.code == code]


@pytest.mark.parametrize(
    ("code", "source"),
    [
        ("TFD101", OPTIMIZER_OUTSIDE_SCOPE),
        ("TFD109", UNBUILT_OPTIMIZER),
        ("TFD304", OPTIMIZER_CLIPNORM),
        ("TFD403", SYNC_BATCH_NORM),
        ("TFD305", SKIP_AGGREGATION),
    ],
)
def test_a_keras3_finding_is_an_upgrade_finding_of_a_keras2_pin(tmp_path, code, source):
    assert findings(tmp_path, source, code) == []
    upgrade = findings(tmp_path, source, code, target=(2, 21))
    assert upgrade and all(message.startswith(PREFIX) for message in upgrade), upgrade


def test_a_finding_the_pin_has_too_keeps_its_wording(tmp_path):
    at_pin = findings(tmp_path, REDUCED_TWICE, "TFD305")
    upgrade = findings(tmp_path, REDUCED_TWICE, "TFD305", target=(2, 21))
    assert at_pin and upgrade and not any(m.startswith(PREFIX) for m in at_pin + upgrade)


def test_a_keras2_only_finding_is_gone_on_upgrade(tmp_path):
    # TFD107 is about tf-keras' own tf.function around train_step: Keras 3 (the 2.21 tf.keras) runs it.
    assert findings(tmp_path, DECORATED_TRAIN_STEP, "TFD107")
    assert findings(tmp_path, DECORATED_TRAIN_STEP, "TFD107", target=(2, 21)) == []


def test_no_prefix_when_the_target_is_the_pin(tmp_path):
    assert findings(tmp_path, OPTIMIZER_OUTSIDE_SCOPE, "TFD101", target=(2, 12)) == []
