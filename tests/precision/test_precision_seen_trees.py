"""Regression tests for issue 28 on the ledger's seen trees (branch prec4): causes of their wrong findings.

Each test is a minimal program of the shape the seen trees have, in our own words, with a
control that keeps the finding where the mistake is real.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

from fixer.engine import check_source

# Keras flavour of a model class the file defines --------------------------------------------------

_SUBCLASSED = """
    import tensorflow as tf
    {keras_import}

    strategy = tf.distribute.MultiWorkerMirroredStrategy()

    class Net(keras.Model):
        def call(self, x):
            return x

    class Wider(Net):
        pass

    with strategy.scope():
        model = Wider()
        model.compile(loss="mse")
    model.fit(tf.data.Dataset.range(4))
    """


def test_a_model_class_derived_from_tf_keras_is_keras2_under_multiworker():
    # tf-keras's own tests: `import tf_keras as keras` and a model class of the file. Keras 2 `fit`
    # under MultiWorkerMirroredStrategy and ParameterServerStrategy is supported.
    source = _SUBCLASSED.format(keras_import="import tf_keras as keras")
    assert "TFD504" not in codes_of(source)


def test_a_model_class_derived_from_tf_dot_keras_is_still_keras3():
    source = _SUBCLASSED.format(keras_import="from tensorflow import keras")
    assert "TFD504" in codes_of(source)


# TFD303 in a library's smoke tests --------------------------------------------------------------

_LOOP_TEST = """
    import tensorflow as tf

    class LoopTest(tf.test.TestCase):
        def _check_losses(self, losses):
            self.assertLess(losses, 1.0)

        def test_custom_loop_runs(self):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.SGD()

            @tf.function
            def train_step(x, y):
                def step_fn(x, y):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(model(x) - y))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                    return loss
                return strategy.run(step_fn, args=(x, y))

            losses = train_step(tf.ones((4, 2)), tf.ones((4, 1)))
            {check}
    """


def test_a_smoke_test_that_asserts_nothing_gets_no_tfd303():
    # tf-keras's custom-loop tests only check that the loop runs under each strategy.
    source = _LOOP_TEST.format(check="del losses")
    assert "TFD303" not in codes_of(source, "custom_loop_test.py")


def test_a_test_that_asserts_on_the_result_keeps_tfd303():
    source = _LOOP_TEST.format(check="self.assertAllClose(losses, 0.0)")
    assert "TFD303" in codes_of(source, "custom_loop_test.py")


def test_a_test_that_asserts_through_its_own_helper_keeps_tfd303():
    source = _LOOP_TEST.format(check="self._check_losses(losses)")
    assert "TFD303" in codes_of(source, "custom_loop_test.py")


def test_the_same_loop_in_a_script_keeps_tfd303():
    source = _LOOP_TEST.format(check="del losses")
    assert "TFD303" in codes_of(source, "train_loop.py")


# TFD112: device lists in tests --------------------------------------------------------------------

_DEVICES = """
    import tensorflow as tf

    STRATEGIES = (
        tf.distribute.OneDeviceStrategy("/cpu:0"),
        tf.distribute.MirroredStrategy(devices=({devices})),
    )
    """


def test_device_lists_in_a_test_file_are_fixtures():
    # TF-Agents' parameterised tests: the mirrored case on two CPUs exercises the mirrored code
    # path, and the suite configures its logical CPUs in a helper of another module; a GPU list in
    # a test runs where the suite requires GPUs (or is only the argument whose handling it checks).
    assert "TFD112" not in codes_of(_DEVICES.format(devices='"/cpu:0", "/device:CPU:1"'), "buffer_test.py")
    assert "TFD112" not in codes_of(_DEVICES.format(devices='"/gpu:0", "/gpu:1"'), "test_buffer.py")


def test_the_cpu_list_in_a_script_is_still_reported():
    # A script's distinct GPUs are right on the machine that has them (noise36's policy).
    assert "TFD112" not in codes_of(_DEVICES.format(devices='"/gpu:0", "/gpu:1"'), "train.py")
    assert "TFD112" in codes_of(_DEVICES.format(devices='"/cpu:0", "/cpu:1"'), "train.py")


# TFD111: calls that leave the runtime unstarted ---------------------------------------------------

_SETUP = """
    import tensorflow as tf

    class MirroredTest(tf.test.TestCase):
        def setUp(self):
            super().setUp()
            {first}
            cpu = tf.config.list_physical_devices("CPU")[0]
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)

        def test_replicas(self):
            strategy = tf.distribute.MirroredStrategy()
            self.assertEqual(strategy.num_replicas_in_sync, 4)
    """


def test_enabling_resource_variables_does_not_start_the_runtime():
    # benchmarks/probe_device_config_after_resource_variables.py: 4 logical CPUs after it.
    source = _SETUP.format(first="tf.compat.v1.enable_resource_variables()")
    assert "TFD111" not in codes_of(source, "agent_test.py")


def test_a_tensor_before_the_device_configuration_is_still_reported():
    assert "TFD111" in codes_of(_SETUP.format(first="tf.constant(1.0)"), "agent_test.py")


# TFD402 in graph mode -------------------------------------------------------------------------------

_GRAPH_HELPER = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()

    def check_metric(metric_fn, batches):
        {block}
            metric = metric_fn()
            updates = strategy.run(metric, args=(batches,))
            for _ in range(4):
                evaluate(updates)
    """


