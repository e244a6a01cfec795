"""Regression tests for issue 28 (prec18c): ledger17c's wrong TFD303 rewrites and its class 2, in our
own words, each with the control that keeps the finding (or the rewrite).

- Wrong rewrites (x22): a per-example loss that the step also hands to a metric, a print or its caller
  is no longer rewritten to `loss = tf.nn.compute_average_loss(...)`: that would shrink the `Sum`
  metric's read global-batch times while the gradient is fixed (benchmarks/probe_prec18c_premises.py).
  The finding stays, as advice: average only what `tape.gradient` gets. A loss read nowhere else keeps
  its rewrite.
- Class 2 (x7): a `keras.metrics.Sum` updated with the per-example loss and read as
  Sum / (batch size x steps) is a mean read (benchmarks/probe_ledger17c_premises.py, part 3): with Adam
  nothing a user sees differs, so no finding. Read undivided, or divided by the steps alone, it stays.
  `loss = loss + aux` no longer counts as another read of the loss.
- Class 1 (TFD109 x7, TFD101 x5): a Hugging Face `TF*` model or a `hub.KerasLayer` called in a scope
  that builds a `tensorflow.keras` model is a tf-keras layer there, which Keras 3 refuses
  (benchmarks/probe_ledger17c_premises.py, part 1): the program builds only on Keras 2, so TFD109's
  Keras-3 premise does not apply. A Keras layer in its place keeps TFD109.
- prec19c: an unreduced per-example vector is no longer reported at all (its replicas' batch sums add
  up to the one-device code's); the rewrite tests below use a vector divided by
  `num_replicas_in_sync`, still reported, and the class 2 controls became "silent whatever the read".
- Class 3 (x2): `strategy = tf.distribute.get_strategy()` at module level is the default strategy also
  when `tf` comes from a star-imported utility script; the TPU-or-default picker stays reported.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import pytest

from fixer.config import Config
from fixer.engine import check_source, fix_source
from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

_LOOP = """
import tensorflow as tf
from tensorflow.keras import losses, metrics, optimizers

GLOBAL_BATCH = 64
strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
    net = make_net()
    opt = optimizers.{optimizer}(1e-4)
    running = metrics.Sum()
    accuracy = metrics.BinaryAccuracy()
    every_metric = [running, accuracy]


@tf.function
def epoch(batches, count):
    def one_step(features, targets):
        with tf.GradientTape() as tape:
            scores = net(features, training=True)
            per_example = losses.binary_crossentropy(targets, scores)
        grads = tape.gradient(per_example, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables))
        {update}
        accuracy.update_state(targets, scores)

    for _ in tf.range(count):
        strategy.experimental_run_v2(one_step, next(batches))  # a 2020 notebook


for round_ in range(4):
    epoch(batches, STEPS)
    print("train loss", {read})
    for metric in every_metric:
        metric.reset_states()
"""

_MEAN_READ = "running.result().numpy() / (GLOBAL_BATCH * STEPS)"
_SUM_UPDATE = "running.update_state(per_example)"


_VECTOR = "per_example = losses.binary_crossentropy(targets, scores)"


def _source(optimizer: str = "Adam", update: str = _SUM_UPDATE, read: str = _MEAN_READ) -> str:
    return textwrap.dedent(_LOOP.format(optimizer=optimizer, update=update, read=read))


def _divided(source: str) -> str:
    """``source`` with its vector divided by the replicas: still reported (prec19c)."""
    return source.replace(_VECTOR, f"{_VECTOR} / strategy.num_replicas_in_sync")


def _tfd303(source: str) -> list:
    return [f for f in check_source("loop.py", source, Config(select=("TFD303",))).findings]


def _fixed(source: str) -> str | None:
    return fix_source("loop.py", source, Config(select=("TFD303",)), unsafe=True).fixed_text


# -- the rewrite: never when the loss name has other reads ------------------------------------------


def test_no_rewrite_when_the_vector_also_feeds_a_sum_metric() -> None:
    source = _divided(_source(read="running.result()"))  # read as a sum: the finding stays
    (finding,) = _tfd303(source)
    assert finding.fix is None
    assert "feeds `running.update_state`" in finding.message
    assert "tape.gradient" in finding.message
    assert _fixed(source) is None


def test_no_rewrite_with_sgd_either() -> None:
    (finding,) = _tfd303(_divided(_source(optimizer="SGD")))
    assert finding.fix is None
    assert "shrinks with the replicas" in finding.message


def test_no_rewrite_when_the_vector_is_printed() -> None:
    (finding,) = _tfd303(_divided(_source(optimizer="SGD", update="tf.print(per_example)")))
    assert finding.fix is None
    assert "feeds `tf.print`" in finding.message


def test_control_a_vector_read_nowhere_else_keeps_its_rewrite() -> None:
    source = _divided(_source(optimizer="SGD", update="pass"))
    (finding,) = _tfd303(source)
    assert finding.fix is not None
    fixed = _fixed(source)
    assert fixed is not None
    assert "per_example = tf.nn.compute_average_loss(losses.binary_crossentropy(targets, scores))" in fixed


# -- class 2: a Sum read as Sum / (batch x steps) is a mean read -------------------------------------


def test_adam_with_a_sum_read_as_the_mean_is_silent() -> None:
    assert _tfd303(_source()) == []


def test_adam_with_a_sum_called_directly_and_read_as_the_mean_is_silent() -> None:
    assert _tfd303(_source(update="running(per_example)")) == []


def test_adam_with_an_auxiliary_term_added_to_the_loss_name_is_silent() -> None:
    # `per_example = per_example + 0.1 * aux`: the read flows into the value given to `tape.gradient`.
    head = "per_example = losses.binary_crossentropy(targets, scores)"
    aux = "per_example = per_example + 0.1 * losses.hinge(targets, scores)"
    source = _source().replace(head, f"{head}\n            {aux}")
    assert "per_example + 0.1" in source
    assert _tfd303(source) == []


_OTHER_READS = {
    "a sum divided by the steps alone": {"read": "running.result().numpy() / STEPS"},
    "a sum also read undivided": {"read": f"{_MEAN_READ}, running.result()"},
    "SGD": {"optimizer": "SGD"},
}


@pytest.mark.parametrize("case", sorted(_OTHER_READS))
def test_an_unreduced_vector_is_silent_whatever_reads_it(case: str) -> None:
    # prec19c: the batch-sum gradient is what the same code computes on one device.
    assert _tfd303(_source(**_OTHER_READS[case])) == []


@pytest.mark.parametrize("case", sorted(_OTHER_READS))
def test_control_the_vector_divided_by_the_replicas_stays(case: str) -> None:
    assert len(_tfd303(_divided(_source(**_OTHER_READS[case])))) == 1


# -- class 3: `get_strategy()` outside every scope, `tf` from a star-imported utility script ----------

_NOTEBOOK = """
from kaggle_helpers import *
from tensorflow.keras import losses, optimizers

