"""Three premises the ledger7a verdicts (benchmarks/WILD.md) rest on, measured on TF 2.21.

1. Device queries do not start the runtime that `MultiWorkerMirroredStrategy` must come before
   (TFD105): in a fresh process, `tf.test.is_built_with_cuda()`,
   `tf.config.list_physical_devices("GPU")` and `tf.test.gpu_device_name()`, then the strategy
   (no TF_CONFIG: one local worker).
2. Which strategies have a cluster resolver (TFD502's inserted `_worker_path` reads
   `strategy.cluster_resolver.task_type`): `MirroredStrategy` and the default strategy.
3. `reset_states()` on a Keras metric (a Keras 2 name: evidence that a file is a Keras 2 program).

Each flavour runs in its own process (case 1 needs TensorFlow not started yet):

    python benchmarks/probe_ledger7a_premises.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-27, ledger7a):

    keras 3 | device queries, then MultiWorkerMirroredStrategy(): created, 1 replica(s)
    keras 3 | cluster_resolver: MirroredStrategy: None; default strategy: None
    keras 3 | Mean().reset_states(): AttributeError: 'Mean' object has no attribute 'reset_states'
    tf-keras | device queries, then MultiWorkerMirroredStrategy(): created, 1 replica(s)
    tf-keras | cluster_resolver: MirroredStrategy: None; default strategy: None
    tf-keras | Mean().reset_states(): works, result 0.0

So TFD105 may not count those queries as starting TensorFlow; a helper that reads
`strategy.cluster_resolver` must expect `None` for single-machine strategies; and a file that
calls `reset_states()` on a metric runs on Keras 2 (tf-keras).
"""

from __future__ import annotations

import sys

from probing import first_error_line, print_outcomes, rerun_per_keras


def run_cases(flavour: str) -> None:
    """The three premises, in this order (the first must run before anything starts TensorFlow)."""
    import tensorflow as tf

    def queries_then_mwms() -> str:
        tf.test.is_built_with_cuda()
        tf.config.list_physical_devices("GPU")
        tf.test.gpu_device_name()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        return f"created, {strategy.num_replicas_in_sync} replica(s)"

    def resolvers() -> str:
        mirrored = tf.distribute.MirroredStrategy().cluster_resolver
        default = tf.distribute.get_strategy().cluster_resolver
        return f"MirroredStrategy: {mirrored!r}; default strategy: {default!r}"

    def reset_states() -> str:
        metric = tf.keras.metrics.Mean()
        metric.update_state(1.0)
        metric.reset_states()
        return f"works, result {float(metric.result())}"

    print_outcomes(
        flavour,
        [
            ("device queries, then MultiWorkerMirroredStrategy()", queries_then_mwms),
            ("cluster_resolver", resolvers),
            ("Mean().reset_states()", reset_states),
        ],
        describe=first_error_line,
    )


def main() -> None:
    """Each Keras flavour in a fresh process."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
        return
    rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
