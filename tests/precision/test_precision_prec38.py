"""Regression tests for issue 28 (prec38): ledger14c's classes 1, 5 and 6, ledger14b's TFD203 miss and
ledger14c's TFD303 inconsistency, in our own words, each with the control that keeps the finding.

- TFD504 (ledger14c classes 1 and 6): a MultiWorkerMirroredStrategy made before the script sets
  TF_CONFIG, after it removed it, is one worker on purpose (TFD605 reports it), where Keras 3 `fit` trains
  (benchmarks/probe_ledger9b_premises.py): no finding, so no TF_USE_LEGACY_KERAS line either.
- TFD502 (ledger14c class 5): the `_worker_path` helper reads `strategy.cluster_resolver`, which a
  strategy has from TF 2.3 (the r2.2 API docs list only `extended` and `num_replicas_in_sync`): on a
  project whose image is TF 2.1 the finding stays and no rewrite is offered.
- TFD203 (ledger14b recall, a course assignment in 3 trees): a per-replica batch size that reaches
  `experimental_distribute_dataset` through a function's parameter is reported as the inline form is.
- TFD303 (ledger14c class 3 and its recall note): two per-example vectors added up are one per-example
  vector, so the GAN's two losses are judged alike. Since prec19c an unreduced vector is not reported
  whatever the optimizer (its batch-sum gradient is the one-device code's); divided by the replicas,
  both are.
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

{reset}

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
_RESET = 'os.environ.pop("TF_CONFIG", None)'


def test_tfd504_silent_when_the_strategy_is_made_before_tf_config() -> None:
    codes = _codes(_WALKTHROUGH.format(reset=_RESET, before="", after=_SET))
    assert ("TFD605", 18) in codes  # the strategy stays a single worker ...
    assert not [c for c in codes if c[0] == "TFD504"]  # ... where Keras 3 `fit` trains


def test_tfd504_kept_in_a_per_worker_program_that_sets_tf_config_too_late() -> None:
    # No reset: the late setting is TFD605's bug in a program meant to join the cluster; fixed, `fit` raises.
    codes = _codes(_WALKTHROUGH.format(reset="", before="", after=_SET))
    assert ("TFD605", 18) in codes
    assert [c for c in codes if c[0] == "TFD504"] == [("TFD504", 22)]


def test_tfd504_kept_when_tf_config_is_set_first() -> None:
    codes = _codes(_WALKTHROUGH.format(reset=_RESET, before=_SET, after=""))
    assert [c for c in codes if c[0] == "TFD504"] == [("TFD504", 22)]
    assert not [c for c in codes if c[0] == "TFD605"]


def test_tfd504_kept_when_another_strategy_reads_the_cluster() -> None:
    # The walk-through's first strategy is one worker, the second one reads TF_CONFIG: its `fit` raises.
    second = (
        _SET
        + "\nstrategy = tf.distribute.MultiWorkerMirroredStrategy()\nwith strategy.scope():\n    model = make_model()"
    )
    codes = _codes(_WALKTHROUGH.format(reset=_RESET, before="", after=second))
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
print(GLOBAL_BATCH, type(held_out_dist))
for batch in {iterated}:
    print(batch)
"""


def test_tfd203_follows_the_dataset_into_the_function_that_distributes_it() -> None:
    found = [
        f
        for f in check_source(
            "lab.py", textwrap.dedent(_HANDED.format(size="PER_REPLICA_BATCH", iterated="train_dist"))
        ).findings
    ]
    batch = [f for f in found if f.code == "TFD203"]
    assert [f.start.line for f in batch] == [8]
    assert "in `spread`, given it as `train`" in batch[0].message


def test_tfd203_reads_the_batch_of_a_chain_whose_source_is_unpacked() -> None:
    # `(train, held), info = tfds.load(...)`: the source is unknown, the batch after it is not.
    text = _HANDED.format(size="PER_REPLICA_BATCH", iterated="train_dist").replace(
        "examples = tf.data.Dataset.range(256)", "(examples, spare), info = load_splits()"
    )
    assert [c for c in _codes(text) if c[0] == "TFD203"] == [("TFD203", 8)]


