"""Regression tests for issue 28 (noise41): two noise verdicts of the ledger, in our own words,
each with the control that keeps the finding where it is right.

- TFD402: in a test file, a replica function that asserts on per-step Python state (directly or in
  a helper of the module) runs eagerly on purpose: under `tf.function` its asserts would run only
  while tracing (benchmarks/probe_ledger15a_premises.py).
- TFD601: a script that sets TF_CONFIG at its top level after every strategy it makes, and then
  runs nothing that could read it (a strategy, a resolver, a project module that may make one, a
  launch), leaves the value to nothing: a strategy reads it once, when it is made
  (benchmarks/probe_tf_config_after_strategy.py).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source
from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding


def _findings(text: str, code: str, path: str) -> list[Finding]:
    return [f for f in check_source(path, textwrap.dedent(text)).findings if f.code == code]


_PROFILED_TEST = """
import tensorflow as tf

def _step(tracker, model, opt, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    {check}
    return loss

def _distributed_step(strategy, tracker, model, opt, x):
    return strategy.run(_step, args=(tracker, model, opt, x))

def test_profiles_each_step():
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        opt = tf.keras.optimizers.SGD()
    tracker = Tracker()
    for x in strategy.experimental_distribute_dataset(make_data()):
        _distributed_step(strategy, tracker, model, opt, x)
"""

_HELPER = """
def _check_tracker(tracker):
    assert tracker.step == tracker.expected
"""


def test_a_test_replica_function_that_asserts_is_not_reported() -> None:
    text = _PROFILED_TEST.format(check="assert tracker.step == tracker.expected")
    assert _findings(text, "TFD402", "tests/test_profiler.py") == []


def test_a_test_replica_function_whose_helper_asserts_is_not_reported() -> None:
    text = _PROFILED_TEST.format(check="_check_tracker(tracker)") + _HELPER
    assert _findings(text, "TFD402", "tests/test_profiler.py") == []


def test_control_a_test_replica_function_without_asserts_stays_reported() -> None:
    text = _PROFILED_TEST.format(check="tracker.log(loss)")
    assert len(_findings(text, "TFD402", "tests/test_profiler.py")) == 1


def test_control_an_asserting_replica_function_outside_a_test_file_stays_reported() -> None:
    text = _PROFILED_TEST.format(check="assert tracker.step == tracker.expected")
    assert len(_findings(text, "TFD402", "train.py")) == 1


# -- TFD601: TF_CONFIG set after every reader -------------------------------------------------------

_HELPERS = """
import numpy as np
import tensorflow as tf

def make_data(batch_size):
    x = np.zeros((64, 4), "float32")
    return tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(batch_size)

def make_model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(loss="mse")
    return model
"""

_LATE_TF_CONFIG = """
import json
import os

import tensorflow as tf

import helpers

cluster = {{"cluster": {{"worker": ["localhost:12345", "localhost:23456"]}}, "task": {{"type": "worker", "index": 0}}}}
strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = helpers.make_model()
os.environ["TF_CONFIG"] = json.dumps(cluster)
{after}
model.fit(helpers.make_data(64), epochs=1)
"""


def _project_findings(root: Path, after: str, helpers: str = _HELPERS) -> list[Finding]:
    (root / "helpers.py").write_text(textwrap.dedent(helpers))
    (root / "train.py").write_text(textwrap.dedent(_LATE_TF_CONFIG.format(after=after)))
    job = Job(use_cache=False, project_roots=(str(root),))
    (result,) = list(run([root / "train.py"], job, jobs=1))
    return [f for f in result.findings if f.code == "TFD601"]


def test_a_tf_config_set_after_every_strategy_is_not_reported(tmp_path: Path) -> None:
    assert _project_findings(tmp_path, "options = tf.data.Options()") == []


def test_control_a_strategy_made_after_the_setting_keeps_the_finding(tmp_path: Path) -> None:
    assert len(_project_findings(tmp_path, "strategy = tf.distribute.MultiWorkerMirroredStrategy()")) == 1


def test_control_a_resolver_made_after_the_setting_keeps_the_finding(tmp_path: Path) -> None:
    after = "resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()"
    assert len(_project_findings(tmp_path, after)) == 1


def test_control_a_project_module_that_makes_a_strategy_keeps_the_finding(tmp_path: Path) -> None:
    helpers = _HELPERS + "\n\ndef make_strategy():\n    return tf.distribute.MultiWorkerMirroredStrategy()\n"
    assert len(_project_findings(tmp_path, "options = tf.data.Options()", helpers)) == 1


def test_control_an_unknown_library_call_after_the_setting_keeps_the_finding(tmp_path: Path) -> None:
    assert len(_project_findings(tmp_path, "import horovod.tensorflow as hvd\nhvd.init()")) == 1


def test_control_a_setting_inside_a_function_keeps_the_finding() -> None:
    text = """
    import json
    import os
    import tensorflow as tf

    def configure():
        cluster = {"worker": ["a:1", "b:2"]}
        os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 0}})

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    configure()
    """
    assert len(_findings(text, "TFD601", "train.py")) == 1
