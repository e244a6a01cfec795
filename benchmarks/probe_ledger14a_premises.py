"""Premises the ledger14a verdicts (benchmarks/WILD.md) rest on, measured on TF 2.21.

1. TFD101: a plain `tf.Variable` made outside `strategy.scope()` (a per-example buffer) that each
   replica of a two-CPU `MirroredStrategy` reads with `tf.gather` and updates with
   `scatter_add(IndexedSlices)` of its own rows inside a compiled `strategy.run` works: every row
   comes out updated once. The same variable made inside the scope (what TFD101's unsafe fix does)
   is a MirroredVariable: each replica's `scatter_add` lands on its own copy, no error is raised,
   and the value read afterwards holds only the first replica's rows (the others are lost).
2. TFD403: through `tensorflow.keras` (Keras 3 unless TF_USE_LEGACY_KERAS=1), the
   `LossScaleOptimizer` has `scale_loss` and no `get_scaled_loss`, and
   `layers.experimental.SyncBatchNormalization` is absent; on tf-keras both old names exist.

    python benchmarks/probe_ledger14a_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger14a), two logical CPUs:

    keras 3 | buffer made outside the scope: ResourceVariable; rows after one step: [-1.0, -1.0, -1.0, -1.0]
    keras 3 | buffer made inside the scope: MirroredVariable; rows after one step: [-1.0, -1.0, 0.0, 0.0]
    keras 3 | LossScaleOptimizer has: get_scaled_loss=False, get_unscaled_gradients=False, scale_loss=True
    keras 3 | layers.experimental.SyncBatchNormalization: tf.keras.layers has no `experimental` (AttributeError)
    keras 3 | issubclass: TPU stable<experimental False, experimental<stable False; MWMS experimental<stable True
    tf-keras | buffer made outside the scope: ResourceVariable; rows after one step: [-1.0, -1.0, -1.0, -1.0]
    tf-keras | buffer made inside the scope: MirroredVariable; rows after one step: [-1.0, -1.0, 0.0, 0.0]
    tf-keras | LossScaleOptimizer has: get_scaled_loss=True, get_unscaled_gradients=True, scale_loss=False
    tf-keras | layers.experimental.SyncBatchNormalization: found SyncBatchNormalization
    tf-keras | issubclass: TPU stable<experimental False, experimental<stable False; MWMS experimental<stable True
"""

from __future__ import annotations

import sys

from probing import first_error_line, print_outcomes, rerun_per_keras, two_cpu_replicas


def premises(flavour: str) -> None:
    """The buffer update outside and inside the scope, and the Keras names, for one Keras."""
    import tensorflow as tf

    two = two_cpu_replicas(tf)
    rows = tf.data.Dataset.range(4).batch(4)  # one global batch of row ids 0..3, two per replica

    def buffer_update(inside_scope: bool) -> str:
        if inside_scope:
            with two.scope():
                buffer = tf.Variable(tf.zeros((4, 1)))
        else:
            buffer = tf.Variable(tf.zeros((4, 1)))

        def replica_fn(ids: tf.Tensor) -> None:
            with tf.GradientTape() as tape:
                tape.watch(buffer)
                loss = tf.reduce_sum(tf.gather(buffer, ids))
            grad = tape.gradient(loss, buffer)  # IndexedSlices over this replica's rows
            buffer.scatter_add(tf.IndexedSlices(-grad.values, grad.indices))

        @tf.function
        def step(batch: tf.Tensor) -> None:
            two.run(replica_fn, args=(batch,))

        for batch in two.experimental_distribute_dataset(rows):
            step(batch)
        return f"{type(buffer).__name__}; rows after one step: {buffer.numpy().ravel().tolist()}"

    def loss_scale_names() -> str:
        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
        names = ("get_scaled_loss", "get_unscaled_gradients", "scale_loss")
        return ", ".join(f"{name}={hasattr(optimizer, name)}" for name in names)

    def sync_batch_norm() -> str:
        if not hasattr(tf.keras.layers, "experimental"):
            return "tf.keras.layers has no `experimental` (AttributeError)"
        return f"found {tf.keras.layers.experimental.SyncBatchNormalization.__name__}"

    def subclassing() -> str:
        tpu, tpu_old = tf.distribute.TPUStrategy, tf.distribute.experimental.TPUStrategy
        mw, mw_old = tf.distribute.MultiWorkerMirroredStrategy, tf.distribute.experimental.MultiWorkerMirroredStrategy
        return (
            f"TPU stable<experimental {issubclass(tpu, tpu_old)}, experimental<stable {issubclass(tpu_old, tpu)}; "
            f"MWMS experimental<stable {issubclass(mw_old, mw)}"
        )

    print_outcomes(
        flavour,
        [
            ("buffer made outside the scope", lambda: buffer_update(inside_scope=False)),
            ("buffer made inside the scope", lambda: buffer_update(inside_scope=True)),
            ("LossScaleOptimizer has", loss_scale_names),
            ("layers.experimental.SyncBatchNormalization", sync_batch_norm),
            ("issubclass", subclassing),
        ],
        describe=lambda exc: first_error_line(exc, width=110),
    )


def main() -> None:
    """Without an argument, rerun this file once per Keras flavour; with one, measure it."""
    if len(sys.argv) > 1:
        premises(sys.argv[1])
    else:
        rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
