"""The signs of an old TensorFlow that prec35 reads in a notebook's saved output, as today's
TensorFlow prints them (fixer/target/saved_runs.py, docs/target.md "A notebook's saved output").

1. Devices: TF 2.21 lists no `XLA_CPU` / `XLA_GPU` device. TensorFlow 2.4.0's release notes:
   "XLA:CPU and XLA:GPU devices are no longer registered by default" (cited, not measured here:
   no TF 2.3 on this machine), so a listing with `device:XLA_CPU:0` was recorded on TF 2.3 or older.
2. Keras reprs: a `fit` History's class lives in `keras.src...` (Keras 3) or `tf_keras...`
   (tf-keras), never in `tensorflow.python.keras`, which TensorFlow 2.6.0's release notes say
   stopped backing `tf.keras` in 2.6: a `tensorflow.python.keras` repr was recorded on TF 2.5 or older.
3. The renames TFD401 writes are absent from the releases those signs admit (the table of
   fixer/target/apis.py, from the release notes; checked against TF 2.21 here: all present now).

    python benchmarks/probe_saved_run_signs.py

Output on TensorFlow 2.21 (2026-11-28, prec35), CPU:

    keras 3 | devices listed: ['/physical_device:CPU:0']; any XLA_: False
    keras 3 | History class: keras.src.callbacks.history.History
    keras 3 | renames present on 2.21: run, distribute_datasets_from_function, TPUStrategy,
        MultiWorkerMirroredStrategy, CommunicationImplementation
    tf-keras | devices listed: ['/physical_device:CPU:0']; any XLA_: False
    tf-keras | History class: tf_keras.src.callbacks.History
    tf-keras | renames present on 2.21: (the same five)
"""

from __future__ import annotations

from probing import main_per_keras, print_outcomes


def signs(flavour: str) -> None:
    """What TF 2.21 prints where an old run printed the signs, for one Keras."""
    import numpy as np
    import tensorflow as tf

    def devices() -> str:
        names = [d.name for d in tf.config.list_physical_devices()]
        return f"{names}; any XLA_: {any('XLA_' in n for n in names)}"

    def history() -> str:
        model = tf.keras.Sequential([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        fitted = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=1, verbose=0)
        return f"{type(fitted).__module__}.{type(fitted).__name__}"

    def renames() -> str:
        strategy = tf.distribute.get_strategy()
        present = [
            ("run", hasattr(strategy, "run")),
            ("distribute_datasets_from_function", hasattr(strategy, "distribute_datasets_from_function")),
            ("TPUStrategy", hasattr(tf.distribute, "TPUStrategy")),
            ("MultiWorkerMirroredStrategy", hasattr(tf.distribute, "MultiWorkerMirroredStrategy")),
            ("CommunicationImplementation", hasattr(tf.distribute.experimental, "CommunicationImplementation")),
        ]
        return ", ".join(name for name, there in present if there)

    print_outcomes(
        flavour,
        [("devices listed", devices), ("History class", history), ("renames present on 2.21", renames)],
    )


if __name__ == "__main__":
    main_per_keras(__file__, signs)