def test_tfd203_silent_when_nothing_iterates_that_distributed_dataset() -> None:
    # Only the other dataset is iterated; this one's type is printed: its batches reach no replica.
    text = _HANDED.format(size="PER_REPLICA_BATCH", iterated="held_out_dist").replace(
        "type(held_out_dist)", "type(train_dist)"
    )
    assert not [c for c in _codes(text) if c[0] == "TFD203"]


def test_tfd203_silent_when_the_caller_batches_globally() -> None:
    assert not [c for c in _codes(_HANDED.format(size="GLOBAL_BATCH", iterated="train_dist")) if c[0] == "TFD203"]


def test_tfd203_silent_when_the_function_is_also_passed_as_a_value() -> None:
    # Other callers unknown: what they pass cannot be read.
    text = _HANDED.format(size="PER_REPLICA_BATCH", iterated="train_dist") + "handlers = [spread]\n"
    assert not [c for c in _codes(text) if c[0] == "TFD203"]


# -- TFD303: a GAN's two per-example losses, judged alike -------------------------------------------

_GAN = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    gen = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(2,))])
    disc = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True, reduction=tf.keras.losses.Reduction.NONE)

    def disc_loss_fn(real, fake):
        real_part = bce(tf.ones_like(real), real)
        fake_part = bce(tf.zeros_like(fake), fake)
        both = real_part + fake_part
        return both

    def gen_loss_fn(fake):
        return bce(tf.ones_like(fake), fake)

    gen_opt = tf.keras.optimizers.{optimizer}
    disc_opt = tf.keras.optimizers.{optimizer}


@tf.function
def train_step(batch):
    def on_replica(images):
        noise = tf.random.normal([4, 2])
        with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
            fake_images = gen(noise, training=True)
            real = disc(images, training=True)
            fake = disc(fake_images, training=True)
            g_loss = gen_loss_fn(fake)
            d_loss = disc_loss_fn(real, fake)
        g_grads = g_tape.gradient(g_loss, gen.trainable_variables)
        d_grads = d_tape.gradient(d_loss, disc.trainable_variables)
        gen_opt.apply_gradients(zip(g_grads, gen.trainable_variables))
        disc_opt.apply_gradients(zip(d_grads, disc.trainable_variables))
        return g_loss, d_loss

    g_loss, d_loss = strategy.run(on_replica, args=(batch,))
    return (
        strategy.reduce(tf.distribute.ReduceOp.MEAN, g_loss, axis={axis}),
        strategy.reduce(tf.distribute.ReduceOp.MEAN, d_loss, axis={axis}),
    )
"""


def _tfd303(optimizer: str, axis: str = "0") -> list[tuple[int, str]]:
    text = textwrap.dedent(_GAN.format(optimizer=optimizer, axis=axis))
    return [(f.start.line, f.message) for f in check_source("gan.py", text).findings if f.code == "TFD303"]


@pytest.mark.parametrize(
    ("optimizer", "axis"),
    [("SGD(0.01)", "0"), ("Adam(1e-4)", "0"), ("Adam(1e-4)", "None"), ("Adam(1e-4, clipnorm=1.0)", "0")],
)
def test_tfd303_silent_on_the_gans_vector_losses_whatever_applies_or_reads_them(optimizer: str, axis: str) -> None:
    # prec19c: a vector's batch-sum gradient is what the same GAN computes on one device.
    assert _tfd303(optimizer, axis=axis) == []


def test_control_tfd303_reports_the_gans_vectors_divided_by_the_replicas() -> None:
    text = textwrap.dedent(_GAN.format(optimizer="SGD(0.01)", axis="0"))
    text = text.replace("return both", "return both / strategy.num_replicas_in_sync")
    text = text.replace(
        "return bce(tf.ones_like(fake), fake)", "return bce(tf.ones_like(fake), fake) / strategy.num_replicas_in_sync"
    )
    lines = [f.start.line for f in check_source("gan.py", text).findings if f.code == "TFD303"]
    assert lines == [14, 17]  # the discriminator's sum and the generator's vector
