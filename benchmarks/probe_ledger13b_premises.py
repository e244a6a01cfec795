"""Premises two ledger13b verdicts (benchmarks/WILD.md) and prec34's changes rest on, measured on TF 2.21.

1. TFD108: with one replica (the default strategy, or `MirroredStrategy` over one device),
   `strategy.run` in a `tf.function` returns the replica function's tensors themselves, so
   `.numpy()` works; with two replicas it returns a PerReplica, and `.numpy()` raises. A program's
   `else:` of `if strategy.num_replicas_in_sync > 1` runs only in the first case.
2. TFD504: `tf.keras.optimizers.legacy.SGD(...)` only builds on Keras 2 (tf-keras): a program that
   uses it runs on Keras 2 only.

    python benchmarks/probe_ledger13b_premises.py

Output on TensorFlow 2.21 (2026-11-27, prec34), two logical CPUs:

    keras 3 | default strategy: EagerTensor; .numpy(): [2. 4.]
    keras 3 | Mirrored 1 CPU: EagerTensor; .numpy(): [2. 4.]
    keras 3 | Mirrored 2 CPUs: PerReplica; .numpy(): AttributeError: 'PerReplica' object has no attribute 'numpy'
    keras 3 | tf.keras.optimizers.legacy.SGD(0.01): ImportError: `keras.optimizers.legacy` is not supported in Keras 3.
    tf-keras | default strategy: EagerTensor; .numpy(): [2. 4.]
    tf-keras | Mirrored 1 CPU: EagerTensor; .numpy(): [2. 4.]
    tf-keras | Mirrored 2 CPUs: PerReplica; .numpy(): AttributeError: 'PerReplica' object has no attribute 'numpy'
    tf-keras | tf.keras.optimizers.legacy.SGD(0.01): builds SGD
"""

from __future__ import annotations

from probing import first_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def premises(flavour: str) -> None:
    """The run results' types and `.numpy()` per replica count, and the legacy optimizer, for one Keras."""
    import tensorflow as tf

    two = two_cpu_replicas(tf)

    def run_result(strategy: tf.distribute.Strategy) -> str:
        @tf.function
        def step(x: tf.Tensor) -> tf.Tensor:
            return strategy.run(lambda v: v * 2.0, args=(x,))

        result = step(tf.constant([1.0, 2.0]))
        kind = type(result).__name__
        try:
            shown = f"{result.numpy()}"
        except Exception as exc:  # the probe records what fails, whatever it is
            shown = first_error_line(exc, width=50)
        return f"{kind}; .numpy(): {shown}"

    def legacy_optimizer() -> str:
        return f"builds {type(tf.keras.optimizers.legacy.SGD(0.01)).__name__}"

    print_outcomes(
        flavour,
        [
            ("default strategy", lambda: run_result(tf.distribute.get_strategy())),
            ("Mirrored 1 CPU", lambda: run_result(tf.distribute.MirroredStrategy(["/cpu:0"]))),
            ("Mirrored 2 CPUs", lambda: run_result(two)),
            ("tf.keras.optimizers.legacy.SGD(0.01)", legacy_optimizer),
        ],
        describe=lambda exc: first_error_line(exc, width=54),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
