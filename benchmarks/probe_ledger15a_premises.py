"""Premises of ledger15a verdicts (benchmarks/WILD.md), measured on TF 2.21.

1. TFD402: a Python callback with no arguments given to an eager `strategy.run` on two replicas
   runs once per replica on every call; the same call inside a `tf.function` runs the callback only
   while tracing (two calls the first time, none after). A callback that starts a profiler or
   checks Python state per step therefore has to stay eager (awslabs/sagemaker-debugger,
   `tests/profiler/tensorflow2/test_native_tf2_profiler.py`).
2. TFD303: a replica step whose loss is the replica batch's mean, applied by the optimizer under a
   two-replica MirroredStrategy, moves a weight by the sum of the replicas' gradients (twice the
   single-device step), under both Kerases: the finding's premise holds for that test's dummy
   objective, which is why the verdict is noise, not fp.
3. Recall note: `tf.keras.optimizers.Adam(lr=...)` (mike0355/k8s-facenet-distributed-training's
   workers) builds under tf-keras and is rejected by Keras 3, so that program only runs on Keras 2.

    python benchmarks/probe_ledger15a_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger15a), two logical CPUs:

    keras 3 | no-argument callback, eager strategy.run called 3 times: 6 Python calls
    keras 3 | the same in a tf.function called 3 times: 2 Python calls
    keras 3 | per-replica mean loss, SGD(1.0), 2 replicas: weight moves by 2.0 (one device: 1.0)
    keras 3 | Adam(lr=...): ValueError: Argument(s) not recognized: {'lr': 0.001}
    tf-keras | no-argument callback, eager strategy.run called 3 times: 6 Python calls
    tf-keras | the same in a tf.function called 3 times: 2 Python calls
    tf-keras | per-replica mean loss, SGD(1.0), 2 replicas: weight moves by 2.0 (one device: 1.0)
    tf-keras | Adam(lr=...): builds, learning rate 0.0010
"""

from __future__ import annotations

from probing import first_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def premises(flavour: str) -> None:
    """Count a callback's Python calls eager and compiled, and measure one summed SGD step."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)

    def callback_calls(compiled: bool) -> str:
        calls = []

        def start_profiling() -> None:
            # a Python side effect, like starting cProfile on each replica
            calls.append(1)

        def run_once() -> None:
            strategy.run(start_profiling)

        runner = tf.function(run_once) if compiled else run_once
        for _ in range(3):
            runner()
        return f"{len(calls)} Python calls"

    def summed_step() -> str:
        with strategy.scope():
            weight = tf.Variable(0.0)
            optimizer = tf.keras.optimizers.SGD(1.0)

        @tf.function
        def step() -> None:
            def replica_step() -> None:
                with tf.GradientTape() as tape:
                    # d(mean(w * x))/dw = mean(x) = 1 on each replica
                    loss = tf.reduce_mean(weight * tf.ones([4]))
                grads = tape.gradient(loss, [weight])
                optimizer.apply_gradients(zip(grads, [weight], strict=True))

            strategy.run(replica_step)

        step()
        return f"weight moves by {-float(weight.numpy())} (one device: 1.0)"

    def adam_with_lr() -> str:
        optimizer = tf.keras.optimizers.Adam(lr=0.001)
        return f"builds, learning rate {float(optimizer.learning_rate.numpy()):.4f}"

    print_outcomes(
        flavour,
        [
            ("no-argument callback, eager strategy.run called 3 times", lambda: callback_calls(False)),
            ("the same in a tf.function called 3 times", lambda: callback_calls(True)),
            ("per-replica mean loss, SGD(1.0), 2 replicas", summed_step),
            ("Adam(lr=...)", adam_with_lr),
        ],
        describe=lambda exc: first_error_line(exc, width=60),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
