"""Fixes of several rules on one script compose into correct code."""

from __future__ import annotations

import libcst as cst

from fixer.engine import check_source, fix_source

SCRIPT = """\
import tensorflow as tf
from tensorflow.keras import layers, models, optimizers

mirrored = tf.distribute.MirroredStrategy()
net = models.Sequential([layers.Dense(64, activation="relu"), layers.Dense(1)])
opt = optimizers.Adam(1e-3)
ds = tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(1000).batch(256)


def step_fn(x, y):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.square(net(x, training=True) - y))
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))
    return loss


def train_step(x, y):
    losses = mirrored.run(step_fn, args=(x, y))
    return mirrored.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in ds:
    print(train_step(x, y))
"""

EXPECTED = """\
import tensorflow as tf
from tensorflow.keras import layers, models, optimizers

mirrored = tf.distribute.MirroredStrategy()
with mirrored.scope():
    net = models.Sequential([layers.Dense(64, activation="relu"), layers.Dense(1)])
    opt = optimizers.Adam(1e-3)
    opt.build(net.trainable_variables)
ds = tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(1000).batch(256)


def step_fn(x, y):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.square(net(x, training=True) - y))
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))
    return loss


@tf.function
def train_step(x, y):
    losses = mirrored.run(step_fn, args=(x, y))
    return mirrored.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in mirrored.experimental_distribute_dataset(ds):
    print(train_step(x, y))
"""


def test_scope_tf_function_optimizer_build_and_dataset_fixes_compose():
    assert sorted(f.code for f in check_source("t.py", SCRIPT).findings) == ["TFD101", "TFD101", "TFD201", "TFD402"]
    fixed = fix_source("t.py", SCRIPT, unsafe=True)
    assert fixed.fixed_text == EXPECTED
    cst.parse_module(fixed.fixed_text)
    assert check_source("t.py", EXPECTED).findings == []
