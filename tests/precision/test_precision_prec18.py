"""Regression tests for issue 28 (prec18): ledger17a's classes 2-5, in our own words, each with the
control that keeps the finding where it is right (premises: benchmarks/probe_ledger17a_premises.py).

- TFD108: a use in the arm of a replica-count test that says there is one replica, where the count
  is read through a property of a project class that returns `num_replicas_in_sync`.
- TFD111: `context._context = None` then `ops.enable_eager_execution_internal()` replaces the
  started eager context, as `context._reset_context()` does: a device split after the pair works.
- TFD202: a `dataset_fn` over the slice its runner method was handed (a parameter, or what a
  project call made of one), with `AutoShardPolicy.OFF` set there: each worker's own data.
- TFD402: a decorator class whose `__call__` runs the step handed to its constructor, a class the
  module never instantiates: the step may be a `tf.function`.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source
from tests.project_trees import tree

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding


def _findings(text: str, code: str, path: str = "train.py") -> list[Finding]:
    return [f for f in check_source(path, textwrap.dedent(text)).findings if f.code == code]


def _project_findings(root: Path, files: dict[str, str], checked: str, code: str) -> list[Finding]:
    tree(root, {name: textwrap.dedent(text) for name, text in files.items()})
    path = root / checked
    return [f for f in check_source(str(path), path.read_text()).findings if f.code == code]


# -- TFD108: the replica count read through a settings property ---------------------------------------

_SETTINGS = '''
import tensorflow as tf


class RunSettings:
    def __init__(self):
        self._strategy = tf.distribute.MirroredStrategy()

    @property
    def strategy(self):
        return self._strategy

    @property
    def replica_total(self):
        """How many replicas train."""
        return self._strategy.num_replicas_in_sync
'''

_EVALUATOR = """
import numpy as np
import tensorflow as tf

from settings import RunSettings


class Evaluator:
    def __init__(self, model, settings: RunSettings):
        self.model = model
        self.settings = settings

    def batches(self, dataset):
        return self.settings.strategy.experimental_distribute_dataset(dataset)

    def predict_one(self, features):
        return self.model(features, training=False)

    def predict_all(self, batches):
        collected = []
        for features in batches:
            outputs = self.settings.strategy.run(self.predict_one, args=(features,))
            {use}
        return np.concatenate(collected)
"""

_GUARDED = """if self.settings.replica_total > 1:
                for part in outputs.values:
                    collected.append(part.numpy())
            else:
                collected.append(outputs.numpy())"""


def test_the_one_replica_arm_of_a_settings_property_test_is_quiet(tmp_path: Path) -> None:
    files = {"settings.py": _SETTINGS, "evaluate.py": _EVALUATOR.format(use=_GUARDED)}
    assert _project_findings(tmp_path, files, "evaluate.py", "TFD108") == []


def test_an_unguarded_numpy_of_the_run_result_stays_reported(tmp_path: Path) -> None:
    files = {"settings.py": _SETTINGS, "evaluate.py": _EVALUATOR.format(use="collected.append(outputs.numpy())")}
    found = _project_findings(tmp_path, files, "evaluate.py", "TFD108")
    assert [f.start.line for f in found] == [23]


def test_a_property_returning_something_else_is_no_replica_count(tmp_path: Path) -> None:
    settings = _SETTINGS.replace("return self._strategy.num_replicas_in_sync", "return 2")
    files = {"settings.py": settings, "evaluate.py": _EVALUATOR.format(use=_GUARDED)}
    found = _project_findings(tmp_path, files, "evaluate.py", "TFD108")
    assert [f.start.line for f in found] == [27]


def test_the_count_kept_on_self_in_the_same_module_is_read() -> None:
    text = """
    import tensorflow as tf

    class Loop:
        def __init__(self):
            self.strategy = tf.distribute.MirroredStrategy()
            self.replicas = self.strategy.num_replicas_in_sync

        def step(self, x):
            return x * 2.0

        def run(self, x):
            out = self.strategy.run(self.step, args=(x,))
            if self.replicas == 1:
                return out.numpy()
            return [v.numpy() for v in out.values]
    """
    assert _findings(text, "TFD108") == []


# -- TFD111: the eager context dropped and built again before the device split -----------------------

_SPLIT_IN_TEST = """
import unittest

