"""Probe for TFD305: gradients all-reduced by hand, then given to `apply_gradients`, which sums again.

On 2 logical CPU devices under `MirroredStrategy`, once under Keras 3 and once under tf-keras
(`TF_USE_LEGACY_KERAS=1`), each in its own process: a replica function computes the gradients of
the loss divided by the global batch, all-reduces them with SUM, clips them by global norm (1000,
never active here), then calls `apply_gradients` in four ways. One SGD step on one device gives
[0.33, 0.2].

    python benchmarks/probe_gradients_aggregated_twice.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-26):

    keras 3 | plain: weights per replica [[-0.34, -0.6], [-0.34, -0.6]]
    keras 3 | experimental_aggregate_gradients=False: TypeError: TypeError: BaseOptimizer.apply_gradients() got an unexpected keyword argument 'experimental_aggregate_gradients'
    keras 3 | skip_gradients_aggregation=True: TypeError: TypeError: BaseOptimizer.apply_gradients() got an unexpected keyword argument 'skip_gradients_aggregation'
    keras 3 | divided by num_replicas_in_sync: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    tf-keras | plain: weights per replica [[-0.34, -0.6], [-0.34, -0.6]]
    tf-keras | experimental_aggregate_gradients=False: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    tf-keras | skip_gradients_aggregation=True: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    tf-keras | divided by num_replicas_in_sync: weights per replica [[0.33, 0.2], [0.33, 0.2]]
"""

from __future__ import annotations

import sys

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]  # global batch of 4: 2 rows per replica
Y = [[1.0], [2.0], [3.0], [4.0]]
WAYS = ("plain", "experimental_aggregate_gradients=False", "skip_gradients_aggregation=True", "divided by num_replicas_in_sync")


def _case(tf, strategy, way: str) -> str:
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
        optimizer = tf.keras.optimizers.SGD(0.01)
        optimizer.build(model.trainable_variables)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 4.0  # mean over the global batch
        grads = tape.gradient(loss, model.trainable_variables)
        grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
        grads, _ = tf.clip_by_global_norm(grads, 1000.0)
        pairs = zip(grads, model.trainable_variables)
        if way == "plain":
            optimizer.apply_gradients(pairs)
        elif way == "experimental_aggregate_gradients=False":
            optimizer.apply_gradients(pairs, experimental_aggregate_gradients=False)
        elif way == "skip_gradients_aggregation=True":
            optimizer.apply_gradients(pairs, skip_gradients_aggregation=True)
        else:
            n = tf.distribute.get_replica_context().num_replicas_in_sync
            optimizer.apply_gradients([(g / n, v) for g, v in pairs])

    @tf.function
    def step(x, y):
        strategy.run(replica_step, args=(x, y))

    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)
    for x, y in strategy.experimental_distribute_dataset(data):
        step(x, y)
    variable = model.trainable_variables[0]
    if not isinstance(variable, tf.Variable):
        variable = variable.value  # a Keras 3 variable wraps the tf.Variable
    values = [[round(float(v), 2) for v in local.numpy().ravel()] for local in strategy.experimental_local_results(variable)]
    return f"weights per replica {values}"


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    print_outcomes(flavour, ((way, lambda way=way: _case(tf, strategy, way)) for way in WAYS))


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
    else:
        rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
