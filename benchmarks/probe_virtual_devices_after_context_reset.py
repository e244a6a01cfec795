"""Configuring logical devices after the runtime started, with and without resetting the context.

TFD111 reports `tf.config.set_logical_device_configuration` after TensorFlow has started. Test
suites (Keras 3's own distribution tests, ledger6) call the private
`tensorflow.python.eager.context._reset_context()` right before it, in `setUp`, so each test can
split the CPU into two logical devices again. This probe starts the runtime, then configures two
logical CPUs without and with that reset. Plain TensorFlow, one run:

    python benchmarks/probe_virtual_devices_after_context_reset.py

Output on TensorFlow 2.21, 2026-11-27 (ledger6, issue 28):

    tf | configure after the runtime started: RuntimeError: Virtual devices cannot be modified after being initialized
    tf | configure after context._reset_context(): no error, 2 logical CPUs

The reset makes the configuration legal again: a configuration right after it is not the
mistake TFD111 describes.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from probing import print_outcomes  # noqa: E402


def main() -> None:
    """Start the runtime, then try the two orders."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from tensorflow.python.eager import context

    cpu = tf.config.list_physical_devices("CPU")[0]
    two = [tf.config.LogicalDeviceConfiguration()] * 2
    tf.config.list_logical_devices("CPU")  # starts the runtime

    def without_reset() -> str:
        tf.config.set_logical_device_configuration(cpu, two)
        return "no error"

    def after_reset() -> str:
        context._reset_context()  # noqa: SLF001 - the private call the test suites make
        tf.config.set_logical_device_configuration(cpu, two)
        return f"no error, {len(tf.config.list_logical_devices('CPU'))} logical CPUs"

    print_outcomes("tf", [
        ("configure after the runtime started", without_reset),
        ("configure after context._reset_context()", after_reset),
    ])


if __name__ == "__main__":
    main()
