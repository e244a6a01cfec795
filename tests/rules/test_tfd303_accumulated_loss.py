"""TFD303 on a loss accumulated from zero: `loss = 0.0` then `loss += term` in a loop is scaled like
its term."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source, fix_source

_STEP = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD()


@tf.function
def train_step(dist_inputs):
    def step_fn(inputs):
        x, ys = inputs
        with tf.GradientTape() as tape:
            loss = 0.0
            for y in ys:
                loss += {term}
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return strategy.run(step_fn, args=(dist_inputs,))
"""


def program(term: str) -> str:
    return textwrap.dedent(_STEP).format(term=term)


def tfd303(source: str) -> list[int]:
    return [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD303"]


def test_a_mean_accumulated_in_a_loop_is_reported_at_the_term():
    assert tfd303(program("tf.reduce_mean(tf.square(model(x) - y))")) == [17]


def test_the_fix_divides_the_term():
    fixed = fix_source("train.py", program("tf.reduce_mean(tf.square(model(x) - y))"), unsafe=True).fixed_text
    assert "loss += tf.reduce_mean(tf.square(model(x) - y)) / tf.distribute.get_replica_context().num_replicas_in_sync" in fixed
    assert tfd303(fixed) == []


def test_a_term_averaged_over_the_global_batch_is_not_reported():
    assert tfd303(program("tf.nn.compute_average_loss(tf.square(model(x) - y))")) == []


def test_two_different_accumulations_are_not_guessed():
    source = program("tf.reduce_mean(tf.square(model(x) - y))").replace(
        "        grads = tape", "            loss += tf.reduce_sum(model(x))\n        grads = tape"
    )
    assert tfd303(source) == []
