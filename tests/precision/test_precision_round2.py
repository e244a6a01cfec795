"""Regression tests for issue 28 (precision round 2): shapes seen in public code, in our own words.

Each test is a minimal program of the kind real code has and says why the finding is wrong there.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

from fixer.engine import check_source, fix_source


def _fixed(source: str, path: str = "train.py") -> str:
    result = fix_source(path, textwrap.dedent(source), unsafe=True)
    return result.fixed_text or textwrap.dedent(source)


# Class 5: code that is meant to fail ------------------------------------------------------------

_STEP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()

    def replica_step(x):
        return tf.distribute.get_replica_context().all_reduce("sum", x)
    """


def _with_step(body: str) -> str:
    """The strategy and replica function above, then ``body`` at the module's top level."""
    return textwrap.dedent(_STEP) + textwrap.dedent(body)


def test_the_same_mistake_outside_a_negative_test_is_reported():
    # The control for the tests below: without the expectation the rule fires on this line.
    source = _with_step("strategy.experimental_run_v2(replica_step, args=(1.0,))\n")
    assert "TFD401" in codes_of(source)


def test_a_mistake_inside_assert_raises_is_the_tested_failure():
    body = """
    class StrategyTest(tf.test.TestCase):
        def test_old_name_rejected(self):
            with self.assertRaises(AttributeError):
                strategy.experimental_run_v2(replica_step, args=(1.0,))
    """
    assert "TFD401" not in codes_of(_with_step(body), "strategy_test.py")


def test_a_mistake_inside_pytest_raises_and_assert_raises_regex_is_not_reported():
    body = """
    import pytest

    def test_old_name_rejected():
        with pytest.raises(AttributeError, match="experimental_run_v2"):
            strategy.experimental_run_v2(replica_step, args=(1.0,))

    class T(tf.test.TestCase):
        def test_regex(self):
            with self.assertRaisesRegex(AttributeError, "no attribute"):
                strategy.experimental_run_v2(replica_step, args=(2.0,))
    """
    assert "TFD401" not in codes_of(_with_step(body), "test_strategy.py")


def test_the_call_form_of_assert_raises_runs_its_callable_inside_the_expectation():
    body = """
    class T(tf.test.TestCase):
        def test_call_form(self):
            self.assertRaises(AttributeError, strategy.experimental_run_v2, replica_step)
    """
    assert "TFD401" not in codes_of(_with_step(body), "test_strategy.py")


def test_code_after_the_expectation_block_is_still_checked():
    body = """
    class T(tf.test.TestCase):
        def test_then_real_use(self):
            with self.assertRaises(ValueError):
                int("x")
            strategy.experimental_run_v2(replica_step, args=(1.0,))
    """
    assert "TFD401" in codes_of(_with_step(body), "test_strategy.py")


# Class 7: fallbacks for older TensorFlow -------------------------------------------------------

def _tfd401(source: str) -> list[str]:
    return [c for c in codes_of(source) if c == "TFD401"]


