"""Regression tests for issue 28 (prec38): ledger14c's classes 1, 5 and 6, ledger14b's TFD203 miss and
ledger14c's TFD303 inconsistency, in our own words, each with the control that keeps the finding.

- TFD504 (ledger14c classes 1 and 6): a MultiWorkerMirroredStrategy made before the script sets
  TF_CONFIG is one worker (what TFD605 reports), where Keras 3 `fit` trains
  (benchmarks/probe_ledger9b_premises.py): no finding, so no TF_USE_LEGACY_KERAS line either.
- TFD502 (ledger14c class 5): the `_worker_path` helper reads `strategy.cluster_resolver`, which a
  strategy has from TF 2.3 (the r2.2 API docs list only `extended` and `num_replicas_in_sync`): on a
  project whose image is TF 2.1 the finding stays and no rewrite is offered.
- TFD203 (ledger14b recall, a course assignment in 3 trees): a per-replica batch size that reaches
  `experimental_distribute_dataset` through a function's parameter is reported as the inline form is.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import pytest

from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path


def _codes(text: str, path: str = "train.py") -> list[tuple[str, int]]:
    return [(f.code, f.start.line) for f in check_source(path, textwrap.dedent(text)).findings]


# -- TFD504: the strategy is made before TF_CONFIG is set (one worker) -------------------------------

_WALKTHROUGH = """
import json
import os

os.environ.pop("TF_CONFIG", None)

import tensorflow as tf


def make_model():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    net.compile(optimizer="sgd", loss="mse")
    return net


cluster = {{"cluster": {{"worker": ["localhost:5001", "localhost:5002"]}}, "task": {{"type": "worker", "index": 0}}}}
{before}
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = make_model()
{after}
model.fit(tf.data.Dataset.from_tensors(([1.0], [1.0])).repeat(4).batch(2), epochs=1)
"""

_SET = 'os.environ["TF_CONFIG"] = json.dumps(cluster)'


def test_tfd504_silent_when_the_strategy_is_made_before_tf_config() -> None:
    codes = _codes(_WALKTHROUGH.format(before="", after=_SET))
    assert ("TFD605", 18) in codes  # the strategy stays a single worker ...
    assert not [c for c in codes if c[0] == "TFD504"]  # ... where Keras 3 `fit` trains


def test_tfd504_kept_when_tf_config_is_set_first() -> None:
    codes = _codes(_WALKTHROUGH.format(before=_SET, after=""))
    assert [c for c in codes if c[0] == "TFD504"] == [("TFD504", 22)]
    assert not [c for c in codes if c[0] == "TFD605"]


def test_tfd504_kept_when_another_strategy_reads_the_cluster() -> None:
    # The walk-through's first strategy is one worker, the second one reads TF_CONFIG: its `fit` raises.
    second = _SET + "\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\nwith strategy.scope():\n    model = make_model()"
    codes = _codes(_WALKTHROUGH.format(before="", after=second))
    assert [c[0] for c in codes].count("TFD504") == 1


# -- TFD502: no `cluster_resolver` helper below TF 2.3 ------------------------------------------------

_SHARED_SAVE = """\
import tensorflow as tf

strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
model.fit(tf.data.Dataset.from_tensors(([1.0], [1.0])).repeat(4).batch(2), epochs=1)
model.save("/shared/export/1")
"""


@pytest.mark.parametrize(("image", "fixed"), [("2.1.0-py3", False), ("2.2.0", False), ("2.3.0", True), ("2.4.0", True)])
def test_tfd502_offers_the_helper_only_where_the_strategy_has_a_cluster_resolver(
    tmp_path: Path, image: str, fixed: bool
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "Dockerfile").write_text(f"FROM tensorflow/tensorflow:{image}\nCOPY train.py /app/\n")
    script = tmp_path / "train.py"
    script.write_text(_SHARED_SAVE)
    found = [f for f in check_source(str(script), _SHARED_SAVE).findings if f.code == "TFD502"]
    assert len(found) == 1  # the race is the same on every release
    assert (found[0].fix is not None) is fixed


# -- TFD203: a per-replica batch handed to the distributing function --------------------------------

_HANDED = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
PER_REPLICA_BATCH = 32
GLOBAL_BATCH = PER_REPLICA_BATCH * strategy.num_replicas_in_sync
examples = tf.data.Dataset.range(256)
train = examples.shuffle(64).batch({size})
held_out = examples.batch(8)


def spread(strategy, train, held_out):
    first = strategy.experimental_distribute_dataset(train)
    second = strategy.experimental_distribute_dataset(held_out)
    return first, second


train_dist, held_out_dist = spread(strategy, train, held_out)
print(GLOBAL_BATCH)
"""


def test_tfd203_follows_the_dataset_into_the_function_that_distributes_it() -> None:
    found = [f for f in check_source("lab.py", textwrap.dedent(_HANDED.format(size="PER_REPLICA_BATCH"))).findings]
    batch = [f for f in found if f.code == "TFD203"]
    assert [f.start.line for f in batch] == [8]
    assert "in `spread`, given it as `train`" in batch[0].message


def test_tfd203_silent_when_the_caller_batches_globally() -> None:
    assert not [c for c in _codes(_HANDED.format(size="GLOBAL_BATCH")) if c[0] == "TFD203"]


def test_tfd203_silent_when_the_function_is_also_passed_as_a_value() -> None:
    # Other callers unknown: what they pass cannot be read.
    text = _HANDED.format(size="PER_REPLICA_BATCH") + "handlers = [spread]\n"
    assert not [c for c in _codes(text) if c[0] == "TFD203"]
