"""TFD110 follows the Keras in play for `gradient_accumulation_steps` (a Keras 3 argument), and
reports an update under a tensor condition whatever the Keras (both fail the same way)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source

KERAS_ACCUMULATION = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01, gradient_accumulation_steps=4), loss="mse")
model.fit(dataset)
"""
CONDITIONAL_APPLY = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    step = tf.Variable(0)

def replica_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(model(x) - y)) / 8
    grads = tape.gradient(loss, model.trainable_variables)
    if step % 4 == 0:
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

@tf.function
def train_step(x, y):
    strategy.run(replica_step, args=(x, y))
"""
LEGACY = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"\n'


def messages(tmp_path: Path, source: str, pin: str | None) -> list[str]:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    if pin is not None:
        (tmp_path / "requirements.txt").write_text(f"tensorflow=={pin}\n")
    config = replace(Config(), select=("TFD110",))
    return [f.message for f in check_source(str(tmp_path / "train.py"), source, config).findings]


def test_keras_3_accumulation_under_a_current_pin(tmp_path):
    [message] = messages(tmp_path, KERAS_ACCUMULATION, "2.21.0")
    assert message.startswith("Keras 3 accumulation applies under a graph condition")


def test_no_accumulation_finding_under_tf_keras(tmp_path):
    assert messages(tmp_path, KERAS_ACCUMULATION, "2.15.0") == []
    assert messages(tmp_path, LEGACY + KERAS_ACCUMULATION, "2.21.0") == []


def test_conditional_update_reported_under_both_kerases(tmp_path):
    for source, pin in ((CONDITIONAL_APPLY, "2.21.0"), (CONDITIONAL_APPLY, "2.15.0"), (LEGACY + CONDITIONAL_APPLY, "2.21.0")):
        [message] = messages(tmp_path, source, pin)
        assert "`apply_gradients` under `if step % 4 == 0` (a tensor)" in message
