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
    keras 3 | colab as written: RuntimeError: RuntimeError: Mixing different tf.distribute.Strategy objects: <
    keras 3 | colab after both fixes: RuntimeError: RuntimeError: Mixing different tf.distribute.Strategy objects: <
    tf-keras | buffer made outside the scope: ResourceVariable; rows after one step: [-1.0, -1.0, -1.0, -1.0]
    tf-keras | buffer made inside the scope: MirroredVariable; rows after one step: [-1.0, -1.0, 0.0, 0.0]
    tf-keras | LossScaleOptimizer has: get_scaled_loss=True, get_unscaled_gradients=True, scale_loss=False
    tf-keras | layers.experimental.SyncBatchNormalization: found SyncBatchNormalization
    tf-keras | issubclass: TPU stable<experimental False, experimental<stable False; MWMS experimental<stable True
    tf-keras | colab as written: ValueError: ValueError: `colocate_vars_with` must only be passed a variable
    tf-keras | colab after both fixes: runs
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from probing import last_error_line, main_per_keras, print_outcomes, two_cpu_replicas

if TYPE_CHECKING:
    from collections.abc import Iterator


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

    def colab(model_in_scope: bool) -> str:
        one = tf.distribute.MirroredStrategy(["/cpu:0"])
        data = tf.data.Dataset.from_tensor_slices((tf.ones((16, 4)), tf.ones((16, 1)))).repeat().batch(4)
        batches = iter(one.experimental_distribute_dataset(data) if model_in_scope else data)
        if model_in_scope:
            with one.scope():
                model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        else:
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(0.01)  # outside the scope in both arms, as in the colab

        def replica_fn(batch: tuple[tf.Tensor, tf.Tensor]) -> None:
            x, y = batch
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))

        @tf.function
        def step(iterator: Iterator[tuple[tf.Tensor, tf.Tensor]]) -> None:
            one.run(replica_fn, args=(next(iterator),))

        try:
            step(batches)
        except Exception as exc:  # the probe records what fails, whatever it is
            # a traced error's message repeats the cause after "in user code:"; show that cause's line
            causes = [line.strip() for line in str(exc).splitlines() if "Error: " in line]
            return f"{type(exc).__name__}: {(causes[-1] if causes else '')[:64]}"
        return "runs"

    print_outcomes(
        flavour,
        [
            ("buffer made outside the scope", lambda: buffer_update(inside_scope=False)),
            ("buffer made inside the scope", lambda: buffer_update(inside_scope=True)),
            ("LossScaleOptimizer has", loss_scale_names),
            ("layers.experimental.SyncBatchNormalization", sync_batch_norm),
            ("issubclass", subclassing),
            ("colab as written", lambda: colab(model_in_scope=False)),
            ("colab after both fixes", lambda: colab(model_in_scope=True)),
        ],
        describe=lambda exc: last_error_line(exc, width=100),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
