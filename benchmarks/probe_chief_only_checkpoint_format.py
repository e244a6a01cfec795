"""TFD503: a `ModelCheckpoint` given to the chief only, by the file format it writes.

`probe_chief_only_save.py` measured a chief-only `ModelCheckpoint` writing a `.keras` file: under
tf-keras the chief's save meets the other worker's next all-reduce and `fit` fails. A held-out
book chapter (ledger7a) gives the chief only a `ModelCheckpoint` writing an HDF5 file (`.h5`,
`save_best_only=True`, with validation data). This probe runs both formats the same way: two
worker processes on 127.0.0.1 (free ports) form one MultiWorkerMirroredStrategy cluster, a small
`Dense` model on 24 training and 8 validation rows, global batch 4, 3 epochs, the callback on
worker 0 only. tf-keras (`TF_USE_LEGACY_KERAS=1`) only: Keras 3 `fit` fails under this strategy
whatever the callbacks (TFD504). Every wait is bounded (a worker not done after 240 s is killed
and reported as hung).

    python benchmarks/probe_chief_only_checkpoint_format.py

Output on TensorFlow 2.21, tf-keras 2.21 (2026-11-27, ledger7a):

    tf-keras | chief-only ModelCheckpoint to .h5 | worker 0: trained, losses [0.4726, 0.2795, 0.2745];
        saved
    tf-keras | chief-only ModelCheckpoint to .h5 | worker 1: trained, losses [0.4726, 0.2795, 0.2745];
        nothing saved
    tf-keras | chief-only ModelCheckpoint to .keras | worker 0: tensorflow.python.framework.errors_impl.
        InternalError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/
        replica:0/task:0/device:CPU:0}}
    tf-keras | chief-only ModelCheckpoint to .keras | worker 1: :UNKNOWN:Error received from peer
        {grpc_message:"Collective ops is aborted by: Collective instance 196 expected type 0 and
        data_type 9 but got type 0 and data_type 1\nTh

(lines wrapped here; the probe prints each worker's outcome on one line).

Rerun with two more cases (2026-11-27, prec17): the same plain model trained by Adam (`.h5+adam`),
and a model with a BatchNormalization layer trained by Adam (`.h5+bn`):

    tf-keras | chief-only ModelCheckpoint to .h5 | worker 0: trained, losses [0.0483, 0.0136, 0.0102]; saved
    tf-keras | chief-only ModelCheckpoint to .keras | worker 0: ...InternalError: {{function_node
        __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:CPU:0}}
    tf-keras | chief-only ModelCheckpoint to .h5+adam | worker 0: trained, losses [2.1762, 1.5027, 0.7412];
        saved
    tf-keras | chief-only ModelCheckpoint to .h5+adam | worker 1: trained, losses [2.1762, 1.5027, 0.7412];
        nothing saved
    tf-keras | chief-only ModelCheckpoint to .h5+bn | worker 0: ...InvalidArgumentError: {{function_node
        __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:0/device:C
    tf-keras | chief-only ModelCheckpoint to .h5+bn | worker 1: :UNKNOWN:Error received from peer
        {grpc_status:3, grpc_message:"Collective ops is aborted by: Shape mismatch in the collective
        instance 204. ...

The chief-only HDF5 checkpoint of a model of plain layers trains like the other worker and is
written, with SGD or Adam (the initial weights are random, so the losses differ from run to run);
the chief-only `.keras` checkpoint breaks the collectives, as in probe_chief_only_save, and so does
an HDF5 one of a model with BatchNormalization (its moving statistics are synchronised on read:
saving them runs a collective only the chief joins). TFD503 follows this: it leaves out a
chief-only HDF5 `ModelCheckpoint` only for files that name no batch normalisation.
"""

from __future__ import annotations

import os
import sys

from probing import two_worker_outcomes

CASE_LIMIT_S = 240
# The file suffix; "+adam": the plain model trained by Adam; "+bn": a model with
# BatchNormalization trained by Adam (the shape the rule's docs once said broke HDF5 too).
FORMATS = (".h5", ".keras", ".h5+adam", ".h5+bn")


def run_worker(suffix: str, index: int, directory: str) -> None:
    """One worker, in this process: TF_CONFIG is already in its environment."""
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    suffix, _, variant = suffix.partition("+")
    with strategy.scope():
        layers = [tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(4)]
        if variant == "bn":
            layers.append(tf.keras.layers.BatchNormalization())
        model = tf.keras.Sequential([*layers, tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(1e-2) if variant else tf.keras.optimizers.SGD(learning_rate=1e-2)
        model.compile(optimizer=optimizer, loss="mse", metrics=["mae"])
    x = np.arange(64, dtype="float32").reshape(32, 2) / 64
    y = x.sum(axis=1, keepdims=True)
    target = os.path.join(directory, "model" + suffix)
    callbacks = [tf.keras.callbacks.ModelCheckpoint(target, save_best_only=True)] if index == 0 else []
    history = model.fit(
        x[:24], y[:24], validation_data=(x[24:], y[24:]), batch_size=4, epochs=3, verbose=0, callbacks=callbacks
    )
    saved = "saved" if index == 0 and os.path.exists(target) else "nothing saved"
    print(f"trained, losses {[round(v, 4) for v in history.history['loss']]}; {saved}", flush=True)


def main() -> None:
    """Each format once, two tf-keras workers each."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1], int(sys.argv[2]), sys.argv[3])
        return
    for suffix in FORMATS:
        for index, outcome in enumerate(two_worker_outcomes(__file__, suffix, "1", CASE_LIMIT_S)):
            print(f"tf-keras | chief-only ModelCheckpoint to {suffix} | worker {index}: {outcome}", flush=True)


if __name__ == "__main__":
    main()
