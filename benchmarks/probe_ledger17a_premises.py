"""Premises of the ledger17a verdicts (benchmarks/WILD.md): whether replacing the eager context
makes a device split legal again, what `strategy.run` returns when the strategy has one replica,
and whether `tensorflow_estimator` is still there to import.

1. The runtime is started (an op runs), then the eager context is replaced the way an old
   Hugging Face test does it (`context._context = None`, then
   `ops.enable_eager_execution_internal()`), then the CPU is split into two logical devices with
   `tf.config.set_logical_device_configuration`: the split is accepted (no `RuntimeError:
   Virtual devices cannot be modified after being initialized`) and a `MirroredStrategy` over the
   logical CPUs has two replicas. Without the replacement the same split raises.
2. `strategy.run` on a strategy with one replica (`OneDeviceStrategy`, and `MirroredStrategy` over
   one device) returns a plain `EagerTensor`, and `.numpy()` on it works: the `PerReplica` that
   TFD108 is about appears only with more than one replica.
3. `import tensorflow_estimator` raises `ModuleNotFoundError` beside TensorFlow 2.21 and
   `tf.estimator` is gone: a program that imports the estimator package (as TensorFlowOnSpark's
   examples do after `fit`) runs on TensorFlow 2.15 or older, whose `tf.keras` is Keras 2.

    python benchmarks/probe_ledger17a_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger17a), CPU:

    keras 3 | after an op, split the CPU: RuntimeError: Virtual devices cannot be modified after being initialized
    keras 3 | after an op, replace the eager context, then split the CPU: configured
    keras 3 | replicas of a MirroredStrategy over the logical CPUs: 2
    keras 3 | OneDeviceStrategy.run result, .numpy(): EagerTensor -> 2.0
    keras 3 | one-device MirroredStrategy.run result, .numpy(): EagerTensor -> 2.0
    keras 3 | import tensorflow_estimator: ModuleNotFoundError: No module named 'tensorflow_estimator'
    keras 3 | hasattr(tf, 'estimator'): False
    tf-keras | after an op, split the CPU: RuntimeError: Virtual devices cannot be modified after being initialized
    tf-keras | after an op, replace the eager context, then split the CPU: configured
    tf-keras | replicas of a MirroredStrategy over the logical CPUs: 2
    tf-keras | OneDeviceStrategy.run result, .numpy(): EagerTensor -> 2.0
    tf-keras | one-device MirroredStrategy.run result, .numpy(): EagerTensor -> 2.0
    tf-keras | import tensorflow_estimator: ModuleNotFoundError: No module named 'tensorflow_estimator'
    tf-keras | hasattr(tf, 'estimator'): False
"""

from __future__ import annotations

import importlib

from probing import first_error_line, main_per_keras, print_outcomes


def premises(flavour: str) -> None:
    """Start the runtime, split the CPU before and after replacing the context, then the rest."""
    import tensorflow as tf
    from tensorflow.python.eager import context
    from tensorflow.python.framework import ops

    cpu = tf.config.list_physical_devices("CPU")[0]
    two = [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]

    def split_after_op() -> str:
        tf.constant(1.0) + 1.0  # the runtime starts here
        tf.config.set_logical_device_configuration(cpu, two)
        return "configured"

    def split_after_context_replaced() -> str:
        # The judged test's two lines: a new eager context, not yet initialised.
        context._context = None
        ops.enable_eager_execution_internal()
        tf.config.set_logical_device_configuration(cpu, two)
        return "configured"

    def replicas() -> str:
        devices = tf.config.list_logical_devices(device_type="CPU")
        return str(tf.distribute.MirroredStrategy(devices=devices[:2]).num_replicas_in_sync)

    def one_replica_result(strategy: tf.distribute.Strategy) -> str:
        result = strategy.run(lambda: tf.constant(2.0))
        return f"{type(result).__name__} -> {result.numpy()}"

    def estimator_import() -> str:
        importlib.import_module("tensorflow_estimator")
        return "imported"

    print_outcomes(
        flavour,
        [
            ("after an op, split the CPU", split_after_op),
            ("after an op, replace the eager context, then split the CPU", split_after_context_replaced),
            ("replicas of a MirroredStrategy over the logical CPUs", replicas),
            (
                "OneDeviceStrategy.run result, .numpy()",
                lambda: one_replica_result(tf.distribute.OneDeviceStrategy("/cpu:0")),
            ),
            (
                "one-device MirroredStrategy.run result, .numpy()",
                lambda: one_replica_result(tf.distribute.MirroredStrategy(["/cpu:0"])),
            ),
            ("import tensorflow_estimator", estimator_import),
            ("hasattr(tf, 'estimator')", lambda: str(hasattr(tf, "estimator"))),
        ],
        describe=lambda exc: first_error_line(exc, width=100),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
