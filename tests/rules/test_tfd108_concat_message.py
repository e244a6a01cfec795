"""TFD108's message for `tf.concat` of a `strategy.run` result says what really happens: no error,
the PerReplica comes back unchanged, its parts not joined (benchmarks/probe_concat_of_per_replica.py).
Other TensorFlow ops keep the "raises" message (`tf.reduce_sum` raises, measured)."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_PROGRAM = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

@tf.function
def step(x):
    def replica_fn(x):
        return x * 2.0
    return strategy.run(replica_fn, args=(x,))

outputs = step(tf.ones([4]))
joined = {use}
"""


def tfd108(use: str) -> list[str]:
    source = textwrap.dedent(_PROGRAM).format(use=use)
    return [f.message for f in check_source("eval.py", source).findings if f.code == "TFD108"]


def test_concat_returns_the_per_replica_value_unchanged():
    (message,) = tfd108("tf.concat(outputs, axis=0)")
    assert "returns a `strategy.run` result unchanged" in message
    assert "instead of one tensor" in message
    assert "raises" not in message


def test_other_ops_still_raise():
    (message,) = tfd108("tf.reduce_sum(outputs)")
    assert "raises" in message
