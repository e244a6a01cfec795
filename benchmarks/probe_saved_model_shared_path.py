"""Probe for TFD502's `tf.saved_model.save(model, path)` case: two workers of one
MultiWorkerMirroredStrategy cluster export a model to the same directory, several rounds.

Each worker prints, per round, whether its export raised and what; the control exports to a
per-worker directory (`<dir>/workertemp_<index>` for the non-chief, as the TensorFlow tutorial
does).

    python benchmarks/probe_saved_model_shared_path.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-26:

    shared worker 0: 12 of 12 exports raised nothing; 12 of 12 chief directories load
    shared worker 1: 12 of 12 exports raised nothing; 12 of 12 chief directories load
    control worker 0: 12 of 12 exports raised nothing; 12 of 12 chief directories load
    control worker 1: 12 of 12 exports raised nothing; 12 of 12 chief directories load

So TFD502 does not report `tf.saved_model.save`: unlike `Checkpoint.save` and Keras saves, a
shared export directory showed no race here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from probing import free_ports

ROUNDS = 12


def run_worker(mode: str, index: int, ports: list[int], directory: str) -> None:
    """One worker, in this process."""
    os.environ["TF_CONFIG"] = json.dumps(
        {"cluster": {"worker": [f"localhost:{port}" for port in ports]}, "task": {"type": "worker", "index": index}}
    )
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        module = tf.Module()
        module.weights = [tf.Variable(tf.fill((512, 512), float(index + 1))) for _ in range(16)]
    outcomes = []
    for round_ in range(ROUNDS):
        path = os.path.join(directory, f"export_{round_}")
        if mode == "control" and index != 0:
            path = os.path.join(path, f"workertemp_{index}")
        try:
            tf.saved_model.save(module, path)
            outcomes.append("ok")
        except Exception as exc:  # the probe reports whatever the race raises
            outcomes.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:90]}")
    loadable = 0
    for round_ in range(ROUNDS):
        try:
            tf.saved_model.load(os.path.join(directory, f"export_{round_}"))
            loadable += 1
        except Exception:  # a torn export is what the probe looks for
            pass
    failures = [o for o in outcomes if o != "ok"]
    print(
        f"{mode} worker {index}: {ROUNDS - len(failures)} of {ROUNDS} exports raised nothing"
        + (f" (first error: {failures[0]})" if failures else "")
        + f"; {loadable} of {ROUNDS} chief directories load",
        flush=True,
    )


def main() -> None:
    """Both modes, two worker processes each."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1], int(sys.argv[2]), [int(p) for p in sys.argv[3].split(",")], sys.argv[4])
        return
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for mode in ("shared", "control"):
        with tempfile.TemporaryDirectory() as directory:
            ports = ",".join(map(str, free_ports(2)))
            workers = [
                subprocess.Popen([sys.executable, __file__, mode, str(i), ports, directory], env=env, stderr=subprocess.DEVNULL)
                for i in range(2)
            ]
            for worker in workers:
                worker.wait()


if __name__ == "__main__":
    main()