import tensorflow as tf
from tensorflow.python.eager import context
from tensorflow.python.framework import ops


class SplitTest(unittest.TestCase):
    def test_two_cpus(self):
        warmup = tf.constant([1.0, 2.0])
{reset}
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
        )
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        self.assertEqual(strategy.num_replicas_in_sync, 2)
"""


def test_a_split_after_the_context_is_dropped_and_rebuilt_is_accepted() -> None:
    reset = "        context._context = None\n        ops.enable_eager_execution_internal()"
    assert _findings(_SPLIT_IN_TEST.format(reset=reset), "TFD111") == []


def test_a_split_after_an_op_with_no_reset_stays_reported() -> None:
    found = _findings(_SPLIT_IN_TEST.format(reset="        total = tf.reduce_sum(warmup)"), "TFD111")
    assert [f.start.line for f in found] == [14]


def test_rebuilding_the_context_without_dropping_it_is_no_reset() -> None:
    found = _findings(_SPLIT_IN_TEST.format(reset="        ops.enable_eager_execution_internal()"), "TFD111")
    assert [f.start.line for f in found] == [14]


# -- TFD202: a dataset_fn over the slice its runner was handed, with auto-sharding off ---------------

_RUNNER = """
import numpy as np
import tensorflow as tf

from cluster_io import arrays_of


class WorkerRunner:
    def __init__(self):
        self.strategy = tf.distribute.MultiWorkerMirroredStrategy()

    def make_input(self, partition, batch):
{prepare}

        def dataset_fn(input_context):
{source}
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
            return ds.with_options(options).repeat().batch(batch)

        return self.strategy.distribute_datasets_from_function(dataset_fn)
"""
_FROM_PARTITION = "            ds = tf.data.Dataset.from_tensor_slices((features, targets))"


def test_a_closure_over_the_handed_in_partition_with_sharding_off_is_quiet() -> None:
    text = _RUNNER.format(prepare="        features, targets = arrays_of(partition)", source=_FROM_PARTITION)
    assert _findings(text, "TFD202") == []


def test_a_dataset_fn_loading_tfds_inside_with_sharding_off_stays_reported() -> None:
    source = (
        "            import tensorflow_datasets as tfds\n"
        '            ds = tfds.load("mnist", split="train", as_supervised=True)'
    )
    found = _findings(_RUNNER.format(prepare="        pass", source=source), "TFD202")
    assert [f.start.line for f in found] == [15, 19]


def test_a_closure_over_a_file_the_runner_loads_stays_reported() -> None:
    prepare = '        features, targets = np.load("train.npz")["x"], np.load("train.npz")["y"]'
    found = _findings(_RUNNER.format(prepare=prepare, source=_FROM_PARTITION), "TFD202")
    assert [f.start.line for f in found] == [16, 18]
    assert all(f.fix is not None for f in found)


# -- TFD402: a decorator class running the step it wraps --------------------------------------------

_WRAPPER = """
import tensorflow as tf


class replicated_step:
    def __init__(self, step):
        self.step = step

    def __call__(self, *args, strategy=None):
        per_replica = strategy.run(self.step, args=args)
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
{tail}
"""

_LOCAL_LOOP = """

def train(model, optimizer, batches):
    strategy = tf.distribute.MirroredStrategy()

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for x, y in batches:
        strategy.run(step, args=(x, y))
"""


def test_a_decorator_class_running_the_step_handed_in_is_quiet() -> None:
    assert _findings(_WRAPPER.format(tail=""), "TFD402") == []


def test_a_plain_local_step_in_an_uncompiled_loop_stays_reported() -> None:
    found = _findings(_WRAPPER.format(tail=_LOCAL_LOOP), "TFD402")
    assert [f.start.line for f in found] == [25]


def test_the_wrapper_made_by_the_module_itself_stays_reported() -> None:
    tail = """

def train(model, optimizer, batches):
    strategy = tf.distribute.MirroredStrategy()

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    wrapped = replicated_step(step)
    for x, y in batches:
        wrapped(x, y, strategy=strategy)
"""
    found = _findings(_WRAPPER.format(tail=tail), "TFD402")
    assert [f.start.line for f in found] == [10]
