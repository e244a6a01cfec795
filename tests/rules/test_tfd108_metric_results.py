"""TFD108 on a metric's `result()` returned by `strategy.run`: a PerReplica on Keras 3, one merged
tensor on tf-keras (benchmarks/probe_ledger8b_premises.py). Reported "on Keras 3" where Keras 3
may be in play, silent on a Keras 2 target; a plain tensor stays a finding on both."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path

STEP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    accuracy = tf.keras.metrics.SparseCategoricalAccuracy()


def replica_step(x, y):
    accuracy.update_state(y, x)
    return {value}


@tf.function
def step(x, y):
    return strategy.run(replica_step, args=(x, y))


print(step(features, labels).numpy())
"""
METRIC = STEP.format(value="accuracy.result()")
TENSOR = STEP.format(value="tf.reduce_sum(x)")


def _messages(root: Path, source: str, requirements: str | None) -> list[str]:
    root.mkdir(parents=True)
    (root / ".git").mkdir()
    if requirements is not None:
        (root / "requirements.txt").write_text(requirements)
    path = root / "valid.py"
    path.write_text(source)
    return [f.message for f in check_source(str(path), source, Config(select=("TFD108",))).findings]


def test_a_metric_result_is_reported_on_keras_3_only(tmp_path: Path):
    (assumed,) = _messages(tmp_path / "a", METRIC, None)
    assert assumed.startswith("on Keras 3, `.numpy()` raises on a `strategy.run` result")
    (pinned,) = _messages(tmp_path / "b", METRIC, "tensorflow==2.17.0\n")
    assert pinned.startswith("on Keras 3, ")
    assert _messages(tmp_path / "c", METRIC, "tensorflow==2.15.0\n") == []


def test_a_plain_tensor_is_reported_on_both_kerases(tmp_path: Path):
    (keras2,) = _messages(tmp_path / "a", TENSOR, "tensorflow==2.15.0\n")
    assert keras2.startswith("`.numpy()` raises on a `strategy.run` result")
