"""Premises of the ledger24a verdicts (benchmarks/WILD.md): a Korean capstone's scratch notebook
(HongikUniv-CAPSTONE-DESIGN-2023-YDY-1/CAPSTONE_DESIGN_AI_Module, ``temporary/임시.ipynb``, Keras 2, one GPU).

Its cell 26 builds a ``Sequential`` outside any scope from a frozen TF-Hub feature layer (whose
variables exist from construction) and new layers with no input shape, makes a MirroredStrategy on
a later line, and compiles and fits inside that strategy's scope. distfix reports the model
(TFD101) with an unsafe fix that wraps the ``Sequential`` in ``with strategy.scope():`` above the
line binding ``strategy``, so the name is an earlier cell's strategy. Its cell 19 calls
``tf.config.set_visible_devices(gpus[0], 'GPU')`` after earlier cells started TensorFlow; TFD111
says this "raises RuntimeError".

A MirroredStrategy over two logical CPUs stands in for the GPUs; a pre-built frozen ``Dense`` stands
in for ``hub.KerasLayer``:

1. "1 as written": the cell-26 shape, compile and fit in the later strategy's scope;
2. "2 fixed": the ``Sequential`` made in an earlier strategy's scope (what the rewrite enters), compile
   and fit in the cell's own later one;
3. "3 one device, reselected": after TensorFlow started, ``set_visible_devices`` with the whole list of
   a device type (``gpus[0]`` on a one-GPU machine; here the only CPU);
4. "4 list changed": after TensorFlow started, ``set_visible_devices`` changing a type's list (what
   ``gpus[0]`` does on a machine with two GPUs; here no CPU).

    python benchmarks/probe_ledger24a_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger24a), CPU:

    keras 3 | 1 as written: InvalidArgumentError (graph execution error)
    keras 3 | 2 fixed: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow
    keras 3 | 3 one device, reselected: returned
    keras 3 | 4 list changed: RuntimeError: Visible devices cannot be modified after being initialized
    tf-keras | 1 as written: fit ran; mirrored: the 4 new-layer variables, plain: the 2 frozen ones
    tf-keras | 2 fixed: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow
    tf-keras | 3 one device, reselected: returned
    tf-keras | 4 list changed: RuntimeError: Visible devices cannot be modified after being initialized

Under Keras 2 (the notebook's: its saved output prints ``keras/optimizer_v2`` paths, the repository pins
keras 2.13.1) the cell as written trains: ``fit`` builds the new layers inside the scope
(MirroredVariables), and only the frozen layer's variables stay plain ones, read and never updated;
Keras 3 fails on it. The rewrite makes the
cell raise where it ran. ``set_visible_devices`` returns before its "cannot be modified" check when
the list does not change (TensorFlow's ``context.py``), so on the notebook's one GPU the call is a
no-op; it raises only where there is more than one.
"""

from __future__ import annotations

import sys

import numpy as np
from probing import first_error_line, main_per_keras, print_outcomes, two_cpu_replicas


def describe(exc: Exception) -> str:
    """An error raised eagerly states its cause first; one raised while running a graph is named by
    its type only (its last lines vary from run to run)."""
    if "Graph execution error" in str(exc):
        return f"{type(exc).__name__} (graph execution error)"
    return first_error_line(exc, 60)


def measure(flavour: str) -> None:
    """Print one line per case: whether the cell trains, and what the device calls do after start-up."""
    import tensorflow as tf

    earlier = two_cpu_replicas(tf)  # an earlier cell's `strategy`
    keras = tf.keras
    x = np.random.rand(32, 4).astype("float32")
    y = keras.utils.to_categorical(np.random.randint(0, 3, 32), 3)

    def frozen_feature_layer() -> keras.layers.Layer:
        """A frozen layer whose variables exist from construction, as hub.KerasLayer's do."""
        layer = keras.layers.Dense(8, trainable=False)
        layer.build((None, 4))
        return layer

    def new_sequential() -> keras.Sequential:
        return keras.Sequential([frozen_feature_layer(), keras.layers.Dropout(0.3), keras.layers.Dense(16)])

    def train(model: keras.Sequential) -> str:
        model.add(keras.layers.Dense(3, activation="softmax"))
        later = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])  # the cell's own `strategy = ...`
        with later.scope():
            model.compile(optimizer="adam", loss="categorical_crossentropy")
            model.fit(x, y, epochs=1, batch_size=8, verbose=0)
        mirrored = sum(hasattr(v, "values") for v in model.variables)
        plain = len(model.variables) - mirrored
        return f"fit ran; mirrored: the {mirrored} new-layer variables, plain: the {plain} frozen ones"

    def as_written() -> str:
        return train(new_sequential())

    def fixed() -> str:
        with earlier.scope():
            model = new_sequential()
        return train(model)

    def reselect_whole_list() -> str:
        tf.config.set_visible_devices(tf.config.list_physical_devices("CPU")[0], "CPU")
        return "returned"

    def change_list() -> str:
        tf.config.set_visible_devices([], "CPU")
        return "returned"

    print_outcomes(
        flavour,
        (
            ("1 as written", as_written),
            ("2 fixed", fixed),
            ("3 one device, reselected", reselect_whole_list),
            ("4 list changed", change_list),
        ),
        describe=describe,
    )


if __name__ == "__main__":
    sys.exit(main_per_keras(__file__, measure))
