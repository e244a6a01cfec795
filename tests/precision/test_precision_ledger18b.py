"""Regression tests for issue 28, blind round ledger18b (task prec19): TFD402 on `strategy.run` of
a replica function that is already a `tf.function`, TFD105 on a second multi-worker strategy, and
TFD101/TFD114 on a loss `Mean` fed the reduced loss eagerly under the scope.

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right. Premises: benchmarks/probe_ledger18b_premises.py.
"""

from __future__ import annotations

from checked_codes import codes_of

# TFD402: the replica function is already compiled ----------------------------------------------

_POLICY_WRAPPER = """
import tensorflow as tf
from agents_lib.policies import EagerPolicyBase


class DistributedPolicy(EagerPolicyBase):
    # The library base sets `self._action_fn` (a tf.function of the policy's action) in its __init__.

    def __init__(self, policy, strategy):
        self._strategy = strategy
        super().__init__(policy, use_tf_function=True)

    def _action(self, time_step, state, seed=None):
        if seed is not None:
            result = self._strategy.run(self._action_fn, args=(time_step, state), kwargs={"seed": seed})
        else:
            result = self._strategy.run(self._action_fn, args=(time_step, state))
        return self._strategy.experimental_local_results(result)[0]


def evaluate(env, policy, strategy):
    wrapped = DistributedPolicy(policy, strategy)
    for _ in range(100):
        step = wrapped._action(env.current_time_step(), ())
        env.step(step.action.numpy())
"""


def test_run_of_an_attribute_a_library_base_class_sets_is_not_tfd402():
    # Neither call: the base class the module cannot see made the attribute (a tf.function there).
    assert "TFD402" not in codes_of(_POLICY_WRAPPER)


_COMPILED_IN_INIT = """
import tensorflow as tf
from tf_agents.utils import common


class Trainer:
    def __init__(self, agent, strategy):
        self._strategy = strategy
        self._train_fn = {wrap}(agent.train)

    def run(self, dataset):
        for experience in dataset:
            loss = self._strategy.run(self._train_fn, args=(experience,))
            print(loss)


trainer = Trainer(agent, tf.distribute.MirroredStrategy())
trainer.run(data)
"""


def test_run_of_an_attribute_compiled_by_tf_agents_common_function_is_not_tfd402():
    assert "TFD402" not in codes_of(_COMPILED_IN_INIT.format(wrap="common.function"))
    assert "TFD402" not in codes_of(_COMPILED_IN_INIT.format(wrap="tf.function"))


def test_run_of_an_attribute_set_to_a_plain_method_is_still_tfd402():
    # A local call that returns the method itself: nothing compiles it.
    assert "TFD402" in codes_of(_COMPILED_IN_INIT.format(wrap="(lambda f: f)"))


_OWN_BASE = """
import tensorflow as tf


class Base:
    def __init__(self, agent):
        self._action_fn = agent.action


class DistributedPolicy(Base):
    def __init__(self, agent, strategy):
        self._strategy = strategy
        super().__init__(agent)

    def act(self, batches):
        for batch in batches:
            result = self._strategy.run(self._action_fn, args=(batch,))
            self.optimizer.apply_gradients(result)


DistributedPolicy(agent, tf.distribute.MirroredStrategy()).act(data)
"""


def test_run_of_an_attribute_a_base_of_the_module_sets_eagerly_is_still_tfd402():
    assert "TFD402" in codes_of(_OWN_BASE)


# TFD105: a second multi-worker strategy after a first -------------------------------------------

_TWO_MULTI_WORKER = """
import numpy as np
import tensorflow as tf


def main(args):
    strategy = None
{before}    if args.distributed:
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

    images = np.random.randint(0, 256, size=(64, 28, 28)) / 255.0

    if args.distributed:
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
    return model, images
"""


def test_a_second_multi_worker_strategy_after_a_first_is_not_tfd105():
    # The first one configured the collectives; building it again with the same cluster is fine.
    assert "TFD105" not in codes_of(_TWO_MULTI_WORKER.format(before=""))


def test_an_op_before_the_first_multi_worker_strategy_is_still_tfd105():
    source = _TWO_MULTI_WORKER.format(before="    warmup = tf.constant(1.0)\n")
    assert "TFD105" in codes_of(source)


# TFD101 / TFD114: a loss Mean fed the reduced loss eagerly under the scope ------------------------

_LOSS_MEAN = """
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD()


def replica_step(batch):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(model(batch), axis=-1)
        loss = tf.reduce_sum(per_example) / 64.0
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return per_example


@tf.function
def train_step(batch):
    per_example = strategy.run(replica_step, args=(batch,))
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, per_example, axis=0)
{in_step}    return total / 64.0


def train(dist_dataset):
{made_outside}    with strategy.scope():
{made_inside}        for batch in dist_dataset:
            loss = train_step(batch)
            {update}
        print(epoch_loss.result())
"""


def _loss_mean(update: str, inside: bool = False, in_step: str = "") -> str:
    made = "epoch_loss = tf.keras.metrics.Mean()\n"
    return _LOSS_MEAN.format(
        made_outside="" if inside else "    " + made,
        made_inside="        " + made if inside else "",
        update=update,
        in_step=in_step,
    )


def test_a_mean_made_outside_and_fed_the_reduced_loss_eagerly_is_not_tfd101():
    assert "TFD101" not in codes_of(_loss_mean("epoch_loss(loss)"))


def test_a_mean_made_in_the_scope_called_eagerly_with_the_reduced_loss_is_not_tfd114():
    # tf-keras's Metric.__call__ takes the update through call_replica_local_fn when eager.
    assert "TFD114" not in codes_of(_loss_mean("epoch_loss(loss)", inside=True))


def test_update_state_of_a_mean_made_in_the_scope_in_the_eager_loop_is_still_tfd114():
    assert "TFD114" in codes_of(_loss_mean("epoch_loss.update_state(loss)", inside=True))


def test_calling_a_mean_made_in_the_scope_in_the_outer_tf_function_is_still_tfd114():
    # Module level, made in the scope, called in the compiled step after the reduce (measured: raises).
    source = _LOSS_MEAN.replace("    optimizer =", "    step_loss = tf.keras.metrics.Mean()\n    optimizer =")
    source = source.format(made_outside="", made_inside="", update="pass", in_step="    step_loss(total)\n")
    assert "TFD114" in codes_of(source)


_MODULE_LOOP = """
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    epoch_loss = tf.keras.metrics.Mean()
{loop}
"""
_LOOP = "for batch in dist_dataset:\n    epoch_loss(distributed_step(batch))\n"


def test_calling_a_mean_made_in_the_scope_eagerly_outside_the_scope_is_still_tfd114():
    # Outside the scope tf-keras has no strategy to hand the update to: it raises as update_state does.
    assert "TFD114" in codes_of(_MODULE_LOOP.format(loop=_LOOP))


def test_calling_a_mean_made_in_the_scope_eagerly_under_the_scope_at_module_level_is_not_tfd114():
    loop = "with strategy.scope():\n" + "".join("    " + line + "\n" for line in _LOOP.splitlines())
    assert "TFD114" not in codes_of(_MODULE_LOOP.format(loop=loop))


def test_an_op_between_two_multi_worker_strategies_keeps_tfd105():
    # Not measured: the second one stays reported.
    source = _TWO_MULTI_WORKER.format(before="").replace(
        "    images = np.random", "    scale = tf.constant(255.0)\n    images = np.random"
    )
    assert "scale = tf.constant" in source
    assert "TFD105" in codes_of(source)
