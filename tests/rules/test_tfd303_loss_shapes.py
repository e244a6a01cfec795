"""TFD303 on two loss shapes: a division inside `tf.grad_pass_through`, and a loss factory that
returns an inner function."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source, fix_source

_STEP = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD()

{helpers}

@tf.function
def train_step(dist_inputs):
    def step_fn(inputs):
        x, y = inputs
        with tf.GradientTape() as tape:
            {loss}
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return strategy.run(step_fn, args=(dist_inputs,))
"""


def program(loss: str, helpers: str = "") -> str:
    return textwrap.dedent(_STEP).format(loss=loss, helpers=textwrap.dedent(helpers).strip())


def tfd303(source: str) -> list[tuple[int, str]]:
    return [(f.start.line, f.message) for f in check_source("train.py", source).findings if f.code == "TFD303"]


_PASS = "mean = tf.reduce_mean(tf.square(model(x) - y))\n            loss = tf.grad_pass_through({f})({inner})"


def test_a_division_inside_grad_pass_through_is_reported():
    found = tfd303(program(_PASS.format(f="lambda t: t / strategy.num_replicas_in_sync", inner="mean")))
    assert [line for line, _ in found] == [17]
    assert "`tf.grad_pass_through` changes the loss's value, not its gradient" in found[0][1]


def test_grad_pass_through_over_a_globally_averaged_loss_is_not_reported():
    inner = "tf.nn.compute_average_loss(tf.square(model(x) - y))"
    assert tfd303(program(_PASS.format(f="lambda t: t * 1.0", inner=inner))) == []


_FACTORY = """
def make_loss():
    def loss_fn(labels, predictions):
        return tf.reduce_mean(tf.square(predictions - labels))
    return loss_fn


compute_loss = {bound}
"""


def test_the_inner_function_of_a_loss_factory_is_followed_and_the_call_divided():
    source = program("loss = compute_loss(y, model(x))", _FACTORY.format(bound="make_loss()"))
    assert [line for line, _ in tfd303(source)] == [11]
    fixed = fix_source("train.py", source, unsafe=True).fixed_text
    assert "compute_loss(y, model(x)) / tf.distribute.get_replica_context().num_replicas_in_sync" in fixed
    assert tfd303(fixed) == []


def test_a_factory_result_wrapped_in_tf_function_is_followed():
    source = program("loss = compute_loss(y, model(x))", _FACTORY.format(bound="tf.function(make_loss())"))
    assert [line for line, _ in tfd303(source)] == [11]


def test_a_factory_result_summed_with_regularization_is_followed():
    source = program("loss = compute_loss(y, model(x)) + tf.add_n(model.losses)", _FACTORY.format(bound="make_loss()"))
    assert [line for line, _ in tfd303(source)] == [22]


def test_a_factory_returning_a_global_average_is_not_reported():
    helpers = _FACTORY.format(bound="make_loss()").replace(
        "tf.reduce_mean(tf.square(predictions - labels))", "tf.nn.compute_average_loss(tf.square(predictions - labels))"
    )
    assert tfd303(program("loss = compute_loss(y, model(x))", helpers)) == []
