"""Premises of the ledger15b verdicts (benchmarks/WILD.md): whether building Keras's
`ImageDataGenerator` and its directory iterator starts the TensorFlow runtime, what each
replica of `strategy.run` receives when it is handed one of that iterator's NumPy batches, and
what TFD101's rewrite does to a functional model whose layers were built before it.

1. A program that builds an `ImageDataGenerator`, calls `flow_from_directory` on a folder of
   images, turns on `tf.debugging.set_log_device_placement` and lists the physical devices, and
   only then splits a device with `tf.config.experimental.set_virtual_device_configuration`: the
   split is accepted (no `RuntimeError: Virtual devices cannot be modified after being
   initialized`) and a `MirroredStrategy` built next has the two replicas. Neither the generator
   nor its iterator (it lists the folder's files; no image is read) runs a TensorFlow op. Measured
   on the CPU (the only device here): the check that raises reads the same eager context on GPU.
2. A NumPy batch (what `next(iterator)` of that generator returns) passed to `strategy.run` inside
   a `tf.function` reaches every replica whole: two replicas, an 8-row batch, each replica sees
   8 rows (the input is not split; the loss of each replica is over the whole batch).
3. A functional model whose layers were built (called on a batch) outside the scope, then
   `Model(inputs, outputs)` and `compile` inside it (what TFD101's fix leaves when it moves only
   those two statements): `fit` raises ValueError under both Kerases. Everything outside the scope
   (the notebook as written): `fit` trains, on one replica (the strategy is not used).

    python benchmarks/probe_ledger15b_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger15b), CPU:

    keras 3 | ImageDataGenerator + flow_from_directory, then split the CPU: configured
    keras 3 | replicas of a MirroredStrategy over the two CPUs: 2
    keras 3 | rows each replica gets from an 8-row NumPy batch in strategy.run: [8, 8]
    keras 3 | layers built outside, model+compile in scope, fit: ValueError: `colocate_vars_with` must only be pass
    keras 3 | all outside the scope, fit: trains on 1 replica(s)
    tf-keras | ImageDataGenerator + flow_from_directory, then split the CPU: configured
    tf-keras | replicas of a MirroredStrategy over the two CPUs: 2
    tf-keras | rows each replica gets from an 8-row NumPy batch in strategy.run: [8, 8]
    tf-keras | layers built outside, model+compile in scope, fit: ValueError: Variable (<tf.Variable 'dense/kernel:0
    tf-keras | all outside the scope, fit: trains on 1 replica(s)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from probing import first_error_line, main_per_keras, print_outcomes


def _image_folder(root: Path) -> Path:
    """Two class folders of two (empty) PNG files: the iterator lists them, it reads none."""
    for label in ("a", "b"):
        (root / label).mkdir(parents=True)
        for index in range(2):
            (root / label / f"{index}.png").write_bytes(b"")
    return root


def premises(flavour: str) -> None:
    """Build the generator first, then configure devices, then distribute a NumPy batch."""
    import numpy as np
    import tensorflow as tf
    from tensorflow.keras.preprocessing.image import ImageDataGenerator

    state: dict[str, object] = {}

    def generator_then_split() -> str:
        # The order of the judged script: generator and iterator, logging, device listing, split.
        with tempfile.TemporaryDirectory() as folder:
            generator = ImageDataGenerator(rescale=1.0 / 255, shear_range=0.2, zoom_range=0.2)
            generator.flow_from_directory(_image_folder(Path(folder)), target_size=(8, 8), batch_size=4)
        tf.debugging.set_log_device_placement(True)
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.experimental.set_virtual_device_configuration(
            cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 2
        )
        tf.debugging.set_log_device_placement(False)
        return "configured"

    def replicas() -> str:
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        state["strategy"] = strategy
        return str(strategy.num_replicas_in_sync)

    def rows_per_replica() -> str:
        strategy = state["strategy"]
        batch = np.ones((8, 3), dtype=np.float32)

        @tf.function
        def step(inputs: np.ndarray) -> object:
            return strategy.run(lambda x: tf.shape(x)[0], args=(inputs,))

        return str([int(rows) for rows in strategy.experimental_local_results(step(batch))])

    def layers_outside_model_inside() -> str:
        # TFD101's rewrite of a notebook whose layers were built (called on a batch) in earlier
        # cells: only `Model(inputs, outputs)` and `compile` move into the scope.
        strategy = state["strategy"]
        features, labels = np.ones((8, 3), dtype=np.float32), np.ones((8, 2), dtype=np.float32)
        base = tf.keras.layers.Dense(4)
        head = tf.keras.layers.Dense(2)
        head(base(features))  # built outside any scope, as the notebook's cells do
        inputs = tf.keras.Input(shape=(3,))
        with strategy.scope():
            model = tf.keras.Model(inputs, head(base(inputs)))
            model.compile(optimizer="adam", loss="mse")
        model.fit(features, labels, epochs=1, batch_size=4, verbose=0)
        return "trains"

    def all_outside() -> str:
        # The notebook as written: layers, model and compile outside the scope; the strategy unused.
        features, labels = np.ones((8, 3), dtype=np.float32), np.ones((8, 2), dtype=np.float32)
        inputs = tf.keras.Input(shape=(3,))
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
        model.compile(optimizer="adam", loss="mse")
        model.fit(features, labels, epochs=1, batch_size=4, verbose=0)
        return f"trains on {model.distribute_strategy.num_replicas_in_sync} replica(s)"

    print_outcomes(
        flavour,
        [
            ("ImageDataGenerator + flow_from_directory, then split the CPU", generator_then_split),
            ("replicas of a MirroredStrategy over the two CPUs", replicas),
            ("rows each replica gets from an 8-row NumPy batch in strategy.run", rows_per_replica),
            ("layers built outside, model+compile in scope, fit", layers_outside_model_inside),
            ("all outside the scope, fit", all_outside),
        ],
        describe=lambda exc: first_error_line(exc, width=38),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
