"""TFD202 leaves whole-data reads that are meant (issue 28, ledger7b class 5), in our own words.

(a) a plain single-device reference run that no strategy reaches; (b) a `dataset_fn` whose data
each worker's process builds from a path or seed holding its task index (or draws unseeded); (c) one `dataset_fn`
handed to `distribute_datasets_from_function` several times is one finding. Each shape has a
control that stays reported.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source

_REFERENCE = """
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
{scoped}


def reference_run(samples, global_batch):
    dataset = tf.data.Dataset.from_tensor_slices(samples).batch(global_batch)
{model}
    @tf.function
    def _train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for x, y in dataset:
        _train_step(x, y)
    return model.get_weights()


{caller}
"""

_CALLED = "expected = reference_run(samples, 64)"

_OWN_MODEL = """
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.1)
"""

_SCOPED_MODEL = """
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.1)
"""

_PER_WORKER = """
import json
import os

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
task_id = json.loads(os.environ["TF_CONFIG"])["task"]["index"]


def train(args, *samples):
    def _dataset_fn(input_context):
        batch = input_context.get_per_replica_batch_size(args.global_batch_size)
        return tf.data.Dataset.from_tensor_slices(samples).shuffle(64).batch(batch)

    return strategy.distribute_datasets_from_function(_dataset_fn)


def main(args):
    features = {features}
    train(args, features)
"""


def tfd202(source: str) -> list[int]:
    findings = check_source("train.py", textwrap.dedent(source)).findings
    return [f.start.line for f in findings if f.code == "TFD202"]


def test_a_single_device_reference_run_is_not_a_distributed_read():
    assert tfd202(_REFERENCE.format(scoped="", model=_OWN_MODEL, caller=_CALLED)) == []


def test_control_a_loop_training_the_model_made_in_the_scope_stays_reported():
    assert tfd202(_REFERENCE.format(scoped=_SCOPED_MODEL, model="", caller=_CALLED)) == [23]


def test_control_a_loop_that_names_the_strategy_stays_reported():
    model = _OWN_MODEL + "    print(strategy.num_replicas_in_sync)\n"
    assert tfd202(_REFERENCE.format(scoped="", model=model, caller=_CALLED)) == [23]


def test_control_a_function_called_inside_the_scope_stays_reported():
    caller = "with strategy.scope():\n    expected = reference_run(samples, 64)"
    assert tfd202(_REFERENCE.format(scoped="", model=_OWN_MODEL, caller=caller)) == [22]


def test_a_function_never_called_here_that_builds_its_own_model_is_a_reference():
    assert tfd202(_REFERENCE.format(scoped="", model=_OWN_MODEL, caller="")) == []


def test_control_a_function_never_called_here_given_its_model_stays_reported():
    # Its caller is elsewhere: the model it trains may be the distributed one.
    source = _REFERENCE.format(scoped="", model="", caller="").replace(
        "reference_run(samples, global_batch)", "reference_run(samples, global_batch, model, optimizer)"
    )
    assert "optimizer.apply_gradients" in source
    assert tfd202(source) == [19]


def test_data_loaded_from_a_path_holding_the_task_index_is_per_worker():
    source = _PER_WORKER.format(features='np.load(f"samples_{task_id}.npy")')
    assert tfd202(source) == []


def test_data_drawn_with_a_seed_holding_the_task_index_is_per_worker():
    features = "np.random.default_rng(seed=task_id).normal(size=[64, 4])"
    assert tfd202(_PER_WORKER.format(features=features)) == []


def test_control_data_without_the_task_index_stays_reported():
    assert tfd202(_PER_WORKER.format(features='np.load("samples.npy")')) == [15]


def test_an_unseeded_random_draw_is_per_worker():
    # Each worker's process draws its own samples (prec19 turned this control around: see
    # tests/rules/test_tfd202_drawn_per_process.py for the draws that stay reported).
    features = "np.random.normal(size=[64, 4])"
    assert tfd202(_PER_WORKER.format(features=features)) == []


def test_control_a_draw_with_a_constant_seed_is_not_evidence():
    features = "np.random.default_rng(seed=7).normal(size=[64, 4])"
    assert tfd202(_PER_WORKER.format(features=features)) == [15]


_TWICE = """
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def make_train(samples):
    def _dataset_fn(input_context):
        return tf.data.Dataset.from_tensor_slices(samples).batch(8)

    return strategy.distribute_datasets_from_function(_dataset_fn)


def make_eval(samples):
    def _dataset_fn(input_context):
        return tf.data.Dataset.from_tensor_slices(samples).batch(8)

    first = strategy.distribute_datasets_from_function(_dataset_fn)
    again = strategy.distribute_datasets_from_function(_dataset_fn)
    return first, again
"""


def test_a_dataset_fn_handed_over_twice_is_reported_once_each():
    # Two nested `_dataset_fn`s of different functions: each call reaches only its own, and the
    # second one, handed over twice, is one finding.
    assert tfd202(_TWICE) == [9, 16]
