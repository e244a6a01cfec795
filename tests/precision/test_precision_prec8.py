"""Regression tests for issue 28, the ledger's remaining classes (task prec8): fixture scripts
(TFD204), code meant to fail and optimizers compiled outside the scope (TFD101), an empty cluster
spec (TFD603) and a launcher's excuse limited to its own program (TFD601).

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

import pytest
from checked_codes import codes_of

from fixer.engine import check_source
from fixer.test_files import is_fixture_script

# TFD204: a dummy job that a test runs to see the workers start ---------------------------------

_DUMMY_JOB = """
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    images = np.zeros((64, 28, 28), "float32")
    labels = np.zeros((64,), "int64")
    train = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(64).batch(8)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((28, 28)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        model.compile("sgd", "sparse_categorical_crossentropy")
    model.fit(train, epochs=1, steps_per_epoch=2)
    """


@pytest.mark.parametrize(
    "path",
    [
        "test/resources/two_workers/train_dummy.py",
        "src/launcher/core/tests/testdata/mnist_job.py",
        "tests/data/mwms_job.py",
        "integration/test_data/job.py",
        "tests/fixtures/job.py",
    ],
)
def test_an_unseeded_shuffle_in_a_fixture_script_is_not_tfd204(path):
    # The script exists so that a test can watch a launcher or container start two workers and
    # finish: which examples each worker reads changes nothing that test looks at.
    assert is_fixture_script(path)
    assert "TFD204" not in codes_of(_DUMMY_JOB, path)


@pytest.mark.parametrize(
    "path",
    [
        "train.py",
        "examples/mnist/keras/mnist_tf.py",
        "data/issue-reports/issue_1234.py",  # a collection of scripts in a data folder, not a test's
        "tutorials/testing_strategies/train.py",
        "tests/train_helpers/job.py",  # a folder of tests, not of their data
    ],
)
def test_the_same_shuffle_in_a_sample_or_tutorial_script_is_still_tfd204(path):
    assert not is_fixture_script(path)
    assert "TFD204" in codes_of(_DUMMY_JOB, path)


# TFD101: a variable placed by hand on a device that may not exist, to show the error -------------

_STRATEGY_LATER = """
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        total = tf.Variable(0.0)
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit(tf.zeros((8, 4)), tf.zeros((8, 1)))
    """


def test_a_variable_pinned_to_a_missing_device_in_a_placement_demo_is_not_tfd101():
    # The demo turns soft placement off and asks for a device that is not there, to print the
    # error; the same name is made again in the scope further down.
    source = (
        """
    import tensorflow as tf

    tf.config.set_soft_device_placement(False)
    try:
        with tf.device("/device:GPU:1000"):
            total = tf.Variable([1.0, 2.0, 3.0])
    except tf.errors.InvalidArgumentError as error:
        print(error)
    tf.config.set_soft_device_placement(True)
    """
        + _STRATEGY_LATER
    )
    assert "TFD101" not in codes_of(source)


def test_an_unused_variable_made_before_the_strategy_without_a_device_is_still_tfd101():
    # Seed 000's case: nothing chose where it lives; it is meant for training.
    source = (
        """
    import tensorflow as tf

    step_count = tf.Variable(0.0)
    """
        + _STRATEGY_LATER
    )
    assert "TFD101" in codes_of(source)


def test_a_variable_pinned_to_a_device_but_used_in_the_scope_is_still_tfd101():
    source = """
    import tensorflow as tf

    with tf.device("/cpu:0"):
        scale = tf.Variable(2.0)
    strategy = tf.distribute.MirroredStrategy()

    @tf.function
    def step(x):
        return strategy.run(lambda v: v * scale, args=(x,))
    """
    assert "TFD101" in codes_of(source)


# TFD101: `compile("adam")` outside the scope of a model built in it -----------------------------

_COMPILED_OUTSIDE = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile("adam", loss="mse", metrics=["accuracy"])
    model.fit(tf.zeros((8, 4)), tf.zeros((8, 1)))
    """


def test_compile_adam_outside_the_scope_is_tfd101_under_keras_3():
    # Measured (benchmarks/probe_metric_and_string_optimizer_outside_scope.py): Keras 3 fails with
    # `RuntimeError: Mixing different tf.distribute.Strategy objects`.
    assert "TFD101" in codes_of(_COMPILED_OUTSIDE)


def test_compile_adam_outside_the_scope_is_not_tfd101_under_tf_keras():
    # tf-keras's `compile` enters the model's own scope: it trains identically (same probe).
    legacy = 'import os\n    os.environ["TF_USE_LEGACY_KERAS"] = "1"\n    import tensorflow as tf'
    assert "TFD101" not in codes_of(_COMPILED_OUTSIDE.replace("import tensorflow as tf", legacy, 1))


# TFD603: an evaluator's deliberately empty cluster ---------------------------------------------


def test_an_empty_cluster_spec_given_to_an_evaluator_is_not_tfd603():
    source = """
    import tensorflow as tf

    def evaluator_config(config):
        # The evaluator runs beside the training cluster: it is given no cluster at all.
        return config.replace(cluster_spec=tf.train.ClusterSpec({}), task_type="evaluator", task_id=0)
    """
    assert "TFD603" not in codes_of(source)


def test_a_cluster_spec_with_an_empty_job_is_still_tfd603():
    source = """
    import tensorflow as tf

    spec = tf.train.ClusterSpec({"worker": [], "ps": ["ps0:2222"]})
    """
    assert "TFD603" in codes_of(source)


# TFD601: a launcher's later process start excuses only its own program ------------------------

_LAUNCHER = """
    import json
    import os
    import subprocess
    import sys

    cluster = {"worker": ["localhost:12345", "localhost:23456"]}
    for index in range(2):
        os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})
        subprocess.Popen([sys.executable, "worker.py"])
    """

_HARD_CODED_WORKER = """
    import json
    import os

    import tensorflow as tf

    os.environ["TF_CONFIG"] = json.dumps(
        {"cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}, "task": {"type": "worker", "index": 0}}
    )
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """


def _findings(source: str, code: str) -> list[int]:
    return [f.start.line for f in check_source("repro.py", textwrap.dedent(source)).findings if f.code == code]


def test_a_hard_coded_worker_pasted_above_a_launcher_is_tfd601():
    # Two reproductions in one file: the worker program sets its own TF_CONFIG; the launcher
    # pasted below it starts processes, but not the worker above.
    source = textwrap.dedent(_HARD_CODED_WORKER) + textwrap.dedent(_LAUNCHER)
    assert _findings(source, "TFD601") == [7]


def test_a_hard_coded_worker_ended_by_its_main_block_is_tfd601_when_a_launcher_follows():
    worker = _HARD_CODED_WORKER.replace("strategy = tf.distribute.MultiWorkerMirroredStrategy()", "")
    main_block = """
    def main():
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

    if __name__ == "__main__":
        main()

    def launch():
        subprocess.Popen(["python", "worker.py"])
    """
    source = textwrap.dedent(worker) + textwrap.dedent(main_block)
    assert _findings(source, "TFD601") == [7]


def test_the_launcher_itself_is_still_not_tfd601():
    assert _findings(_LAUNCHER, "TFD601") == []
    assert _findings(textwrap.dedent(_HARD_CODED_WORKER) + textwrap.dedent(_LAUNCHER), "TFD601") == [7]


def test_a_launcher_importing_subprocess_after_setting_tf_config_is_one_program():
    # A first import further down is not a new program: the start below still launches.
    source = """
    import json
    import os

    cluster = {"worker": ["h0:2222", "h1:2222"]}
    os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 0}})

    import subprocess

    subprocess.run(["python", "train.py"])
    """
    assert _findings(source, "TFD601") == []


# The eager-context rules ask the target model whether the file runs on TensorFlow 1.x ---------


def _target(tmp_path, source: str):
    from fixer.engine import parse_source
    from fixer.tf.model import TFModel

    path = tmp_path / "train.py"
    text = textwrap.dedent(source)
    path.write_text(text)
    parsed = parse_source(str(path), text)
    return TFModel(parsed.module, parsed.index, path=str(path), text=text).target


@pytest.mark.parametrize(
    ("source", "tf1"),
    [
        ("import tensorflow as tf\nfrom tensorflow.contrib import distribute\n", True),
        ("import tensorflow as tf\nsession = tf.Session()\n", True),
        ("import tensorflow.compat.v1 as tf\nx = tf.constant(1.0)\n", False),  # eager on TensorFlow 2
        ("import tensorflow as tf\nx = tf.constant(1.0)\n", False),
    ],
    ids=["contrib", "session", "compat-v1", "tf2"],
)
def test_runs_tensorflow_1_is_the_target_models_fact(tmp_path, source, tf1):
    from fixer.tf.tf1_program import runs_tensorflow_1

    assert runs_tensorflow_1(_target(tmp_path, source)) is tf1