def test_strategy_run_under_a_graph_as_default_builds_graph_ops():
    # tf-keras's graph-mode metric tests: the run adds ops to a tf.Graph that the test evaluates.
    source = _GRAPH_HELPER.format(block="with tf.Graph().as_default(), strategy.scope():")
    assert "TFD402" not in codes_of(source, "metrics_check.py")


def test_strategy_run_under_the_scope_alone_is_still_eager():
    source = _GRAPH_HELPER.format(block="with strategy.scope():")
    assert "TFD402" in codes_of(source, "metrics_check.py")


# TFD101: a metric updated in cross-replica context ----------------------------------------------

_METRIC = """
    import tensorflow as tf
    import tf_keras as keras

    strategy = tf.distribute.MirroredStrategy()
    metric = keras.metrics.Mean("loss")
    with strategy.scope():
        {use}
    print(metric.result())
    """


def test_a_metric_made_outside_and_updated_in_cross_replica_context_is_not_tfd101():
    # tf-keras's own test of this case; measured in
    # benchmarks/probe_metric_updated_in_cross_replica_context.py (both Kerases give 4.5).
    source = _METRIC.format(use="for i in range(10):\n            metric.update_state(i)")
    assert "TFD101" not in codes_of(source)


def test_a_tf_keras_metric_made_outside_and_compiled_in_the_scope_is_still_tfd101():
    use = 'model = keras.Sequential([keras.layers.Dense(1)])\n        model.compile("sgd", loss="mse", metrics=[metric])'
    assert "TFD101" in codes_of(_METRIC.format(use=use))


def test_a_smoke_test_feeding_plain_batches_gets_no_tfd201_but_a_checking_test_does():
    source = """
    import tensorflow as tf

    class RunTest(tf.test.TestCase):
        def test_variables_as_run_arguments(self):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                v = tf.Variable(1.0)

            def replica_fn(x):
                return x * v

            for batch in tf.data.Dataset.range(4).batch(2):
                out = strategy.run(replica_fn, args=(batch,))
            {check}
    """
    assert "TFD201" not in codes_of(source.format(check="del out"), "run_args_test.py")
    assert "TFD201" in codes_of(source.format(check="self.assertAllEqual(out, [0, 1])"), "run_args_test.py")


# TFD401: a library's TF 1 graph-mode input path -----------------------------------------------------

_V1_INPUT = """
    import tensorflow.compat.v2 as tf

    def batch_dimension(iterator):
        return tf.nest.flatten(tf.compat.v1.data.get_output_shapes(iterator))[0].dims[0]

    def get_iterator(dataset, distribution_strategy):
        with distribution_strategy.scope():
            return distribution_strategy.make_dataset_iterator(dataset)
    {more}
    """


def test_a_handed_in_strategy_in_a_tf1_iterator_module_keeps_its_tf1_method():
    assert "TFD401" not in codes_of(_V1_INPUT.format(more=""), "training_utils_v1.py")


def test_a_tf2_strategy_built_in_the_same_module_is_still_told_its_tf2_method():
    more = "strategy = tf.distribute.MirroredStrategy()\n    it = strategy.make_dataset_iterator(tf.data.Dataset.range(4))"
    assert "TFD401" in codes_of(_V1_INPUT.format(more=more), "training_utils_v1.py")


# TFD403's loss-scaling rewrite when the gradients are clipped ---------------------------------------

_LOSS_SCALED_STEP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD())

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
            scaled = optimizer.get_scaled_loss(loss)
        grads = tape.gradient(scaled, model.trainable_variables)
        grads = optimizer.get_unscaled_gradients(grads)
        {between}
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    """


def _tfd403_edits(between: str) -> int:
    findings = check_source("train.py", textwrap.dedent(_LOSS_SCALED_STEP.format(between=between))).findings
    return sum(1 for f in findings if f.code == "TFD403" and f.fix is not None)


def test_gradients_clipped_after_unscaling_get_no_loss_scaling_rewrite():
    # EfficientDet's step: dropping the unscaling would clip gradients still scaled by the loss scale.
    assert _tfd403_edits("grads, _ = tf.clip_by_global_norm(grads, 10.0)") == 0


def test_gradients_applied_straight_away_keep_the_rewrite():
    assert _tfd403_edits("pass") == 1