{picker}

model = make_net()
opt = optimizers.SGD(0.01)


@tf.function
def fit_epoch(batches):
    def one_step(features, targets):
        with tf.GradientTape() as tape:
            loss = losses.mean_squared_error(targets, model(features)) / strategy.num_replicas_in_sync
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    for _ in tf.range(100):
        strategy.experimental_run_v2(one_step, next(batches))  # a 2020 notebook
"""

_DEFAULT = "strategy = tf.distribute.get_strategy()"
_TPU_OR_DEFAULT = """
try:
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
    strategy = tf.distribute.TPUStrategy(resolver)
except ValueError:
    strategy = tf.distribute.get_strategy()
"""


def test_default_strategy_with_tf_from_a_star_import_is_silent() -> None:
    assert _tfd303(textwrap.dedent(_NOTEBOOK.format(picker=_DEFAULT))) == []


def test_control_a_tpu_or_default_picker_stays_reported() -> None:
    source = textwrap.dedent(_NOTEBOOK.format(picker=_TPU_OR_DEFAULT))
    assert len(_tfd303(source)) == 1  # the TPU binding reaches the run: up to 8 replicas


def test_control_tf_bound_to_something_else_stays_reported() -> None:
    source = textwrap.dedent(_NOTEBOOK.format(picker=f"tf = load_framework()\n{_DEFAULT}"))
    assert len(_tfd303(source)) == 1


# -- class 1: a tf-keras layer (Hugging Face TF model, TF Hub KerasLayer) in a tensorflow.keras model --

_ENCODER_STEP = """
import tensorflow as tf
from tensorflow.keras import Model, layers, optimizers
{imports}

strategy = tf.distribute.MirroredStrategy()


def build(length):
    tokens = layers.Input(shape=(length,), dtype=tf.int32)
    {encoder}
    return Model(tokens, layers.Dense(1)(features))


with strategy.scope():
    net = build(128)
    optimizer = optimizers.Adam()


def replica_step(tokens, targets):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((net(tokens) - targets) ** 2)
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))


@tf.function
def step(tokens, targets):
    strategy.run(replica_step, args=(tokens, targets))
"""

_ENCODERS = {
    "transformers": (
        "from transformers import TFBertModel",
        'encoder = TFBertModel.from_pretrained("bert-base")\n    features = encoder({"input_ids": tokens})[0][:, 0]',
    ),
    "hub": (
        "import tensorflow_hub as hub",
        'encoder = hub.KerasLayer("https://example.org/encoder/1")\n    features = encoder(tokens)',
    ),
}


def _encoder_codes(root: Path, imports: str, encoder: str) -> list[str]:
    """The codes found in a project at ``root`` whose one file builds its model around ``encoder``."""
    path = root / "train.py"
    path.write_text(textwrap.dedent(_ENCODER_STEP).format(imports=imports, encoder=encoder))
    (result,) = list(run([path], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.code for f in result.findings]


@pytest.mark.parametrize("kind", sorted(_ENCODERS))
def test_a_tf_keras_encoder_in_a_keras_model_makes_the_program_keras2(tmp_path: Path, kind: str) -> None:
    assert "TFD109" not in _encoder_codes(tmp_path, *_ENCODERS[kind])


def test_control_a_keras_encoder_keeps_tfd109(tmp_path: Path) -> None:
    imports, _ = _ENCODERS["hub"]
    assert "TFD109" in _encoder_codes(tmp_path, imports, "features = layers.Dense(8)(tokens)")
