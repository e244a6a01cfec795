"""TFD303 when the replica step returns its loss inside a tuple (issue 28, ledger11b wrong fix 4).

`return loss, accuracy`, and the caller unpacks what `strategy.run` hands back and reduces the
losses with MEAN. The fix divides the loss the step differentiates and returns; left alone, that
MEAN would show the divided loss N times too small, so the fix must also make that reduce a SUM
(a SUM of per-replica means divided by N is the global mean, as for a loss returned alone). The
rule follows the unpacked element to its reduce through the bindings that reach it.
"""

from __future__ import annotations

from fixer.config import Config
from fixer.engine import check_source, fix_source

_PROGRAM = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
    optimizer = make_optimizer()


def replica_step(x, y):
    with tf.GradientTape() as tape:
        out = model(x, training=True)
        loss = tf.reduce_mean(tf.square(y - out))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    hits = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(out, -1), tf.argmax(y, -1)), tf.float32))
    return {returned}


@tf.function
def distributed_step(x, y):
    {unpacked} = strategy.run(replica_step, args=(x, y))
    return (
        strategy.reduce(tf.distribute.ReduceOp.{op}, losses, axis=None),
        strategy.reduce(tf.distribute.ReduceOp.MEAN, accuracies, axis=None),
    )


for x, y in dataset:
    mean_loss, mean_hits = distributed_step(x, y)
    print(float(mean_loss), float(mean_hits))
"""

_CONFIG = Config(select=("TFD303",))


def _program(op: str = "MEAN", returned: str = "loss, hits", unpacked: str = "losses, accuracies") -> str:
    return _PROGRAM.format(op=op, returned=returned, unpacked=unpacked)


def _fixed(source: str) -> str:
    fixed = fix_source("train.py", source, _CONFIG, unsafe=True).fixed_text
    assert fixed is not None
    return fixed


def test_the_fix_sums_the_unpacked_loss_it_divides():
    fixed = _fixed(_program())
    assert "tf.reduce_mean(tf.square(y - out)) / tf.distribute.get_replica_context().num_replicas_in_sync" in fixed
    assert "strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)" in fixed
    # The other element is not the loss: its MEAN stays.
    assert "strategy.reduce(tf.distribute.ReduceOp.MEAN, accuracies, axis=None)" in fixed


def test_the_loss_in_the_second_slot_is_followed_too():
    fixed = _fixed(_program(returned="hits, loss", unpacked="accuracies, losses"))
    assert "strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)" in fixed
    assert "strategy.reduce(tf.distribute.ReduceOp.MEAN, accuracies, axis=None)" in fixed


def test_a_mean_reduced_tuple_loss_is_not_said_to_be_reported_too_large():
    (finding,) = check_source("train.py", _program(), _CONFIG).findings
    assert "reported loss" not in finding.message


def test_control_a_sum_reduced_tuple_loss_is_said_to_be_reported_too_large():
    (finding,) = check_source("train.py", _program(op="SUM"), _CONFIG).findings
    assert "gradients and reported loss are N times too large" in finding.message


def test_control_a_name_rebound_before_the_reduce_is_not_followed():
    # The MEAN reduce no longer reads the loss: it is not turned into a SUM; the module still
    # MEAN-reduces something, so the finding is advice (prec30's path), not a division.
    source = _program().replace("    return (\n", "    losses = tf.zeros([])\n    return (\n", 1)
    (finding,) = check_source("train.py", source, _CONFIG).findings
    assert finding.fix is None
    assert "it is also returned: divide only the gradient's loss" in finding.message
