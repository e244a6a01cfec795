"""Regression tests for issue 28 (prec37): ledger14a's classes, in our own words, each with the
control that keeps the finding where it is right.

- Class 1 (TFD101 and its unsafe fix): a per-example buffer the replicas update row by row with
  `scatter_add`, made outside the scope on purpose: right as one copy under MirroredStrategy, its
  replicas' rows lost once moved into the scope (benchmarks/probe_ledger14a_premises.py).
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source
from fixer.types import Finding


def _findings(text: str, code: str, path: str = "train.py") -> list[Finding]:
    return [f for f in check_source(path, textwrap.dedent(text)).findings if f.code == code]


def _line_of(text: str, snippet: str) -> int:
    """The line (from 1) of the first line of ``text`` holding ``snippet``."""
    return next(n for n, line in enumerate(textwrap.dedent(text).splitlines(), 1) if snippet in line)


# -- class 1: TFD101, a per-example buffer updated row by row in the replica function --------------

_BUFFER = """
import tensorflow as tf

strategy = {strategy}
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    sgd = tf.keras.optimizers.SGD()

per_example = tf.Variable(tf.zeros((64, 1)))


@tf.function
def train(ids, x):
    def replica_step(ids, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(net(x) + tf.gather(per_example, ids))
        grads, row_grads = tape.gradient(loss, [net.trainable_variables, per_example])
        sgd.apply_gradients(zip(grads, net.trainable_variables))
        per_example.{write}

    strategy.run(replica_step, args=(ids, x))
"""
_SCATTER = "scatter_add(tf.IndexedSlices(-row_grads.values, row_grads.indices))"
_MIRRORED = "tf.distribute.MirroredStrategy()"


def test_a_row_buffer_under_mirrored_strategy_is_not_reported() -> None:
    assert _findings(_BUFFER.format(strategy=_MIRRORED, write=_SCATTER), "TFD101") == []


def test_a_row_buffer_where_a_tpu_may_run_is_advice_without_the_move() -> None:
    text = _BUFFER.format(strategy="tf.distribute.TPUStrategy(resolver)", write=_SCATTER)
    (finding,) = _findings(text, "TFD101")
    assert finding.start.line == _line_of(text, "per_example = tf.Variable(")
    assert finding.fix is None
    assert "do not move it into the scope" in finding.message


def test_a_buffer_the_replicas_assign_whole_keeps_the_finding_and_its_fix() -> None:
    text = _BUFFER.format(strategy=_MIRRORED, write="assign_add(tf.ones((64, 1)))")
    (finding,) = _findings(text, "TFD101")
    assert finding.start.line == _line_of(text, "per_example = tf.Variable(")
    assert finding.fix is not None


def test_a_scattered_variable_the_optimizer_also_trains_keeps_the_finding() -> None:
    text = _BUFFER.format(strategy=_MIRRORED, write=_SCATTER).replace(
        "zip(grads, net.trainable_variables)", "zip(grads + [row_grads], net.trainable_variables + [per_example])"
    )
    assert [f.start.line for f in _findings(text, "TFD101")] == [_line_of(text, "per_example = tf.Variable(")]
