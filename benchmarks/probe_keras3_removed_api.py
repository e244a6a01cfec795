"""Probe for TFD403: Keras 2 distributed-training names that Keras 3 no longer has.

On 2 logical CPU devices under `MirroredStrategy`, once under Keras 3 (the default `tf.keras` of
TensorFlow 2.21) and once under tf-keras (`TF_USE_LEGACY_KERAS=1`), each in its own process:

- `tf.keras.layers.experimental.SyncBatchNormalization()`;
- `BatchNormalization(synchronized=True)` (the rewrite) and plain `BatchNormalization()`, trained
  one step on data whose halves differ: the moving mean each replica holds afterwards;
- `LossScaleOptimizer.get_scaled_loss` / `get_unscaled_gradients` and the Keras 3 form
  (`scale_loss`, then a plain `apply_gradients`) in a custom loop: the weights after one step
  (one SGD step on one device gives [0.33, 0.20]);
- `tf.keras.utils.experimental.DatasetCreator`;
- which of Keras 2's OptimizerV2 hooks (`_resource_apply_dense`, ...) `optimizers.SGD` and
  `optimizers.legacy.SGD` have: only Keras 2's OptimizerV2 has them (TFD403 reads them as Keras 2).

    python benchmarks/probe_keras3_removed_api.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-26; the optimizer hooks 2026-11-27):

    keras 3 | SyncBatchNormalization: AttributeError: module 'keras._tf_keras.keras.layers' has no attribute 'experimental'
    keras 3 | BatchNormalization(synchronized=True): moving means per replica [[0.04, 0.05], [0.04, 0.05]]
    keras 3 | BatchNormalization(): moving means per replica [[0.02, 0.03], [0.06, 0.07]]
    keras 3 | get_scaled_loss/get_unscaled_gradients: AttributeError: AttributeError: 'LossScaleOptimizer' object has no attribute 'get_scaled_loss'
    keras 3 | scale_loss + apply_gradients: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    keras 3 | DatasetCreator: AttributeError: module 'keras.utils' has no attribute 'experimental'
    keras 3 | Keras 2 optimizer hooks: SGD: none; legacy.SGD: none
    tf-keras | SyncBatchNormalization: moving means per replica [[0.04, 0.05], [0.04, 0.05]]
    tf-keras | BatchNormalization(synchronized=True): moving means per replica [[0.04, 0.05], [0.04, 0.05]]
    tf-keras | BatchNormalization(): moving means per replica [[0.02, 0.03], [0.06, 0.07]]
    tf-keras | get_scaled_loss/get_unscaled_gradients: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    tf-keras | scale_loss + apply_gradients: AttributeError: AttributeError: 'LossScaleOptimizerV3' object has no attribute 'scale_loss'
    tf-keras | DatasetCreator: builds
    tf-keras | Keras 2 optimizer hooks: SGD: none; legacy.SGD: _resource_apply_dense,_resource_apply_sparse,_prepare_local,_decayed_lr
"""

from __future__ import annotations

import sys

from probing import (
    last_error_line,
    print_outcomes,
    rerun_per_keras,
    two_cpu_replicas,
)

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]  # global batch of 4: 2 rows per replica
Y = [[1.0], [2.0], [3.0], [4.0]]


def _per_replica(tf, strategy, variable) -> list:
    """The values each replica holds of ``variable`` (a Keras 3 variable wraps the tf.Variable)."""
    if not isinstance(variable, tf.Variable):
        variable = variable.value
    return [[round(float(v), 2) for v in local.numpy().ravel()] for local in strategy.experimental_local_results(variable)]


def _batch_norm_means(tf, strategy, make_layer) -> str:
    """Moving means per replica after one training step on rows whose halves differ."""
    with strategy.scope():
        layer = make_layer()
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), layer])

    def replica_step(x):
        model(x, training=True)

    data = tf.data.Dataset.from_tensor_slices(tf.constant(X)).batch(4)

    @tf.function
    def step(x):
        strategy.run(replica_step, args=(x,))

    for x in strategy.experimental_distribute_dataset(data):
        step(x)
    return f"moving means per replica {_per_replica(tf, strategy, layer.moving_mean)}"


def _loss_scaled_step(tf, strategy, keras3_form: bool) -> str:
    """Weights per replica after one SGD step of a loss-scaled custom loop."""
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01), initial_scale=8.0)
        optimizer.build(model.trainable_variables) if keras3_form else None

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 4.0  # mean over the global batch
            scaled = optimizer.scale_loss(loss) if keras3_form else optimizer.get_scaled_loss(loss)
        grads = tape.gradient(scaled, model.trainable_variables)
        if not keras3_form:
            grads = optimizer.get_unscaled_gradients(grads)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)

    @tf.function
    def step(x, y):
        strategy.run(replica_step, args=(x, y))

    for x, y in strategy.experimental_distribute_dataset(data):
        step(x, y)
    return f"weights per replica {_per_replica(tf, strategy, model.trainable_variables[0])}"


def _dataset_creator(tf) -> str:
    tf.keras.utils.experimental.DatasetCreator(lambda context: tf.data.Dataset.range(4))
    return "builds"


# Hooks a subclass of Keras 2's OptimizerV2 overrides (TF <= 2.10's default optimizer, tf-keras's
# `optimizers.legacy`): code that overrides them is written against Keras 2.
KERAS2_OPTIMIZER_HOOKS = ("_resource_apply_dense", "_resource_apply_sparse", "_prepare_local", "_decayed_lr")


def _optimizer_hooks(tf) -> str:
    found = []
    for label, get in (("SGD", lambda: tf.keras.optimizers.SGD), ("legacy.SGD", lambda: tf.keras.optimizers.legacy.SGD)):
        try:
            cls = get()
        except AttributeError as exc:
            found.append(f"{label}: {last_error_line(exc, 60)}")
            continue
        found.append(f"{label}: " + (",".join(h for h in KERAS2_OPTIMIZER_HOOKS if hasattr(cls, h)) or "none"))
    return "; ".join(found)


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    cases = (
        ("SyncBatchNormalization", lambda: _batch_norm_means(tf, strategy, lambda: tf.keras.layers.experimental.SyncBatchNormalization())),
        ("BatchNormalization(synchronized=True)", lambda: _batch_norm_means(tf, strategy, lambda: tf.keras.layers.BatchNormalization(synchronized=True))),
        ("BatchNormalization()", lambda: _batch_norm_means(tf, strategy, tf.keras.layers.BatchNormalization)),
        ("get_scaled_loss/get_unscaled_gradients", lambda: _loss_scaled_step(tf, strategy, keras3_form=False)),
        ("scale_loss + apply_gradients", lambda: _loss_scaled_step(tf, strategy, keras3_form=True)),
        ("DatasetCreator", lambda: _dataset_creator(tf)),
        ("Keras 2 optimizer hooks", lambda: _optimizer_hooks(tf)),
    )
    print_outcomes(flavour, cases, lambda exc: last_error_line(exc, 140))


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
    else:
        rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