def test_the_old_name_after_a_getattr_probe_that_found_nothing_is_a_fallback():
    # `run` is missing before TF 2.2: the old spelling is the branch that exists for those releases.
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step(x):
            return x * 2

        if getattr(strategy, "run", None) is None:
            result = strategy.experimental_run_v2(step, args=(1.0,))
        else:
            result = strategy.run(step, args=(1.0,))
        """
    assert _tfd401(source) == []


def test_the_old_name_after_an_early_return_on_hasattr_is_a_fallback():
    source = """
        import tensorflow as tf

        def distributed_step(strategy, step, batch):
            if hasattr(strategy, "run"):
                return strategy.run(step, args=(batch,))
            return strategy.experimental_run_v2(step, args=(batch,))

        distributed_step(tf.distribute.MirroredStrategy(), lambda b: b, 1.0)
        """
    assert _tfd401(source) == []


def test_a_version_flag_computed_with_packaging_guards_the_old_name():
    source = """
        import tensorflow as tf
        from packaging import version

        NEW_TF = version.parse(tf.__version__) >= version.parse("2.2")
        strategy = tf.distribute.MirroredStrategy()

        def step(x):
            return x * 2

        if NEW_TF:
            result = strategy.run(step, args=(1.0,))
        else:
            result = strategy.experimental_run_v2(step, args=(1.0,))
        """
    assert _tfd401(source) == []


def test_a_feature_flag_computed_with_hasattr_guards_the_old_name():
    source = """
        import tensorflow as tf

        CAN_RUN = hasattr(tf.distribute.Strategy, "run")
        strategy = tf.distribute.MirroredStrategy()

        def step(x):
            return x * 2

        if not CAN_RUN:
            result = strategy.experimental_run_v2(step, args=(1.0,))
        """
    assert _tfd401(source) == []


def test_an_unrelated_condition_does_not_hide_the_old_name():
    # The control: a branch on a training option is no fallback; the rename is still right there.
    source = """
        import tensorflow as tf

        USE_MIXED = False
        strategy = tf.distribute.MirroredStrategy()

        def step(x):
            return x * 2

        if not USE_MIXED:
            result = strategy.experimental_run_v2(step, args=(1.0,))
        """
    assert _tfd401(source) == ["TFD401"]


# Class 5: fixture and placeholder clusters ------------------------------------------------------

_PLACEHOLDER_CLUSTER = """
    import json
    import os

    import tensorflow as tf

    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"worker": ["<worker-0-ip>:port", "<worker-1-ip>:port", "<worker-2-ip>:port"]},
        "task": {"type": "worker", "index": 0},
    })
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """


def test_a_placeholder_spec_is_at_most_one_tfd603_not_one_per_entry():
    from fixer.clusterspec import check_cluster

    (problem,) = check_cluster({"worker": ["<worker-0-ip>:port", "<worker-1-ip>:port", "<worker-2-ip>:port"]})
    assert problem.kind == "placeholder" and "'<worker-0-ip>:port' and 2 more" in problem.message
    # noise36: reported only in a script a launcher of the project starts (a file checked alone has
    # none): tests/rules/test_tfd603_placeholders.py.
    findings = check_source("train.py", textwrap.dedent(_PLACEHOLDER_CLUSTER)).findings
    assert [f for f in findings if f.code == "TFD603"] == []


def test_a_word_for_a_port_is_a_placeholder_and_a_real_bad_port_is_still_named():
    from fixer.clusterspec import check_cluster

    kinds = [p.kind for p in check_cluster({"worker": ["host-a:port", "host-b:PORT"]})]
    assert kinds == ["placeholder"]
    # A number out of range is a typo in a real address, not a slot: still reported per entry.
    assert [p.kind for p in check_cluster({"worker": ["10.0.0.1:70000"]})] == ["port-out-of-range"]


def test_a_tests_fake_cluster_is_a_fixture_not_a_deployment():
    # A unittest that sets TF_CONFIG to check how a resolver reads it: hard-coding is the point,
    # and its hosts (real-looking, loopback or placeholders) never form a cluster.
    source = """
        import json
        import os
        import unittest

        import tensorflow as tf

        class ResolverTest(unittest.TestCase):
            def setUp(self):
                os.environ["TF_CONFIG"] = json.dumps({
                    "cluster": {"worker": ["localhost:12345", "fake-host:2222"], "ps": ["<ps-ip>:port"]},
                    "task": {"type": "worker", "index": 0},
                })

            def test_task(self):
                resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
                self.assertEqual(resolver.task_type, "worker")
        """
    cluster_codes = {"TFD601", "TFD602", "TFD603"}
    assert cluster_codes.isdisjoint(codes_of(source, "resolver_test.py"))
    assert cluster_codes.isdisjoint(codes_of(source, "tests/test_resolver.py"))
    # The same file as a script is a deployment: it is checked (its `<ps-ip>:port` slot is TFD603's
    # only in a script a launcher starts, noise36).
    assert {"TFD601", "TFD602"} <= set(codes_of(source, "resolver.py"))


# Class 6: one finding in the right place --------------------------------------------------------

def test_two_direct_calls_of_a_step_on_one_line_are_one_tfd103():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD()

        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        dataset = tf.data.Dataset.from_tensor_slices(tf.ones((8, 2))).batch(4)
        for x in dataset:
            loss = train_step(x) + train_step(x)
        """
    assert codes_of(source).count("TFD103") == 1


# Class 4: premises refuted by measurement -------------------------------------------------------

