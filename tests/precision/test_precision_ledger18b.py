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
