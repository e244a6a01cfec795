"""Regression tests for issue 28 (task prec19): eager `strategy.run` in test code (TFD402) and the
input files of another tool's test suite (TFD402, TFD112).

Minimal programs in our own words of shapes found in public code, each with the control that
keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source, fix_source
from fixer.test_files import is_fixture_script


def _findings(source: str, path: str, code: str) -> list[tuple[int, bool]]:
    """(line, has a fix) of each ``code`` finding."""
    found = check_source(path, textwrap.dedent(source)).findings
    assert "TFD000" not in [f.code for f in found]  # the program parses: nothing passes by accident
    return [(f.start.line, f.fix is not None) for f in found if f.code == code]


# TFD402 in unit tests ---------------------------------------------------------------------------

_TEST_CASE = """
    from unittest import mock

    import tensorflow as tf


    class StepTest(tf.test.TestCase):
        def {name}(self):
            strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.SGD(0.1)

            def step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

{body}
"""

_ONE_CALL = """
            with mock.patch.object(tf.summary, "scalar") as scalar:
                loss = strategy.run(step, args=(tf.ones([4, 2]),))
            self.assertIsNotNone(loss)
            scalar.assert_not_called()
"""

_LOOP = """
            for _ in range(100):
                loss = strategy.run(step, args=(tf.ones([4, 2]),))
            self.assertLess(float(strategy.reduce("SUM", loss, axis=None)), 1.0)
"""


def _test_case(body: str, name: str = "test_training_converges") -> str:
    return _TEST_CASE.format(name=name, body=textwrap.indent(textwrap.dedent(body), " " * 12))


def test_one_step_in_a_unit_test_with_mocks_is_not_tfd402():
    assert _findings(_test_case(_ONE_CALL), "step_test.py", "TFD402") == []


def test_a_test_that_says_it_runs_eagerly_is_not_tfd402():
    commented = "\n# Run eagerly: this checks the per-replica values in Python." + textwrap.dedent(_LOOP)
    assert _findings(_test_case(commented), "step_test.py", "TFD402") == []
    assert _findings(_test_case(_LOOP, name="test_eager_training"), "step_test.py", "TFD402") == []


def test_a_test_parametrised_to_run_in_eager_mode_is_not_tfd402():
    # TensorFlow's own suites run one test body in graph and in eager mode, named in a decorator.
    for decorator in (
        '@combinations.generate(combinations.combine(mode=["graph", "eager"]))',
        "@run_in_graph_and_eager_modes",
    ):
        source = _test_case(_LOOP).replace(
            "        def test_training", f"        {decorator}\n        def test_training"
        )
        assert decorator in source
        assert _findings(source, "step_test.py", "TFD402") == []
    # Control: a decorator that names no mode leaves the training loop reported.
    source = _test_case(_LOOP).replace(
        "        def test_training", "        @mock.patch.object(tf, 'print')\n        def test_training"
    )
    assert _findings(source, "step_test.py", "TFD402") == [(24, False)]


def test_control_a_unit_test_training_many_steps_stays_reported_as_advice():
    source = _test_case(_LOOP)
    assert _findings(source, "step_test.py", "TFD402") == [(23, False)]
    # No rewrite decorates the test (or the step nested in it) with tf.function.
    fixed = fix_source("step_test.py", textwrap.dedent(source), unsafe=True).fixed_text
    assert "function" not in (fixed or "")


_PYTEST = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD(0.1)


    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss


    def {name}():
{body}
"""


def _pytest(body: str, name: str = "test_step") -> str:
    return _PYTEST.format(name=name, body=textwrap.indent(textwrap.dedent(body), " " * 8))


def test_one_step_in_a_pytest_function_is_not_tfd402():
    body = """
        loss = strategy.run(train_step, args=(tf.ones([4, 2]),))
        assert loss is not None
    """
    assert _findings(_pytest(body), "test_steps.py", "TFD402") == []


def test_control_a_pytest_function_stepping_in_a_loop_stays_reported_as_advice():
    body = """
        for _ in range(50):
            strategy.run(train_step, args=(tf.ones([4, 2]),))
    """
    assert _findings(_pytest(body), "test_steps.py", "TFD402") == [(21, False)]


def test_control_the_same_function_in_a_script_is_a_step_and_gets_the_rewrite():
    # Outside a test file `test_step` is an ordinary function: the loop in it is a training loop.
    body = """
        strategy.run(train_step, args=(tf.ones([4, 2]),))
    """
    assert _findings(_pytest(body, name="run_one"), "train.py", "TFD402") == [(20, True)]


# A loop that asserts after every step is a golden-value test (stop 40's ledger noise): checking
# each step's value is the test's point, not a training loop whose speed matters.

_CHECKED_EVERY_STEP = """
    expected = [0.9, 0.81, 0.729]
    for value in expected:
        strategy.run(step, args=(tf.ones([4, 2]),))
        self.assertAllClose(model.trainable_variables[0].numpy()[0, 0], value)
"""

_CHECKED_WITH_A_BARE_ASSERT = """
    for step_number in range(3):
        loss = strategy.run(step, args=(tf.ones([4, 2]),))
        assert float(strategy.reduce("SUM", loss, axis=None)) >= 0.0, step_number
"""


def test_a_loop_asserting_after_every_step_is_a_golden_value_test():
    assert _findings(_test_case(_CHECKED_EVERY_STEP), "optimizer_test.py", "TFD402") == []
    assert _findings(_test_case(_CHECKED_WITH_A_BARE_ASSERT), "optimizer_test.py", "TFD402") == []


def test_control_a_loop_asserting_only_after_it_ends_stays_reported_as_advice():
    (finding,) = _findings(_test_case(_LOOP), "optimizer_test.py", "TFD402")
    assert finding[1] is False  # advice: no rewrite decorates a test


# Input files of a test suite: TFD402 and TFD112 -----------------------------------------------

_EAGER_LOOP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()


    def train_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))


    for batch in tf.data.Dataset.from_tensor_slices(tf.ones([64, 2])).batch(8):
        strategy.run(train_step, args=(batch,))
"""


@pytest.mark.parametrize(
    "path",
    [
        "com.example.analysis.test/data/models/train.py",  # an Eclipse test bundle's inputs
        "analyzer_tests/data/train.py",
        "tests/data/train.py",
        "pkg/testdata/train.py",
    ],
)
def test_a_script_among_a_test_suite_inputs_is_not_tfd402_nor_tfd112(path):
    assert is_fixture_script(path)
    assert _findings(_EAGER_LOOP, path, "TFD402") == []
    assert _findings(_EAGER_LOOP, path, "TFD112") == []


@pytest.mark.parametrize(
    "path",
    ["train.py", "latest/data/train.py", "contest/data/train.py", "examples/test_drive/train.py"],
)
def test_control_the_same_script_elsewhere_stays_reported(path):
    assert not is_fixture_script(path)
    assert _findings(_EAGER_LOOP, path, "TFD402") == [(18, False)]
    assert [line for line, _ in _findings(_EAGER_LOOP, path, "TFD112")] == [4]
