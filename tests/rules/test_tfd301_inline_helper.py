"""TFD301 follows a gradient passed inline to a module helper that updates its parameter."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_PROGRAM = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    w = tf.Variable(1.0)


{helper}


@tf.function
def step(x):
    def replica_fn(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(x * w)
        {call}
    strategy.run(replica_fn, args=(x,))
"""


def tfd301_lines(helper: str, call: str) -> list[int]:
    source = textwrap.dedent(_PROGRAM).format(helper=textwrap.dedent(helper).strip(), call=call)
    return [f.start.line for f in check_source("train.py", source).findings if f.code == "TFD301"]


def test_the_update_inside_the_helper_is_reported():
    helper = """
        def apply_update(var, grad, lr=0.1):
            var.assign_sub(lr * grad)
    """
    assert tfd301_lines(helper, "apply_update(w, tape.gradient(loss, w))") == [10]


def test_a_gradient_passed_by_keyword_is_followed():
    helper = """
        def apply_update(var, lr=0.1, grad=None):
            scaled = lr * grad
            var.assign_add(-scaled)
    """
    assert tfd301_lines(helper, "apply_update(w, grad=tape.gradient(loss, w))") == [11]


def test_a_helper_that_all_reduces_is_not_reported():
    helper = """
        def apply_update(var, grad, lr=0.1):
            grad = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grad)
            var.assign_sub(lr * grad)
    """
    assert tfd301_lines(helper, "apply_update(w, tape.gradient(loss, w))") == []


def test_a_helper_that_only_logs_the_gradient_is_not_reported():
    helper = """
        def log_norm(var, grad):
            tf.print(tf.norm(grad))
            var.assign(var)
    """
    assert tfd301_lines(helper, "log_norm(w, tape.gradient(loss, w))") == []


def test_a_helper_through_an_optimizer_is_not_reported():
    helper = """
        def apply_update(var, grad):
            optimizer.apply_gradients([(grad, var)])
    """
    assert tfd301_lines(helper, "apply_update(w, tape.gradient(loss, w))") == []
