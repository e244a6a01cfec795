"""TFD303 where nothing is summed or nothing a user sees changes (issue 28, ledger8b classes 2, 3).

- A test class that keeps `tf.distribute.get_strategy()` and never enters a scope runs its step on
  the default strategy: one replica, nothing is summed.
- Adam and RMSprop take the same steps with N-times gradients, and a loss reported with
  `strategy.reduce(MEAN, ...)` is the global mean: silent (benchmarks/probe_loss_scaling_optimizers.py).
- A loss whose value also feeds a metric is not divided where it is computed (the metric would read
  it N times too small): the finding is advice.
Each case has a control that keeps the finding.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source, fix_source
from fixer.tf.importers import project_roots

RUNNER_TEST = """
import tensorflow as tf


class Runner:
    def __init__(self, model):
        self.model = model
        self.strategy = {strategy}
        self.optimizer = tf.keras.optimizers.SGD(0.1)

    def replica_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x) - y))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    @tf.function
    def step(self, x, y):
        return self.strategy.run(self.replica_step, args=(x, y))


class RunnerTest(tf.test.TestCase):
    def test_step(self):
        runner = Runner(tf.keras.Sequential([tf.keras.layers.Dense(1)]))
        loss = runner.step(tf.ones((4, 2)), tf.ones((4, 1)))
        self.assertGreater(float(loss), 0.0)
"""


def tfd303(path: str, source: str) -> list:
    return [f for f in check_source(path, textwrap.dedent(source)).findings if f.code == "TFD303"]


def test_a_test_runner_on_get_strategy_outside_every_scope_is_not_reported():
    assert tfd303("runner_test.py", RUNNER_TEST.format(strategy="tf.distribute.get_strategy()")) == []


def test_a_test_runner_on_a_mirrored_strategy_is_reported():
    assert len(tfd303("runner_test.py", RUNNER_TEST.format(strategy="tf.distribute.MirroredStrategy()"))) == 1


def test_get_strategy_in_a_library_class_is_whatever_scope_its_caller_enters():
    # Not a test file: whoever builds the runner may do it inside a strategy's scope.
    assert len(tfd303("runner.py", RUNNER_TEST.format(strategy="tf.distribute.get_strategy()"))) == 1


def test_a_test_that_enters_a_scope_is_not_taken_for_the_default_strategy():
    source = RUNNER_TEST.format(strategy="tf.distribute.get_strategy()") + textwrap.indent(
        textwrap.dedent("""
        def test_in_scope(self):
            with tf.distribute.MirroredStrategy().scope():
                runner = Runner(tf.keras.Sequential([tf.keras.layers.Dense(1)]))
            self.assertGreater(float(runner.step(tf.ones((4, 2)), tf.ones((4, 1)))), 0.0)
        """),
        "    ",
    )
    assert len(tfd303("runner_test.py", source)) == 1


LOOP = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.{optimizer}


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    {clip}optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_step(x, y):
    losses = strategy.run(train_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.{op}, losses, axis=None)
"""


def loop(optimizer: str = "Adam(0.01)", op: str = "MEAN", clip: str = "") -> str:
    return LOOP.format(optimizer=optimizer, op=op, clip=clip)


def test_adam_with_a_mean_reported_loss_is_silent():
    assert tfd303("train.py", loop()) == []
    assert tfd303("train.py", loop(optimizer="RMSprop(0.01)")) == []


def test_sgd_with_a_mean_reported_loss_takes_larger_steps():
    (finding,) = tfd303("train.py", loop(optimizer="SGD(0.1)"))
    assert "SGD takes steps N times too large" in finding.message


def test_adam_with_a_summed_report_shows_the_loss_n_times_too_large():
    (finding,) = tfd303("train.py", loop(op="SUM"))
    assert "reported loss is N times too large" in finding.message


def test_adam_with_clipping_is_still_reported():
    clip = "grads, _ = tf.clip_by_global_norm(grads, 1.0)\n    "
    assert len(tfd303("train.py", loop(clip=clip))) == 1
    assert len(tfd303("train.py", loop(optimizer="Adam(0.01, clipnorm=1.0)"))) == 1


def test_an_optimizer_that_is_not_scale_free_is_still_reported():
    assert len(tfd303("train.py", loop(optimizer="Adagrad(0.05)"))) == 1


SHARED = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.1)
    train_loss = tf.keras.metrics.Mean(name="train_loss")


