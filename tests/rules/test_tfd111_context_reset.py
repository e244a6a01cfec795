"""TFD111 after `context._reset_context()`: the private reset (test suites call it in `setUp`)
ends the "runtime started" state like the start of the program, so a device configuration
right after it is legal (benchmarks/probe_virtual_devices_after_context_reset.py), and the
reset line is never named as what started TensorFlow."""

from __future__ import annotations

import textwrap

from fixer.engine import check_source


def tfd111(source: str) -> list[tuple[int, str]]:
    findings = check_source("test_split.py", textwrap.dedent(source)).findings
    return [(f.start.line, f.message) for f in findings if f.code == "TFD111"]


def test_configuration_right_after_a_reset_in_set_up_is_not_reported():
    assert tfd111("""
        import tensorflow as tf
        from tensorflow.python.eager import context

        class SplitTest(tf.test.TestCase):
            def setUp(self):
                super().setUp()
                context._reset_context()
                cpus = tf.config.list_physical_devices("CPU")
                tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)

            def test_two_replicas(self):
                strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
                self.assertEqual(strategy.num_replicas_in_sync, 2)
        """) == []


def test_ops_before_the_reset_do_not_count():
    assert tfd111("""
        import tensorflow as tf
        from tensorflow.python.eager import context

        x = tf.constant(1.0)
        context._reset_context()
        cpus = tf.config.list_physical_devices("CPU")
        tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy()
        """) == []


def test_a_reset_in_an_enclosing_block_ends_what_ran_before_it():
    assert tfd111("""
        import tensorflow as tf
        from tensorflow.python.eager import context

        x = tf.constant(1.0)
        context._reset_context()
        if True:
            cpus = tf.config.list_physical_devices("CPU")
            tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy()
        """) == []


def test_ops_after_the_reset_still_start_the_runtime():
    (finding,) = tfd111("""
        import tensorflow as tf
        from tensorflow.python.eager import context

        context._reset_context()
        x = tf.constant(1.0)
        cpus = tf.config.list_physical_devices("CPU")
        tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
        strategy = tf.distribute.MirroredStrategy()
        """)
    assert finding[0] == 8
    assert "after line 6 started TensorFlow" in finding[1]
