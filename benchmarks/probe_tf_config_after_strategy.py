"""Probe for TFD605: TF_CONFIG assigned after MultiWorkerMirroredStrategy was created.

Two worker processes on free local ports. In the late case each worker creates
`MultiWorkerMirroredStrategy()` first and only then assigns its TF_CONFIG (a two-worker cluster);
in the control it assigns TF_CONFIG first. Each worker prints how many workers and replicas its
strategy has and what an all-reduce (SUM of 1.0 from every replica) returns.

    python benchmarks/probe_tf_config_after_strategy.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-26:

    late worker 1: strategy has 1 worker(s), 1 replica(s); all-reduce of 1.0 per replica = 1.0
    late worker 0: strategy has 1 worker(s), 1 replica(s); all-reduce of 1.0 per replica = 1.0
    control worker 0: strategy has 2 worker(s), 2 replica(s); all-reduce of 1.0 per replica = 2.0
    control worker 1: strategy has 2 worker(s), 2 replica(s); all-reduce of 1.0 per replica = 2.0
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from probing import free_ports


def run_worker(order: str, index: int, ports: list[int]) -> None:
    """One worker, in this process."""
    import tensorflow as tf

    config = {"cluster": {"worker": [f"localhost:{port}" for port in ports]}, "task": {"type": "worker", "index": index}}
    if order == "control":
        os.environ["TF_CONFIG"] = json.dumps(config)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    if order == "late":
        os.environ["TF_CONFIG"] = json.dumps(config)
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(1.0)), axis=None)
    workers = strategy.extended._num_workers  # no public attribute says how many workers joined
    print(
        f"{order} worker {index}: strategy has {workers} worker(s), {strategy.num_replicas_in_sync} replica(s); "
        f"all-reduce of 1.0 per replica = {float(total)}",
        flush=True,
    )


def main() -> None:
    """Both orders, two worker processes each."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1], int(sys.argv[2]), [int(port) for port in sys.argv[3].split(",")])
        return
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("TF_CONFIG", None)
    for order in ("late", "control"):
        ports = ",".join(map(str, free_ports(2)))
        workers = [
            subprocess.Popen([sys.executable, __file__, order, str(index), ports], env=env, stderr=subprocess.DEVNULL)
            for index in range(2)
        ]
        for worker in workers:
            worker.wait()


if __name__ == "__main__":
    main()
