"""Probe for TFD502's message on a one-file Keras save: two workers of one MultiWorkerMirroredStrategy
cluster (two processes of this host) save a model trained under the strategy to the same `.h5` path,
and to the same `.keras` path, several rounds each.

The checkpoint writer's `MergeV2Checkpoints ... did not exist` (a folder of shards both workers
rename) is what `Checkpoint.save` and weight saves show; an `.h5` file is written by h5py and a
`.keras` file is one zip archive, so the question is what a shared path does to those. Each worker
prints, per extension, how many saves raised (and the first error), and whether the file left at
the end loads.

    python benchmarks/probe_h5_shared_path.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-27:

    keras 3 | worker 1 .h5: 8 of 8 saves raised (first: BlockingIOError: [Errno 11] Unable to synchronously create file (unable to lock file, errno = 11, error message = 'Re); the file left does not load (BlockingIOError)
    keras 3 | worker 0 .h5: 0 of 8 saves raised; the file left does not load (ValueError)
    keras 3 | worker 1 .keras: 0 of 8 saves raised; the file left does not load (BadZipFile)
    keras 3 | worker 0 .keras: 0 of 8 saves raised; the file left loads
    tf-keras | worker 0 .h5: 8 of 8 saves raised (first: BlockingIOError: [Errno 11] Unable to synchronously create file (unable to lock file, errno = 11, error message = 'Re); the file left does not load (OSError)
    tf-keras | worker 1 .h5: 0 of 8 saves raised; the file left loads
    tf-keras | worker 1 .keras: 0 of 8 saves raised; the file left does not load (BadZipFile)
    tf-keras | worker 0 .keras: 0 of 8 saves raised; the file left does not load (BadZipFile)

So a shared `.h5` path fails one worker's every save on h5py's file lock (which worker varies),
and a shared `.keras` path raises nothing but can leave an archive that does not load: neither is
the checkpoint writer's `MergeV2Checkpoints` error, which TFD502's message cites only for the
other saves. (Keras 3 `fit` fails under this strategy, TFD504: its model is saved as built.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from probing import free_ports

ROUNDS = 8


def run_worker(flavour: str, index: int, ports: list[int], directory: str) -> None:
    """One worker, in this process."""
    os.environ["TF_CONFIG"] = json.dumps(
        {"cluster": {"worker": [f"localhost:{port}" for port in ports]}, "task": {"type": "worker", "index": index}}
    )
    import numpy as np
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((64,)), tf.keras.layers.Dense(256), tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
    data = tf.data.Dataset.from_tensor_slices((np.ones((64, 64), "float32"), np.zeros((64, 1), "float32"))).batch(16)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    if flavour == "tf-keras":
        # Keras 3 `fit` fails under this strategy whatever the save (TFD504): its model is saved as built.
        model.fit(data.with_options(options), epochs=1, verbose=0)
    for extension in (".h5", ".keras"):
        path = os.path.join(directory, "model" + extension)
        failures = []
        for _ in range(ROUNDS):
            try:
                model.save(path)
            except Exception as exc:  # the probe reports whatever the shared path raises
                failures.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
        try:
            tf.keras.models.load_model(path)
            loads = "loads"
        except Exception as exc:  # a torn file is what the probe looks for
            loads = f"does not load ({type(exc).__name__})"
        print(
            f"{flavour} | worker {index} {extension}: {len(failures)} of {ROUNDS} saves raised"
            + (f" (first: {failures[0]})" if failures else "")
            + f"; the file left {loads}",
            flush=True,
        )


def main() -> None:
    """Two worker processes saving to one folder, under Keras 3 and under tf-keras."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1], int(sys.argv[2]), [int(p) for p in sys.argv[3].split(",")], sys.argv[4])
        return
    for flavour, legacy in (("keras 3", "0"), ("tf-keras", "1")):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", TF_USE_LEGACY_KERAS=legacy)
        with tempfile.TemporaryDirectory() as directory:
            ports = ",".join(map(str, free_ports(2)))
            workers = [
                subprocess.Popen(
                    [sys.executable, __file__, flavour, str(i), ports, directory], env=env, stderr=subprocess.DEVNULL
                )
                for i in range(2)
            ]
            for worker in workers:
                worker.wait()


if __name__ == "__main__":
    main()
