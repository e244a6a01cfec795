"""Premises of the ledger14b verdicts (benchmarks/WILD.md): what a notebook's recorded output says
about the Keras that ran it, and two renames, measured on TF 2.21.

1. The object `fit` returns prints as `<keras.src.callbacks.history.History ...>` under Keras 3 and
   `<tf_keras.src.callbacks.History ...>` under tf-keras. Neither is
   `tensorflow.python.keras.callbacks.History`, the class a recorded output names when `tf.keras`
   was the Keras 2 of TensorFlow's own tree (TF 2.0-2.5; from 2.6 `tf.keras` is the separate
   `keras` package, the release notes' history, not measured here). TF 2.21 still ships that
   module, but `tf.keras` does not use it under either flavour.
2. `summary()` of a Sequential model that was never built prints a table with `(unbuilt)` rows
   under Keras 3 and raises under tf-keras: a recorded summary with `(unbuilt)` was printed by
   Keras 3.
3. `tf.distribute.experimental.CollectiveCommunication` is the very enum
   `tf.distribute.experimental.CommunicationImplementation` (an alias), so renaming one to the other
   inside an experimental `MultiWorkerMirroredStrategy(...)` call passes the same value; and a
   strategy has no `experimental_run_v2` any more (a notebook calling it stops with AttributeError).

    python benchmarks/probe_ledger14b_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger14b), CPU:

    keras 3 | fit returns: keras.src.callbacks.history.History
    keras 3 | import tensorflow.python.keras.callbacks: imports
    keras 3 | summary() of an unbuilt Sequential: prints a table with '(unbuilt)'
    keras 3 | CollectiveCommunication is CommunicationImplementation: True (NCCL member too: True)
    keras 3 | a strategy's experimental_run_v2: absent
    tf-keras | fit returns: tf_keras.src.callbacks.History
    tf-keras | import tensorflow.python.keras.callbacks: imports
    tf-keras | summary() of an unbuilt Sequential: ValueError: This model has not yet been built.
    tf-keras | CollectiveCommunication is CommunicationImplementation: True (NCCL member too: True)
    tf-keras | a strategy's experimental_run_v2: absent
"""

from __future__ import annotations

import contextlib
import importlib
import io

from probing import first_error_line, main_per_keras, print_outcomes


def premises(flavour: str) -> None:
    """The class `fit` returns, the in-tree Keras module, and an unbuilt model's summary, for one Keras."""
    import numpy as np
    import tensorflow as tf

    def fit_returns() -> str:
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        history = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0)
        return f"{type(history).__module__}.{type(history).__name__}"

    def in_tree_keras() -> str:
        importlib.import_module("tensorflow.python.keras.callbacks")
        return "imports"

    def unbuilt_summary() -> str:
        model = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            model.summary()
        return "prints a table with '(unbuilt)'" if "(unbuilt)" in printed.getvalue() else "prints a table"

    def communication_alias() -> str:
        old = tf.distribute.experimental.CollectiveCommunication
        new = tf.distribute.experimental.CommunicationImplementation
        return f"{old is new} (NCCL member too: {old.NCCL is new.NCCL})"

    def run_v2() -> str:
        strategy = tf.distribute.get_strategy()
        return "present" if hasattr(strategy, "experimental_run_v2") else "absent"

    print_outcomes(
        flavour,
        [
            ("fit returns", fit_returns),
            ("import tensorflow.python.keras.callbacks", in_tree_keras),
            ("summary() of an unbuilt Sequential", unbuilt_summary),
            ("CollectiveCommunication is CommunicationImplementation", communication_alias),
            ("a strategy's experimental_run_v2", run_v2),
        ],
        describe=lambda exc: first_error_line(exc, width=34),
    )


if __name__ == "__main__":
    main_per_keras(__file__, premises)
