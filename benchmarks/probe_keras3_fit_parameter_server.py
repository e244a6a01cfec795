"""Probe for TFD504's ParameterServerStrategy case: Keras 3 `fit` under ParameterServerStrategy.

Starts an in-process cluster (one worker and one parameter server on loopback, as TensorFlow's
parameter-server tutorial does), builds `ParameterServerStrategy` on it as the coordinator, and
runs `model.fit(dataset.repeat().batch(4), steps_per_epoch=2)` on a model compiled in the scope,
once under Keras 3 and once under tf-keras (`TF_USE_LEGACY_KERAS=1`), each in its own process.
Then, as the Keras 3 alternative, a `ClusterCoordinator` loop (`create_per_worker_dataset`,
`schedule`, `join`) with the same model and SGD.

    python benchmarks/probe_keras3_fit_parameter_server.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-26):

    keras 3 | fit: ValueError: To use this dataset, you need to pass this dataset to ClusterCoordinator.create_per_worker_dataset.
    keras 3 | ClusterCoordinator loop: weights after one step [0.33, 0.2]
    tf-keras | fit: trains, loss [26.768, 0.019]
    tf-keras | ClusterCoordinator loop: weights after one step [0.33, 0.2]
"""

from __future__ import annotations

import os
import sys

from probing import first_error_line, in_process_parameter_server_strategy, print_outcomes, rerun_per_keras

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
Y = [[1.0], [2.0], [3.0], [4.0]]


def _model(tf):
    return tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])


def _fit(tf, strategy) -> str:
    with strategy.scope():
        model = _model(tf)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).repeat().batch(4)
    history = model.fit(data, epochs=2, steps_per_epoch=2, verbose=0)
    return f"trains, loss {[round(v, 3) for v in history.history['loss']]}"


def _coordinator_loop(tf, strategy) -> str:
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        model = _model(tf)
        optimizer = tf.keras.optimizers.SGD(0.01)
        optimizer.build(model.trainable_variables)

    def dataset_fn():
        return tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)

    per_worker = iter(coordinator.create_per_worker_dataset(dataset_fn))

    @tf.function
    def step(iterator):
        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / 4.0
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        x, y = next(iterator)
        strategy.run(replica_step, args=(x, y))

    coordinator.schedule(step, args=(per_worker,))
    coordinator.join()
    kernel = model.trainable_variables[0]
    values = (kernel if isinstance(kernel, tf.Variable) else kernel.value).numpy().ravel()
    return f"weights after one step {[round(float(v), 2) for v in values]}"


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = in_process_parameter_server_strategy(tf)
    cases = (("fit", lambda: _fit(tf, strategy)), ("ClusterCoordinator loop", lambda: _coordinator_loop(tf, strategy)))
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
