"""Regression tests for issue 28, the ledger's remaining classes (task prec8): fixture scripts
(TFD204), code meant to fail and optimizers compiled outside the scope (TFD101), an empty cluster
spec (TFD603) and a launcher's excuse limited to its own program (TFD601).

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source
from fixer.test_files import is_fixture_script


def _codes(source: str, path: str = "train.py") -> list[str]:
    codes = [f.code for f in check_source(path, textwrap.dedent(source)).findings]
    assert "TFD000" not in codes  # a test program that does not parse proves nothing
    return codes


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
    assert "TFD204" not in _codes(_DUMMY_JOB, path)


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
    assert "TFD204" in _codes(_DUMMY_JOB, path)
