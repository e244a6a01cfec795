"""Probe for TFD503: saves that only the chief of a MultiWorkerMirroredStrategy cluster runs.

Two worker processes on 127.0.0.1 (free ports) form one cluster per case; a small `Dense` model
on 16 rows, global batch 4:

- a chief-only `tf.train.Checkpoint(model=...).write(path)` between two compiled all-reduce steps;
- `fit` for 3 epochs with a `ModelCheckpoint` (`.keras` file) given to the chief only;
- the alternative: the same callback given to every worker, the chief's to the real path and the
  other's to a temporary directory.

Each runs under tf-keras (`TF_USE_LEGACY_KERAS=1`) and under Keras 3. Every wait is bounded: a
worker not done 180 s after the case started is killed and reported as hung.

    python benchmarks/probe_chief_only_save.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-27); Keras 3 `fit` fails under this strategy
whatever the callbacks (TFD504), so only its `Checkpoint.write` case says anything about saves:

    keras 3 | chief-only Checkpoint.write | worker 0: all-reduce after the save = 2.0
    keras 3 | chief-only Checkpoint.write | worker 1: all-reduce after the save = 2.0
    keras 3 | chief-only ModelCheckpoint in fit | worker 0: ValueError: Attempt to convert a value (PerReplica:{
    keras 3 | chief-only ModelCheckpoint in fit | worker 1: ValueError: Attempt to convert a value (PerReplica:{
    keras 3 | alternative: ModelCheckpoint on every worker | worker 0: ValueError: Attempt to convert a value (PerReplica:{
    keras 3 | alternative: ModelCheckpoint on every worker | worker 1: ValueError: Attempt to convert a value (PerReplica:{
    tf-keras | chief-only Checkpoint.write | worker 0: all-reduce after the save = 2.0
    tf-keras | chief-only Checkpoint.write | worker 1: all-reduce after the save = 2.0
    tf-keras | chief-only ModelCheckpoint in fit | worker 0: tensorflow.python.framework.errors_impl.UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:CPU:0
    tf-keras | chief-only ModelCheckpoint in fit | worker 1: :UNKNOWN:Error received from peer  {grpc_status:13, grpc_message:"Collective instance 140 expected type 0 and data_type 1 but got type 0 and data_type 9"}
    tf-keras | alternative: ModelCheckpoint on every worker | worker 0: trained, losses [1.5657, 0.7973, 0.539]; saved
    tf-keras | alternative: ModelCheckpoint on every worker | worker 1: trained, losses [1.5657, 0.7973, 0.539]; nothing saved
"""

from __future__ import annotations

import os
import sys

from probing import KERAS_FLAVOURS, two_worker_outcomes

CASE_LIMIT_S = 180
CASES = (
    "chief-only Checkpoint.write",
    "chief-only ModelCheckpoint in fit",
    "alternative: ModelCheckpoint on every worker",
)


def run_worker(case: str, index: int, directory: str) -> None:
    """One worker, in this process: TF_CONFIG is already in its environment."""
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    x = np.arange(32, dtype="float32").reshape(16, 2) / 32
    y = x.sum(axis=1, keepdims=True)
    total = tf.function(
        lambda: strategy.run(
            lambda: tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0))
        )
    )
    if case == CASES[0]:
        total()
        if index == 0:
            tf.train.Checkpoint(model=model).write(os.path.join(directory, "ckpt"))
        result = f"all-reduce after the save = {float(strategy.experimental_local_results(total())[0])}"
    else:
        target = (
            os.path.join(directory, "model.keras")
            if index == 0
            else os.path.join(directory, f"worker{index}", "model.keras")
        )
        os.makedirs(os.path.dirname(target), exist_ok=True)
        callbacks = [tf.keras.callbacks.ModelCheckpoint(target)] if index == 0 or case == CASES[2] else []
        history = model.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=callbacks)
        result = f"trained, losses {[round(v, 4) for v in history.history['loss']]}; {os.path.exists(target) and 'saved' or 'nothing saved'}"
    print(result, flush=True)


def main() -> None:
    """Every case under each Keras, two workers each."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1], int(sys.argv[2]), sys.argv[3])
        return
    for flavour, legacy in KERAS_FLAVOURS:
        for case in CASES:
            for index, outcome in enumerate(two_worker_outcomes(__file__, case, legacy, CASE_LIMIT_S)):
                print(f"{flavour} | {case} | worker {index}: {outcome}", flush=True)


if __name__ == "__main__":
    main()
