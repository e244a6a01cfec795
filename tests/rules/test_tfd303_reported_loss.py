"""TFD303 says the reported loss is N times too large only when the replicas' returned losses are
summed: a MEAN of per-replica means is the global mean (benchmarks/probe_loss_scaling_optimizers.py).
A returned loss that the module MEAN-reduces where the rule cannot follow it (a log helper) is not
divided by the fix: that would make the logged loss N times too small (issue 28, ledger11b
wrong fix 4); only the value given to `tape.gradient` should change."""

from __future__ import annotations

import pytest

from fixer.config import Config
from fixer.engine import check_source, fix_source

STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    optimizer = make_optimizer()


def replica_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(y - model(x)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_step(x, y):
    return strategy.run(replica_step, args=(x, y))
"""

REDUCED_HERE = (
    STEP
    + """

for x, y in dataset:
    per_replica = distributed_step(x, y)
    print(strategy.reduce(tf.distribute.ReduceOp.{op}, per_replica, axis=None))
"""
)

REDUCED_IN_A_HELPER = (
    STEP
    + """

def log(per_replica):
    print(strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica, axis=None))


for x, y in dataset:
    log(distributed_step(x, y))
"""
)


def _finding(source: str):
    (finding,) = check_source("train.py", source, Config(select=("TFD303",))).findings
    return finding


def test_a_mean_reduced_loss_is_not_said_to_be_reported_too_large():
    finding = _finding(REDUCED_HERE.format(op="MEAN"))
    assert "reported loss" not in finding.message
    assert "gradients are N times too large" in finding.message


def test_control_a_sum_reduced_loss_is_said_to_be_reported_too_large():
    assert "gradients and reported loss are N times too large" in _finding(REDUCED_HERE.format(op="SUM")).message


def test_the_fix_keeps_a_mean_reduced_report_right_by_summing_the_divided_loss():
    fixed = fix_source("train.py", REDUCED_HERE.format(op="MEAN"), Config(select=("TFD303",)), unsafe=True).fixed_text
    assert fixed is not None
    assert "num_replicas_in_sync" in fixed and "ReduceOp.SUM" in fixed


@pytest.mark.parametrize("unsafe", [False, True])
def test_a_returned_loss_mean_reduced_out_of_reach_is_advice(unsafe: bool):
    finding = _finding(REDUCED_IN_A_HELPER)
    assert finding.fix is None
    assert "it is also returned: divide only the gradient's loss by the number of replicas" in finding.message
    assert fix_source("train.py", REDUCED_IN_A_HELPER, Config(select=("TFD303",)), unsafe=unsafe).fixed_text is None


def test_control_a_returned_loss_with_no_mean_reduce_keeps_the_fix():
    source = STEP + "\n\nfor x, y in dataset:\n    distributed_step(x, y)\n"
    assert _finding(source).fix is not None
