"""Probe for TFD101's coordinator case: an evaluation metric made outside `strategy.scope()` and
updated eagerly on the ParameterServerStrategy coordinator ("inline evaluation").

Starts an in-process cluster (one worker and one parameter server on loopback, as TensorFlow's
parameter-server tutorial does), builds `ParameterServerStrategy` on it as the coordinator, makes a
model in the scope (its variables live on the parameter server), then evaluates it on the
coordinator in a plain Python loop: `pred = model(x)`, `metric.update_state(y, pred)`. The metric
is made once outside the scope and once inside it; a third case updates the in-scope metric in a
`strategy.run` replica function scheduled on the worker (the distributed evaluation), for
comparison. Run once under Keras 3 and once under tf-keras (`TF_USE_LEGACY_KERAS=1`), each in its
own process.

    python benchmarks/probe_coordinator_eval_metric.py

Output on TensorFlow 2.21, Keras 3, tf-keras 2.21 (2026-11-27):

    keras 3 | inline, metric outside the scope: accuracy 0.75
    keras 3 | inline, metric inside the scope: accuracy 0.75
    keras 3 | scheduled replica function, metric inside the scope: accuracy 0.75
    tf-keras | inline, metric outside the scope: accuracy 0.75
    tf-keras | inline, metric inside the scope: accuracy 0.75
    tf-keras | scheduled replica function, metric inside the scope: accuracy 0.75
"""

from __future__ import annotations

import os
import sys

from probing import first_error_line, in_process_parameter_server_strategy, print_outcomes, rerun_per_keras

# One kernel of ones: the prediction is x0 + x1; above 5 means class 1. Three of four labels agree.
X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [0.5, 0.5]]
Y = [[0], [1], [1], [1]]


def _dataset(tf):
    return tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y, dtype=tf.int64))).batch(2)


def _predicted(tf, model, x):
    return tf.cast(tf.greater(model(x, training=False), 5.0), tf.int64)


def _inline(tf, strategy, model, in_scope: bool) -> str:
    if in_scope:
        with strategy.scope():
            metric = tf.keras.metrics.Accuracy()
    else:
        metric = tf.keras.metrics.Accuracy()
    for x, y in _dataset(tf):  # eager, on the coordinator: no replica context
        metric.update_state(y, _predicted(tf, model, x))
    return f"accuracy {float(metric.result()):.2f}"


def _scheduled(tf, strategy, model) -> str:
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        metric = tf.keras.metrics.Accuracy()

    @tf.function
    def eval_step(iterator):
        def replica_fn(x, y):
            metric.update_state(y, _predicted(tf, model, x))

        x, y = next(iterator)
        strategy.run(replica_fn, args=(x, y))

    per_worker = iter(coordinator.create_per_worker_dataset(lambda: _dataset(tf)))
    for _ in range(2):
        coordinator.schedule(eval_step, args=(per_worker,))
    coordinator.join()
    return f"accuracy {float(metric.result()):.2f}"


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = in_process_parameter_server_strategy(tf)
    with strategy.scope():
        model = tf.keras.Sequential(
            [tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")]
        )
    cases = (
        ("inline, metric outside the scope", lambda: _inline(tf, strategy, model, in_scope=False)),
        ("inline, metric inside the scope", lambda: _inline(tf, strategy, model, in_scope=True)),
        ("scheduled replica function, metric inside the scope", lambda: _scheduled(tf, strategy, model)),
    )
    print_outcomes(flavour, cases, describe=first_error_line)
    os._exit(0)  # the in-process servers never stop by themselves


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
        return
    rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
