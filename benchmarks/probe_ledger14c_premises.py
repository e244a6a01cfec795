"""Premises of ledger14c verdicts (benchmarks/WILD.md), measured on TF 2.21.

1. TFD109: a Keras 3 `Adam` made in the scope for a model that already has its input shape (a
   `Sequential` starting with `Input`, so built) still fails when its first `apply_gradients` runs in
   a compiled two-replica step; `optimizer.build(model.trainable_variables)` first makes it run. The
   input shape alone is not the fix (nghiatd16/DCGAN-TF2.0-DistributedTraining, `train.py`).
2. TFD201's rewrite in the same tree: iterating `strategy.experimental_distribute_dataset(...)` of a
   dataset whose last batch is short, and drawing noise of shape `[inputs.shape[0], n]` in the
   replica function, trains every batch (the per-replica shape is known in each trace).
3. TFD401: on TF 2.21 a strategy has `run` and no `experimental_run_v2`;
   `tf.distribute.experimental.CollectiveCommunication` is `CommunicationImplementation` itself;
   `tf.distribute.experimental.TPUStrategy` still exists (a deprecated alias).

    python benchmarks/probe_ledger14c_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger14c), two logical CPUs:

    keras 3 | built model, Adam unbuilt, first step compiled on 2 replicas: InvalidArgumentError: Graph execution error:
    keras 3 | built model, Adam built first: trains, 3 optimizer steps
    keras 3 | distributed dataset, short last batch, noise of inputs.shape[0]: trains, 4 optimizer steps
    keras 3 | strategy methods: run True, experimental_run_v2 False
    keras 3 | experimental names: CollectiveCommunication is CommunicationImplementation True, TPUStrategy True
    tf-keras | built model, Adam unbuilt, first step compiled on 2 replicas: trains, 3 optimizer steps
    tf-keras | built model, Adam built first: trains, 3 optimizer steps
    tf-keras | distributed dataset, short last batch, noise of inputs.shape[0]: trains, 4 optimizer steps
    tf-keras | strategy methods: run True, experimental_run_v2 False
    tf-keras | experimental names: CollectiveCommunication is CommunicationImplementation True, TPUStrategy True
"""

from __future__ import annotations

from probing import first_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def premises(flavour: str) -> None:
    """Train a small generator-like model on two replicas three ways, and read the API names."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)

    def train(build_first: bool, rows: int) -> str:
        with strategy.scope():
            layers = [tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)]
            model = tf.keras.Sequential(layers)
            optimizer = tf.keras.optimizers.Adam(1e-3)
            if build_first:
                optimizer.build(model.trainable_variables)

        @tf.function
        def step(batch: tf.Tensor) -> tf.Tensor:
            def replica_step(inputs: tf.Tensor) -> tf.Tensor:
                # the tree draws its noise with the replica batch's static size
                noise = tf.random.normal([inputs.shape[0], 3])
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(model(noise + inputs))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
                return loss

            return strategy.run(replica_step, args=(batch,))

        dataset = tf.data.Dataset.from_tensor_slices(tf.ones([rows, 3])).batch(4)
        for batch in strategy.experimental_distribute_dataset(dataset):
            step(batch)
        return f"trains, {int(optimizer.iterations.numpy())} optimizer steps"

    def strategy_methods() -> str:
        return f"run {hasattr(strategy, 'run')}, experimental_run_v2 {hasattr(strategy, 'experimental_run_v2')}"

    def experimental_names() -> str:
        experimental = tf.distribute.experimental
        same = experimental.CollectiveCommunication is experimental.CommunicationImplementation
        tpu = hasattr(experimental, "TPUStrategy")
        return f"CollectiveCommunication is CommunicationImplementation {same}, TPUStrategy {tpu}"

    print_outcomes(
        flavour,
        [
            ("built model, Adam unbuilt, first step compiled on 2 replicas", lambda: train(False, 12)),
            ("built model, Adam built first", lambda: train(True, 12)),
            ("distributed dataset, short last batch, noise of inputs.shape[0]", lambda: train(True, 13)),
            ("strategy methods", strategy_methods),
            ("experimental names", experimental_names),
        ],
        describe=lambda exc: first_error_line(exc, width=60),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
