"""TFD101 on a variable the replica function writes whole: the finding stays, the move is withdrawn.

Ledger24b's wrong fix (latent-diffusion-tf): a trainer makes a non-trainable scale variable just
before entering the strategy's scope; a `tf.function` helper, called by the step that
`strategy.run` runs, assigns it a value computed from the replica's own batch. Moved into the scope
as is, it becomes a MirroredVariable with aggregation NONE and each replica keeps its own copy
(benchmarks/probe_replica_assigned_variable.py: [2.0, 0.6667]). Only the author knows whether MEAN,
SUM, ONLY_FIRST_REPLICA or ON_READ is meant, so the finding says so and edits nothing. A variable
the replica function only reads computes the same either side of the scope: its move stays.
"""

from __future__ import annotations

import textwrap

from fixer.config import Config
from fixer.engine import check_source, fix_source

ONLY = Config(select=("TFD101",))

# A trainer whose step helper rescales its inputs by a per-batch statistic it stores in a variable.
RESCALING_TRAINER = textwrap.dedent(
    """\
    import tensorflow as tf


    class Trainer:
        def __init__(self, strategy, net):
            self.strategy = strategy
            self.factor = tf.Variable(1.0, trainable=False)
            with self.strategy.scope():
                self.net = net()
                self.opt = tf.keras.optimizers.SGD(0.1)

        @tf.function
        def normalise(self, images):
            self.factor.assign(1.0 / tf.math.reduce_std(images))
            return images * self.factor

        def replica_step(self, images):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(self.net(self.normalise(images)))
            grads = tape.gradient(loss, self.net.trainable_variables)
            self.opt.apply_gradients(zip(grads, self.net.trainable_variables))

        @tf.function
        def step(self, images):
            self.strategy.run(self.replica_step, args=(images,))
    """
)

# A module-level running total each replica adds its batch's sum to, inside the function `run` runs.
ACCUMULATED_TOTAL = textwrap.dedent(
    """\
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    seen = tf.Variable(0.0, trainable=False)
    with strategy.scope():
        net = tf.keras.Sequential([tf.keras.layers.Dense(1)])


    def replica_step(rows):
        seen.{method}(tf.reduce_sum(rows))
        return net(rows)


    @tf.function
    def step(rows):
        return strategy.run(replica_step, args=(rows,))
    """
)


def _tfd101(source: str) -> list:
    return [f for f in check_source("train.py", source, ONLY).findings if f.code == "TFD101"]


def test_a_variable_a_replica_helper_assigns_is_reported_with_advice_and_no_edit():
    findings = _tfd101(RESCALING_TRAINER)
    assert [f.start.line for f in findings] == [7]
    (finding,) = findings
    assert finding.fix is None
    assert "assigned by replicas" in finding.message and "aggregation=" in finding.message
    assert "ON_READ" in finding.message
    assert fix_source("train.py", RESCALING_TRAINER, ONLY, unsafe=True).fixed_text is None


def test_assign_add_and_assign_sub_in_the_replica_function_withdraw_the_move_too():
    for method in ("assign_add", "assign_sub"):
        source = ACCUMULATED_TOTAL.format(method=method)
        (finding,) = _tfd101(source)
        assert finding.start.line == 4 and finding.fix is None, method
        assert fix_source("train.py", source, ONLY, unsafe=True).fixed_text is None


def test_control_a_variable_the_replica_function_only_reads_keeps_its_move():
    source = RESCALING_TRAINER.replace(
        "        self.factor.assign(1.0 / tf.math.reduce_std(images))\n", ""
    ).replace("tf.Variable(1.0, trainable=False)", "tf.Variable(1.0)")
    (finding,) = _tfd101(source)
    assert finding.fix is not None
    assert "assigned by replicas" not in finding.message
    fixed = fix_source("train.py", source, ONLY, unsafe=True).fixed_text
    assert fixed is not None
    assert "with self.strategy.scope():\n            self.factor = tf.Variable(1.0)\n" in fixed


def test_control_a_variable_assigned_only_between_steps_keeps_its_move():
    # `seen` written in cross-replica code (the host loop), read by the replicas: no replica assigns it.
    source = ACCUMULATED_TOTAL.format(method="__add__").replace(
        "        seen.__add__(tf.reduce_sum(rows))\n", "        net(rows * seen)\n"
    ) + "\nfor rows in data:\n    step(rows)\n    seen.assign_add(1.0)\n"
    source = source.replace("tf.Variable(0.0, trainable=False)", "tf.Variable(0.0)")
    (finding,) = _tfd101(source)
    assert finding.fix is not None and "assigned by replicas" not in finding.message
