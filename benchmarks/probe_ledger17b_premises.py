"""Premises of the ledger17b verdicts (benchmarks/WILD.md): what TensorFlow 2.21 does with four
shapes met in the held-out personal and tutorial trees of ledger17b.

1. The TF 2.0-alpha custom-loop spelling: `strategy.make_dataset_iterator(dataset)` and
   `strategy.experimental_run(fn, iterator)` on a `tf.distribute.MirroredStrategy`. Both still
   run on 2.21: the TF 2 class inherits them from `StrategyBase`, whose source marks them
   "DEPRECATED: TF 1.x only" and hides them from the TF 2 API docs (`experimental_run` also
   warns "use run() instead").
2. A subclassed model made (unbuilt: no input shape) and compiled outside the scope, whose first
   call is a training step run by `strategy.run` inside a `tf.function` invoked under
   `with strategy.scope():`, with an optimizer made in the scope. Its variables are created at
   that first call, in the scope: the probe reports their class and whether one step runs on two
   replicas and leaves the two copies of each weight equal.
3. A `tf.keras.metrics.Mean` updated eagerly in the Python loop, directly under
   `with strategy.scope():`, with the value `strategy.reduce` returned (BERT-NER's loop): made
   outside the scope (as written) and made inside it (what TFD101's unsafe rewrite does). Both
   give the right mean under both Kerases.
4. A single-worker `MultiWorkerMirroredStrategy` (the experimental class, and the experimental
   class given the positional `CommunicationImplementation.NCCL`) built with no TF_CONFIG after a
   `MirroredStrategy` and a `CentralStorageStrategy` (the guide transcription's order): built.

    python benchmarks/probe_ledger17b_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger17b), CPU, two logical CPUs:

    keras 3 | MirroredStrategy.make_dataset_iterator: callable on the TF 2 class, returns DatasetIterator
    keras 3 | MirroredStrategy.experimental_run: callable on the TF 2 class, runs on 2 replicas
    keras 3 | unbuilt model made outside, built in strategy.run: MirroredVariable, step runs, copies equal: True
    keras 3 | Mean made outside the scope, updated under the scope with a reduced loss: 1.5
    keras 3 | Mean made in the scope, updated under the scope with a reduced loss: 1.5
    keras 3 | experimental MWMS after Mirrored and CentralStorage, no TF_CONFIG: 1 replica(s)
    keras 3 | experimental MWMS(CommunicationImplementation.NCCL), no TF_CONFIG: 1 replica(s)
    tf-keras | MirroredStrategy.make_dataset_iterator: callable on the TF 2 class, returns DatasetIterator
    tf-keras | MirroredStrategy.experimental_run: callable on the TF 2 class, runs on 2 replicas
    tf-keras | unbuilt model made outside, built in strategy.run: MirroredVariable, step runs, copies equal: True
    tf-keras | Mean made outside the scope, updated under the scope with a reduced loss: 1.5
    tf-keras | Mean made in the scope, updated under the scope with a reduced loss: 1.5
    tf-keras | experimental MWMS after Mirrored and CentralStorage, no TF_CONFIG: 1 replica(s)
    tf-keras | experimental MWMS(CommunicationImplementation.NCCL), no TF_CONFIG: 1 replica(s)
"""

from __future__ import annotations

import os

from probing import first_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def premises(flavour: str) -> None:
    """Measure the four shapes under the Keras this process selected."""
    import numpy as np
    import tensorflow as tf

    os.environ.pop("TF_CONFIG", None)  # the judged files set none before these lines
    strategy = two_cpu_replicas(tf)
    dataset = tf.data.Dataset.from_tensor_slices(np.ones((8, 3), dtype=np.float32)).batch(4)

    def make_dataset_iterator() -> str:
        iterator = strategy.make_dataset_iterator(dataset)
        return f"callable on the TF 2 class, returns {type(iterator).__name__}"

    def experimental_run() -> str:
        iterator = strategy.make_dataset_iterator(dataset)
        results = strategy.experimental_local_results(strategy.experimental_run(tf.shape, iterator))
        return f"callable on the TF 2 class, runs on {len(results)} replicas"

    def model_built_in_first_step() -> str:
        # training_loops.py's order: model and compile outside, optimizer inside, step under scope.
        class Model(tf.keras.Model):
            def __init__(self) -> None:
                super().__init__()
                self.main = tf.keras.Sequential([tf.keras.layers.Dense(2)])

            def call(self, inputs: object, training: object = None) -> object:
                return self.main(inputs)

        model = Model()
        model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        with strategy.scope():
            optimizer = tf.keras.optimizers.SGD(0.1)
        features = np.arange(16, dtype=np.float32).reshape(8, 2)
        dist = strategy.experimental_distribute_dataset(
            tf.data.Dataset.from_tensor_slices((features, features)).batch(8)
        )

        def step(inputs: object) -> object:
            x, y = inputs
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum((model(x, training=True) - y) ** 2) / 8.0
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        @tf.function
        def train(batch: object) -> object:
            return strategy.run(step, args=(batch,))

        with strategy.scope():
            for batch in dist:
                train(batch)
        kernel = model.trainable_variables[0]
        variable = getattr(kernel, "_value", kernel)  # Keras 3 wraps the tf.Variable it made
        copies = getattr(variable, "values", ())
        equal = len(copies) == 2 and bool(np.allclose(copies[0].numpy(), copies[1].numpy()))
        kind = type(variable).__name__
        return f"{kind}, step runs, copies equal: {equal}"

    def metric(inside: bool) -> str:
        # run_ner.py's loop: the reduced loss fed to a Mean in the Python loop under the scope.
        if inside:
            with strategy.scope():
                loss_metric = tf.keras.metrics.Mean()
        else:
            loss_metric = tf.keras.metrics.Mean()
        for value in (1.0, 2.0):
            with strategy.scope():
                per_replica = strategy.run(lambda v=value: tf.constant(v))
                loss_metric(strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica, axis=None))
        return f"{float(loss_metric.result()):.1f}"

    def multi_worker(positional_enum: bool) -> str:
        tf.distribute.experimental.CentralStorageStrategy()
        if positional_enum:
            mwms = tf.distribute.experimental.MultiWorkerMirroredStrategy(
                tf.distribute.experimental.CommunicationImplementation.NCCL
            )
        else:
            mwms = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        return f"{mwms.num_replicas_in_sync} replica(s)"

    print_outcomes(
        flavour,
        [
            ("MirroredStrategy.make_dataset_iterator", make_dataset_iterator),
            ("MirroredStrategy.experimental_run", experimental_run),
            ("unbuilt model made outside, built in strategy.run", model_built_in_first_step),
            ("Mean made outside the scope, updated under the scope with a reduced loss", lambda: metric(False)),
            ("Mean made in the scope, updated under the scope with a reduced loss", lambda: metric(True)),
            ("experimental MWMS after Mirrored and CentralStorage, no TF_CONFIG", lambda: multi_worker(False)),
            ("experimental MWMS(CommunicationImplementation.NCCL), no TF_CONFIG", lambda: multi_worker(True)),
        ],
        describe=lambda exc: first_error_line(exc, width=160),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
