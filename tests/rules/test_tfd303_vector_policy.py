"""TFD303's prec19c policy: an unreduced per-example vector given to `tape.gradient` is not reported.

Its gradient is the sum over the batch; each replica sums its share and the replicas' sums add up to
the global batch's sum, which is what the same code computes on one device with the global batch
(benchmarks/probe_prec19c_premises.py: the same step on one and two replicas, SGD and Adam, Keras 3
and tf-keras). A vector divided by `num_replicas_in_sync` takes steps that shrink with the replica
count (SGD: half the one-device step with two replicas) and stays reported.
"""

from __future__ import annotations

import textwrap

import pytest

from fixer.config import Config
from fixer.engine import check_source, fix_source

_LOOP = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.{optimizer}
    per_sample = tf.keras.losses.Huber(reduction="none")


def replica_step(features, targets):
    with tf.GradientTape() as tape:
        loss = {loss}
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))
    return loss


@tf.function
def step(features, targets):
    returned = strategy.run(replica_step, args=(features, targets))
    return strategy.reduce({op}, returned, axis=0)
"""

_VECTORS = {
    "keras.losses function": "tf.keras.losses.mse(targets, net(features))",
    "loss object built with reduction none": "per_sample(targets, net(features))",
    "two vectors added up": "tf.keras.losses.mae(targets, net(features)) + tf.keras.losses.mse(targets, net(features))",
}


def _source(loss: str, optimizer: str = "SGD(0.1)", op: str = '"SUM"') -> str:
    return textwrap.dedent(_LOOP.format(loss=loss, optimizer=optimizer, op=op))


def _tfd303(source: str) -> list:
    return check_source("train.py", source, Config(select=("TFD303",))).findings


@pytest.mark.parametrize("optimizer", ["SGD(0.1)", "Adam(0.01)", "Adam(0.01, clipnorm=1.0)", "Adagrad(0.1)"])
@pytest.mark.parametrize("shape", sorted(_VECTORS))
def test_an_unreduced_vector_is_not_reported_whatever_the_optimizer(shape: str, optimizer: str) -> None:
    assert _tfd303(_source(_VECTORS[shape], optimizer)) == []


@pytest.mark.parametrize("op", ['"SUM"', "tf.distribute.ReduceOp.MEAN"])
def test_an_unreduced_vector_is_not_reported_however_its_return_is_reduced(op: str) -> None:
    assert _tfd303(_source(_VECTORS["keras.losses function"], op=op)) == []


@pytest.mark.parametrize("shape", sorted(_VECTORS))
def test_control_a_vector_divided_by_the_replicas_is_reported_and_averaged(shape: str) -> None:
    divided = f"({_VECTORS[shape]}) / strategy.num_replicas_in_sync"
    source = _source(divided)
    (finding,) = _tfd303(source)
    assert "shrinks with the replicas" in finding.message
    fixed = fix_source("train.py", source, Config(select=("TFD303",)), unsafe=True).fixed_text or ""
    assert f"loss = tf.nn.compute_average_loss({_VECTORS[shape]})" in fixed
    assert "axis=None" in fixed  # the scalar it became is reduced across replicas only


def test_control_a_per_replica_mean_is_still_reported() -> None:
    (finding,) = _tfd303(_source("tf.reduce_mean(tf.square(targets - net(features)))"))
    assert "per-replica mean" in finding.message
