"""Regression tests for issue 28 (prec34): ledger13b's classes 2, 3 and 5, in our own words, each
with the control that keeps the finding where it is right.

- Class 2 (TFD108): `.numpy()` on a `strategy.run` result where a replica-count test says there is
  one replica (the `else` of `if count > 1`, the body of `if count == 1`): `run` returns plain
  tensors there (benchmarks/probe_ledger13b_premises.py).
- Class 5 (TFD504): a program that builds a `tf.keras.optimizers.legacy` optimizer runs on Keras 2
  only (Keras 3 raises ImportError there, the same probe): no Keras-3-only finding about its `fit`.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import pytest

from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path


def _lines(text: str, code: str) -> list[int]:
    return [f.start.line for f in check_source("predict.py", textwrap.dedent(text)).findings if f.code == code]


def _line_of(text: str, snippet: str) -> int:
    """The line (from 1) of the first line of ``text`` holding ``snippet``."""
    return next(n for n, line in enumerate(textwrap.dedent(text).splitlines(), 1) if snippet in line)


# -- class 2: TFD108 in the one-replica arm of a replica-count test ---------------------------------

_PREDICT = """
import tensorflow as tf

try:
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
except ValueError:
    resolver = None
if resolver:
    strategy = tf.distribute.TPUStrategy(resolver)
else:
    strategy = tf.distribute.get_strategy()
{count}


def infer(batch):
    return tf.argmax(batch, axis=1)


@tf.function
def sharded_infer(batch):
    return strategy.run(infer, args=(batch,))


for batch in tf.data.Dataset.range(4).batch(2):
    labels = sharded_infer(batch)
    if {test}:
        {several}
    else:
        {single}
"""

_VALUES = "out = labels.values[0].numpy()"
_PLAIN = "out = labels.numpy()"


@pytest.mark.parametrize(
    ("count", "test"),
    [
        ("WORKERS = strategy.num_replicas_in_sync", "WORKERS > 1"),
        ("", "strategy.num_replicas_in_sync > 1"),
        ("", "strategy.num_replicas_in_sync >= 2"),
        ("", "1 < strategy.num_replicas_in_sync"),
        ("WORKERS = strategy.num_replicas_in_sync", "WORKERS != 1"),
    ],
)
def test_numpy_in_the_one_replica_else_is_not_reported(count: str, test: str) -> None:
    text = _PREDICT.format(count=count, test=test, several=_VALUES, single=_PLAIN)
    assert _lines(text, "TFD108") == []


def test_numpy_in_the_several_replica_arm_is_still_reported() -> None:
    # The `if` arm runs with several replicas: `.numpy()` of the run result raises there.
    text = _PREDICT.format(
        count="WORKERS = strategy.num_replicas_in_sync", test="WORKERS > 1", several=_PLAIN, single=_PLAIN
    )
    assert _lines(text, "TFD108") == [_line_of(text, _PLAIN)]


def test_numpy_in_the_body_of_a_one_replica_test_is_not_reported() -> None:
    text = _PREDICT.format(count="", test="strategy.num_replicas_in_sync == 1", several=_PLAIN, single=_VALUES)
    assert _lines(text, "TFD108") == []


def test_unguarded_numpy_and_other_tests_are_still_reported() -> None:
    unguarded = _PREDICT.replace(
        "    if {test}:\n        {several}\n    else:\n        {single}\n", "    out = labels.numpy()\n"
    )
    unguarded = unguarded.format(count="")
    assert _lines(unguarded, "TFD108") == [_line_of(unguarded, _PLAIN)]
    # A test on something else than the replica count says nothing about the run result.
    other = _PREDICT.format(count="STEPS = 3", test="STEPS > 1", several=_VALUES, single=_PLAIN)
    assert _lines(other, "TFD108") == [_line_of(other, _PLAIN)]
    # A name rebound on some path is not known to hold the replica count.
    rebound = _PREDICT.format(
        count="WORKERS = strategy.num_replicas_in_sync\nif resolver is None:\n    WORKERS = 8",
        test="WORKERS > 1",
        several=_VALUES,
        single=_PLAIN,
    )
    assert _lines(rebound, "TFD108") == [_line_of(rebound, _PLAIN)]


# -- class 5: TFD504 in a program that builds a legacy optimizer (Keras 2 only) ---------------------

_WORKERS = """
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(4)])
    net.compile(optimizer={optimizer}, loss="mse")
features = tf.data.Dataset.from_tensor_slices(([[1.0]] * 8, [[2.0]] * 8)).batch(4)
net.fit(features, epochs=2)
"""


def _project_lines(root: Path, text: str, code: str) -> list[int]:
    """``code``'s finding lines in ``text`` checked as a file under ``root``, a folder that pins
    nothing (the target is read from the program itself)."""
    findings = check_source(str(root / "train.py"), textwrap.dedent(text)).findings
    return [f.start.line for f in findings if f.code == code]


def test_fit_in_a_program_with_a_legacy_optimizer_is_not_reported_for_keras3(tmp_path: Path) -> None:
    # Keras 3 raises ImportError building the legacy optimizer: the program runs on tf-keras only.
    assert _project_lines(tmp_path, _WORKERS.format(optimizer="tf.keras.optimizers.legacy.SGD(0.1)"), "TFD504") == []


def test_fit_with_a_current_optimizer_is_still_reported(tmp_path: Path) -> None:
    text = _WORKERS.format(optimizer="tf.keras.optimizers.SGD(0.1)")
    assert _project_lines(tmp_path, text, "TFD504") == [_line_of(text, "net.fit(")]
