"""Probe for TFD503: the chief saves alone after every other worker has ended its process.

The shape of prec27's TFD503 verdict: after `fit`, `if not is_chief: sys.exit()`, then the chief
runs `model.save(...)` (and more) on its own. Two worker processes on 127.0.0.1 (free ports) form
one `MultiWorkerMirroredStrategy` per case; a model compiled with a metric (`mae`, whose variables
are synchronised on read), trained by `fit` for 2 epochs on 16 rows, global batch 4 (under Keras 3,
whose `fit` fails under this strategy (TFD504), one compiled all-reduce step instead):

- the others exit, then the chief saves the model (tf-keras: a SavedModel, `save_format="tf"`;
  Keras 3: a `.keras` file);
- the same for a model with a `BatchNormalization` layer (moving statistics);
- the others exit, then the chief runs `evaluate` (a collective per step).

Each wait is bounded: a worker not done 150 s after the case started is killed and reported hung.

    python benchmarks/probe_chief_saves_after_exit.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21.0 (2026-11-27, prec27):

    keras 3 | others exit, chief saves | worker 0: saved alone: True
    keras 3 | others exit, chief saves | worker 1: exited
    keras 3 | others exit, chief saves a BatchNormalization model | worker 0: saved alone: True
    keras 3 | others exit, chief saves a BatchNormalization model | worker 1: exited
    tf-keras | others exit, chief saves | worker 0: tensorflow.python.framework.errors_impl.UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:CPU:0
    tf-keras | others exit, chief saves | worker 1: exited
    tf-keras | others exit, chief saves a BatchNormalization model | worker 0: tensorflow.python.framework.errors_impl.UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:CPU:0
    tf-keras | others exit, chief saves a BatchNormalization model | worker 1: exited
    tf-keras | others exit, chief evaluates | worker 0: tensorflow.python.framework.errors_impl.UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:CPU:0
    tf-keras | others exit, chief evaluates | worker 1: exited

Under tf-keras, where `fit` runs under this strategy, the chief's save after the others exit
fails: the SavedModel reads the metric's (and batch normalisation's) variables synchronised on
read, an all-reduce whose peers are gone (`UnavailableError`); so does `evaluate`. Under Keras 3
the `.keras` save of a model that never ran `fit` goes through alone.

"""

from __future__ import annotations

import os
import sys

from probing import KERAS_FLAVOURS, two_worker_outcomes

CASE_LIMIT_S = 150
CASES = (
    "others exit, chief saves",
    "others exit, chief saves a BatchNormalization model",
    "others exit, chief evaluates",
)


def run_worker(case: str, index: int, directory: str) -> None:
    """One worker, in this process: TF_CONFIG is already in its environment."""
    import numpy as np
    import tensorflow as tf

    keras3 = os.environ.get("TF_USE_LEGACY_KERAS") != "1"
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        layers = [tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(4)]
        if case == CASES[1]:
            layers.append(tf.keras.layers.BatchNormalization())
        model = tf.keras.Sequential([*layers, tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x = np.arange(32, dtype="float32").reshape(16, 2) / 32
    y = x.sum(axis=1, keepdims=True)
    if keras3:
        step = tf.function(lambda: strategy.run(lambda: tf.distribute.get_replica_context().all_reduce("sum", 1.0)))
        step()
    else:
        model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    if index != 0:
        print("exited", flush=True)
        sys.exit()
    if case == CASES[2]:
        loss = model.evaluate(x, y, batch_size=4, verbose=0)
        print(f"evaluated alone: {np.round(loss, 4).tolist()}", flush=True)
        return
    target = os.path.join(directory, "model.keras" if keras3 else "saved_model")
    if keras3:
        model.save(target)
    else:
        model.save(target, save_format="tf")
    print(f"saved alone: {os.path.exists(target)}", flush=True)


def main() -> None:
    """Every case under each Keras, two workers each."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1], int(sys.argv[2]), sys.argv[3])
        return
    for flavour, legacy in KERAS_FLAVOURS:
        for case in CASES:
            if legacy != "1" and case == CASES[2]:
                continue  # Keras 3 trains nothing under this strategy: nothing to evaluate
            for index, outcome in enumerate(two_worker_outcomes(__file__, case, legacy, CASE_LIMIT_S)):
                print(f"{flavour} | {case} | worker {index}: {outcome}", flush=True)


if __name__ == "__main__":
    main()
