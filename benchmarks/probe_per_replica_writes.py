"""Probe for TFD301's limits: per-replica writes that leave the replicas equal.

On 2 logical CPU devices under `MirroredStrategy`, once under Keras 3 and once under tf-keras
(`TF_USE_LEGACY_KERAS=1`), each in its own process. One `Dense(1)` model made in the scope, SGD
(lr 0.01), 3 steps on a global batch of 4 rows (2 per replica, different on each replica). Each
case prints the model's kernel on each replica and the largest difference between the copies:

- ON_READ buffers: one `strategy.run` assigns each replica's own gradients into variables made
  in the scope with `synchronization=ON_READ` (aggregation SUM); a second `strategy.run` hands
  those buffers to `optimizer.apply_gradients`, which aggregates them across replicas.
- perturb and restore (sharpness-aware minimisation's ascent): in one replica function each
  weight gets `assign_add(e)` of its replica's own gradient step `e`, a second forward pass takes
  the gradients there, `assign_sub(e)` of the same `e` restores the weight, and the optimizer
  applies the second gradients.
- control: each replica's own gradient written into the weights with `assign_sub` (TFD301's
  finding), which makes the copies drift.

    python benchmarks/probe_per_replica_writes.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-27):

    keras 3 | ON_READ buffers, applied in a second strategy.run: copies [[0.29256, 0.2554], [0.29256, 0.2554]], largest difference 0.0e+00
    keras 3 | perturb and restore, then apply_gradients: copies [[0.2593, 0.21563], [0.2593, 0.21563]], largest difference 0.0e+00
    keras 3 | control: own gradient assigned to the weights: copies [[0.43555, 0.40997], [0.28774, 0.25344]], largest difference 1.6e-01
    tf-keras | ON_READ buffers, applied in a second strategy.run: copies [[0.29256, 0.2554], [0.29256, 0.2554]], largest difference 0.0e+00
    tf-keras | perturb and restore, then apply_gradients: copies [[0.2593, 0.21563], [0.2593, 0.21563]], largest difference 0.0e+00
    tf-keras | control: own gradient assigned to the weights: copies [[0.43555, 0.40997], [0.28774, 0.25344]], largest difference 1.6e-01

The ON_READ case ends at the single-device result of `probe_replica_function_calls.py`
(`[0.29256, 0.2554]`): the optimizer sums the buffers, the loss is divided by the global batch.
The perturb-and-restore copies are equal to the last bit.
"""

from __future__ import annotations

import sys

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]  # global batch of 4: 2 rows per replica
Y = [[1.0], [2.0], [3.0], [4.0]]
STEPS = 3


def _copies(tf, strategy, variable) -> str:  # noqa: ANN001 - `tf` and the strategy are the probe's
    """Each replica's copy of ``variable`` and the largest difference between the copies."""
    variable = getattr(variable, "_value", variable)  # Keras 3 wraps the distributed tf.Variable
    local = [tf.reshape(v, [-1]).numpy() for v in strategy.experimental_local_results(variable)]
    spread = max(float(abs(a - b).max()) for a in local for b in local)
    return f"copies {[[round(float(x), 5) for x in v] for v in local]}, largest difference {spread:.1e}"


def _model_and_data(tf, strategy):  # noqa: ANN001, ANN202 - `tf` is the module the probe imported
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer=tf.keras.initializers.Constant(0.5))])
        optimizer = tf.keras.optimizers.SGD(0.01)
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4).repeat(STEPS)
    return model, optimizer, strategy.experimental_distribute_dataset(data)


def _loss(tf, model, x, y):  # noqa: ANN001, ANN202
    return tf.reduce_sum(tf.square(model(x) - y)) / 4.0  # divided by the global batch


def _on_read_buffers(tf, strategy) -> str:  # noqa: ANN001
    model, optimizer, batches = _model_and_data(tf, strategy)
    with strategy.scope():
        buffers = [
            tf.Variable(
                tf.zeros_like(w),
                trainable=False,
                synchronization=tf.VariableSynchronization.ON_READ,
                aggregation=tf.VariableAggregation.SUM,
            )
            for w in model.trainable_variables
        ]

    def compute(x, y):
        with tf.GradientTape() as tape:
            loss = _loss(tf, model, x, y)
        for buffer, grad in zip(buffers, tape.gradient(loss, model.trainable_variables)):
            buffer.assign(grad)

    def apply():
        optimizer.apply_gradients(zip([b.read_value() for b in buffers], model.trainable_variables))

    step = tf.function(lambda x, y: (strategy.run(compute, args=(x, y)), strategy.run(apply)))
    for x, y in batches:
        step(x, y)
    return _copies(tf, strategy, model.trainable_variables[0])


def _perturb_and_restore(tf, strategy) -> str:  # noqa: ANN001
    model, optimizer, batches = _model_and_data(tf, strategy)

    def sam_step(x, y):
        with tf.GradientTape() as tape:
            loss = _loss(tf, model, x, y)
        grads = tape.gradient(loss, model.trainable_variables)
        norm = tf.linalg.global_norm(grads) + 1e-12
        perturbations = []
        for w, g in zip(model.trainable_variables, grads):
            e = 0.05 * g / norm  # this replica's own gradient: differs between replicas
            w.assign_add(e)
            perturbations.append(e)
        with tf.GradientTape() as tape:
            loss = _loss(tf, model, x, y)
        sharp = tape.gradient(loss, model.trainable_variables)
        for w, e in zip(model.trainable_variables, perturbations):
            w.assign_sub(e)
        optimizer.apply_gradients(zip(sharp, model.trainable_variables))

    step = tf.function(lambda x, y: strategy.run(sam_step, args=(x, y)))
    for x, y in batches:
        step(x, y)
    return _copies(tf, strategy, model.trainable_variables[0])


def _own_gradient(tf, strategy) -> str:  # noqa: ANN001
    model, _, batches = _model_and_data(tf, strategy)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = _loss(tf, model, x, y)
        for w, g in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
            w.assign_sub(0.01 * g)

    step = tf.function(lambda x, y: strategy.run(replica_step, args=(x, y)))
    for x, y in batches:
        step(x, y)
    return _copies(tf, strategy, model.trainable_variables[0])


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    print_outcomes(
        flavour,
        [
            ("ON_READ buffers, applied in a second strategy.run", lambda: _on_read_buffers(tf, strategy)),
            ("perturb and restore, then apply_gradients", lambda: _perturb_and_restore(tf, strategy)),
            ("control: own gradient assigned to the weights", lambda: _own_gradient(tf, strategy)),
        ],
    )


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
    else:
        rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