_DATA_PREP = """
    import numpy as np
    import tensorflow as tf

    (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
    x_train = (x_train / np.float32(255) - 0.5) / 0.5
    x_train = tf.keras.utils.normalize(x_train, axis=-1)
    path = tf.keras.utils.get_file("labels.csv", "https://example.com/labels.csv")
    with tf.io.TFRecordWriter("train.tfrecord") as writer:
        writer.write(b"record")
    {late_op}
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    """


def test_tfrecord_writing_get_file_and_numpy_normalisation_do_not_start_the_runtime():
    # benchmarks/probe_runtime_start_io.py: the strategy is created after each of these
    # (TF 2.21, Keras 3 and tf-keras); only a TensorFlow op before it makes it fail.
    assert "TFD105" not in codes_of(_DATA_PREP.replace("{late_op}", "pass"))
    assert "TFD105" in codes_of(_DATA_PREP.replace("{late_op}", "scale = tf.constant(2.0)"))


_MULTI_WORKER_INPUT = """
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    dataset = tf.data.Dataset.range(1024).{pipeline}
    distributed = strategy.experimental_distribute_dataset(dataset)
    """


def test_a_shuffle_of_whole_batches_keeps_auto_sharded_workers_disjoint():
    # benchmarks/probe_shuffle_before_shard.py, ".batch(4).shuffle(4)": auto-sharding hands each
    # worker its part of every batch, so shuffling whole batches leaves the workers disjoint.
    assert "TFD204" not in codes_of(_MULTI_WORKER_INPUT.replace("{pipeline}", "batch(64).shuffle(16)"))
    # The control: shuffling elements before batching gives each worker another order.
    assert "TFD204" in codes_of(_MULTI_WORKER_INPUT.replace("{pipeline}", "shuffle(1024).batch(64)"))


_MEAN_LOSS_STEP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.{optimizer}

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def step(x, y):
        return strategy.reduce("SUM", strategy.run(replica_step, args=(x, y)), axis=None)
    """


def _tfd303_message(optimizer: str) -> str:
    findings = check_source("train.py", textwrap.dedent(_MEAN_LOSS_STEP).replace("{optimizer}", optimizer)).findings
    [message] = [f.message for f in findings if f.code == "TFD303"]
    return message


def test_tfd303_says_what_a_per_replica_mean_does_to_the_optimizer_in_the_file():
    # benchmarks/probe_loss_scaling_optimizers.py: Adam/RMSprop weights identical, the reported
    # loss doubled with 2 replicas; SGD's weights differ.
    adam = _tfd303_message("Adam(0.01)")
    assert "Adam normalises their scale (same steps)" in adam and "reported loss is N times too large" in adam
    assert "SGD takes steps N times too large" in _tfd303_message("SGD(0.1)")
    assert "Adam/RMSprop steps not" in _tfd303_message("Adagrad(0.1)")


_METRIC_MADE_OUTSIDE = """
    {imports}
    import numpy as np

    strategy = tf.distribute.MirroredStrategy()
    metric = keras.metrics.MeanAbsoluteError(name="mae")
    with strategy.scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", loss="mse", metrics=[metric])
    model.fit(np.ones((8, 4)), np.ones((8, 1)))
    """


def test_a_keras3_metric_made_outside_the_scope_and_compiled_inside_is_not_tfd101():
    # benchmarks/probe_metric_and_string_optimizer_outside_scope.py: Keras 3 trains and reports
    # the same as with the metric made inside; tf-keras's compile raises ValueError for it.
    keras3 = _METRIC_MADE_OUTSIDE.replace("{imports}", "import keras\n    import tensorflow as tf")
    assert "TFD101" not in codes_of(keras3)
    tf_keras = _METRIC_MADE_OUTSIDE.replace("{imports}", "import tf_keras as keras\n    import tensorflow as tf")
    assert "TFD101" in codes_of(tf_keras)


def test_compile_sgd_by_name_outside_the_scope_is_not_tfd101_but_a_stateful_optimizer_is():
    source = """
        import numpy as np
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        model.compile({optimizer}, loss="mse", metrics=["mae"])
        model.fit(np.ones((8, 4)), np.ones((8, 1)))
        """
    assert "TFD101" not in codes_of(source.replace("{optimizer}", '"sgd"'))
    assert "TFD101" in codes_of(source.replace("{optimizer}", "tf.keras.optimizers.Adam()"))