def compute_loss(y, pred):
    return tf.reduce_mean(tf.square(pred - y))


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = compute_loss(y, model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    {metric}


@tf.function
def distributed_step(x, y):
    strategy.run(train_step, args=(x, y))
"""


def test_a_loss_that_also_feeds_a_metric_gets_advice_only():
    source = SHARED.format(metric="train_loss(loss)")
    (finding,) = tfd303("train.py", source)
    assert "train_loss" in finding.message and "tape.gradient" in finding.message
    assert finding.fix is None or not finding.fix.edits
    assert fix_source("train.py", source, unsafe=True).fixed_text in (None, source)


def test_a_loss_read_only_by_the_gradient_is_fixed_in_its_helper():
    source = SHARED.format(metric="pass")
    (finding,) = tfd303("train.py", source)
    assert finding.fix is not None and finding.fix.edits
    fixed = fix_source("train.py", source, unsafe=True).fixed_text
    assert "tf.reduce_mean(tf.square(pred - y)) / tf.distribute.get_replica_context().num_replicas_in_sync" in fixed


TRAINER = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x) - y))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    @tf.function
    def distributed_step(self, x, y):
        losses = strategy.run(self.train_step, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.MEAN, losses, axis=None)


with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.{optimizer}
trainer = Trainer(model, optimizer=optimizer)
"""


def test_the_optimizer_a_trainer_is_constructed_with_is_the_one_it_applies():
    assert tfd303("train.py", TRAINER.format(optimizer="Adam(0.01)")) == []
    (finding,) = tfd303("train.py", TRAINER.format(optimizer="SGD(0.1)"))
    assert "SGD takes steps N times too large" in finding.message


REPORTED = """
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = {optimizer}
    epoch_loss = tf.keras.metrics.Mean(name="epoch_loss")


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    {reading}


@tf.function
def distributed_step(x, y):
    {run}
"""


def reported(reading: str, run: str = "strategy.run(train_step, args=(x, y))", optimizer: str = "") -> str:
    return REPORTED.format(optimizer=optimizer or "tf.keras.optimizers.Adam(0.01)", reading=reading, run=run)


def test_adam_whose_loss_only_feeds_a_mean_metric_is_silent():
    # A keras.metrics.Mean updated on each replica averages the per-replica means: the global mean.
    assert tfd303("train.py", reported("epoch_loss(loss)")) == []
    assert tfd303("train.py", reported("epoch_loss.update_state(loss)")) == []


def test_adam_whose_loss_is_read_by_nothing_is_silent():
    assert tfd303("train.py", reported("pass")) == []


def test_adam_with_a_mean_metric_and_a_mean_reduced_return_is_silent():
    reading = "epoch_loss(loss)\n    return loss"
    run = "return strategy.reduce(tf.distribute.ReduceOp.MEAN, strategy.run(train_step, args=(x, y)), axis=None)"
    assert tfd303("train.py", reported(reading, run)) == []


def test_adam_whose_loss_is_printed_is_still_reported():
    # A print is not a mean over replicas: what it shows is not followed, so the finding stays.
    (finding,) = tfd303("train.py", reported("tf.print(loss)"))
    assert "tf.print" in finding.message


def test_adam_whose_returned_loss_is_summed_is_reported_for_the_report():
    reading = "epoch_loss(loss)\n    return loss"
    run = "return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(train_step, args=(x, y)), axis=None)"
    (finding,) = tfd303("train.py", reported(reading, run))
    assert "epoch_loss" in finding.message


def test_sgd_whose_loss_only_feeds_a_mean_metric_is_reported():
    optimizer = "tf.keras.optimizers.SGD(0.1)"
    assert len(tfd303("train.py", reported("epoch_loss(loss)", optimizer=optimizer))) == 1
    (finding,) = tfd303("train.py", reported("pass", optimizer=optimizer))
    assert "SGD takes steps N times too large" in finding.message


def test_a_metric_that_is_not_a_mean_is_not_taken_for_one():
    source = reported("epoch_loss(loss)").replace("tf.keras.metrics.Mean(", "tf.keras.metrics.Sum(")
    assert len(tfd303("train.py", source)) == 1


def test_tf_optimizers_is_the_keras_optimizers_module():
    # `tf.optimizers.Adam` is `tf.keras.optimizers.Adam` (benchmarks/probe_loss_scaling_optimizers.py).
    assert tfd303("train.py", reported("pass", optimizer="tf.optimizers.Adam(0.01)")) == []
    assert len(tfd303("train.py", reported("pass", optimizer="tf.optimizers.SGD(0.1)"))) == 1


def test_a_trainer_also_built_without_an_optimizer_keeps_the_optimizer_it_trains_with():
    # `Trainer(model, optimizer=None)` restores or predicts: it applies no gradients.
    source = TRAINER.format(optimizer="Adam(0.01)") + "restorer = Trainer(model, optimizer=None)\n"
    assert tfd303("train.py", source) == []
    source = TRAINER.format(optimizer="SGD(0.1)") + "restorer = Trainer(model, optimizer=None)\n"
    assert len(tfd303("train.py", source)) == 1


def test_adam_with_clipping_names_the_clip_in_its_message():
    (finding,) = tfd303("train.py", loop(optimizer="Adam(0.01, clipnorm=1.0)"))
    assert "clipping sees N-times gradients" in finding.message


TWIN_TEST = """
import numpy as np
import tensorflow as tf


class TwinStepsTest(tf.test.TestCase):
    def test_two_spellings_of_one_step_agree(self):
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            first = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            second = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            optimizer = tf.keras.optimizers.SGD(0.1)

        def first_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(y - first(x)))
            grads = tape.gradient(loss, first.variables)
            optimizer.apply_gradients(zip(grads, first.variables))

        def second_step(x, y):
            with tf.GradientTape() as tape:
                loss = {second_loss}
            grads = tape.gradient(loss, second.variables)
            optimizer.apply_gradients(zip(grads, second.variables))

        strategy.run(first_step, args=(np.ones((4, 3)), np.ones((4, 2))))
        strategy.run(second_step, args=(np.ones((4, 3)), np.ones((4, 2))))
        for a, b in zip(first.variables, second.variables):
            {assertion}
"""


def twin(second_loss: str = "tf.reduce_mean(tf.square(y - second(x)))", assertion: str = "") -> str:
    return TWIN_TEST.format(second_loss=second_loss, assertion=assertion or "self.assertAllClose(a.numpy(), b.numpy())")


def test_a_test_comparing_two_models_whose_steps_scale_alike_is_silent():
    # Both losses are per-replica means: the scale moves both models alike, the comparison holds.
    assert tfd303("steps_test.py", twin()) == []


def test_control_the_same_test_against_an_expected_value_is_reported():
    assertion = "self.assertAllClose(a.numpy(), np.zeros((3, 2)))"
    assert len(tfd303("steps_test.py", twin(assertion=assertion))) == 2


def test_control_a_test_comparing_a_scaled_step_with_an_unscaled_one_is_reported():
    scaled = "tf.reduce_mean(tf.square(y - second(x))) / tf.distribute.get_replica_context().num_replicas_in_sync"
    assert len(tfd303("steps_test.py", twin(second_loss=scaled))) == 1


def test_control_the_same_steps_outside_a_test_file_are_reported():
    assert len(tfd303("steps.py", twin())) == 2


TRAINER_MODULE = """
import tensorflow as tf


class Trainer:
    def __init__(self, model, strategy, optimizer=None):
        self.model = model
        self.strategy = strategy
        self.optimizer = optimizer
        self.train_loss = tf.keras.metrics.Mean(name="train_loss")

    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x) - y))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        self.train_loss(loss)

    @tf.function
    def distributed_step(self, x, y):
        self.strategy.run(self.train_step, args=(x, y))
"""

LAUNCHER = """
import tensorflow as tf
from trainer import Trainer

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    opt = {optimizer}
trainer = Trainer(model, strategy, optimizer=opt)
restorer = Trainer(model, strategy)
"""


def trainer_project(tmp_path, launcher: str | None) -> list:
    module = tmp_path / "trainer.py"
    module.write_text(TRAINER_MODULE)
    if launcher is not None:
        (tmp_path / "train.py").write_text(launcher)
    with project_roots((str(tmp_path),)):
        return tfd303(str(module), TRAINER_MODULE)


def test_the_optimizer_another_project_file_constructs_a_trainer_with_is_the_one_it_applies(tmp_path):
    # The step's loss only feeds a keras.metrics.Mean, and train.py gives the trainer an Adam.
    assert trainer_project(tmp_path, LAUNCHER.format(optimizer="tf.optimizers.Adam(0.01)")) == []


def test_control_an_sgd_from_another_project_file_is_reported(tmp_path):
    (finding,) = trainer_project(tmp_path, LAUNCHER.format(optimizer="tf.keras.optimizers.SGD(0.1)"))
    assert "(SGD: N-times steps); it also feeds `self.train_loss`" in finding.message
    assert len(finding.message) <= 200


def test_control_without_a_file_that_constructs_the_trainer_the_optimizer_is_unknown(tmp_path):
    assert len(trainer_project(tmp_path, None)) == 1
