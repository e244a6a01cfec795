"""TFD101 and two `if` statements with the same test (issue 28, ledger11b fp class 2): the first
builds the strategy or sets it to None, the second builds the model in the scope or, in its `else`,
without one. That `else` runs only where no strategy exists: not a finding. Rebinding a name of the
test between the two, another test, or a first `else` that keeps a strategy keeps the finding."""

from __future__ import annotations

import pytest

from fixer.config import Config
from fixer.engine import check_source

SHAPE = """\
import tensorflow as tf

n_gpus = len(tf.config.list_physical_devices("GPU"))
if n_gpus > 1:
    strategy = tf.distribute.MirroredStrategy()
else:
    strategy = {fallback}
{between}
if {test}:
    with strategy.scope():
        model = tf.keras.applications.ResNet50(weights=None, classes=10)
else:
    model = tf.keras.applications.ResNet50(weights=None, classes=10)

with strategy.scope():
    optimizer = tf.keras.optimizers.Adam()

@tf.function
def train_step(x, y):
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return strategy.run(step, args=(x, y))
"""

ELSE_MODEL_LINE = 13


def _lines(between: str = "", test: str = "n_gpus > 1", fallback: str = "None") -> list[int]:
    source = SHAPE.format(between=between, test=test, fallback=fallback)
    return [f.start.line for f in check_source("train.py", source, Config(select=("TFD101",))).findings]


def test_the_else_arm_of_a_repeated_test_has_no_strategy():
    assert ELSE_MODEL_LINE not in _lines()


@pytest.mark.parametrize(
    ("between", "test", "fallback"),
    [
        ("n_gpus = 4", "n_gpus > 1", "None"),  # the count changes between the two tests
        ("", "n_gpus > 2", "None"),  # another test
        ("", "n_gpus > 1", "tf.distribute.OneDeviceStrategy('/cpu:0')"),  # the first else keeps a strategy
    ],
)
def test_control_a_test_that_may_differ_keeps_the_finding(between: str, test: str, fallback: str):
    assert ELSE_MODEL_LINE in _lines(between, test, fallback)
