"""Probe for TFD202 and TFD501: what each worker of a MultiWorkerMirroredStrategy reads and draws.

Two worker processes on 127.0.0.1 (free ports) form one cluster, twice: once with
`tf.random.set_seed(42)` on both workers, once with `42 + task index`. Each worker prints (Keras 3):

- TFD202: the elements its replica gets from `Dataset.range(8).batch(4)` (global batch 4) given to
  `experimental_distribute_dataset` with `AutoShardPolicy.OFF`, with the default AUTO policy, and
  from `distribute_datasets_from_function` batching `ctx.get_per_replica_batch_size(4)` without
  `.shard` and (the alternative) with `.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)`.
- TFD501: `tf.random.uniform([3])` drawn in the replica function of a compiled step, and the
  initial kernel of a `Dense(2)` built in the scope (is it broadcast from worker 0?).

Every wait is bounded: a worker not done 600 s after its start is killed.

    python benchmarks/probe_worker_inputs_and_seeds.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-27 (sorted; the workers print concurrently):

    same seed | worker 0 | TFD202 AutoShardPolicy.OFF: [0, 1, 2, 3, 4, 5, 6, 7]
    same seed | worker 1 | TFD202 AutoShardPolicy.OFF: [0, 1, 2, 3, 4, 5, 6, 7]
    same seed | worker 0 | TFD202 AUTO (default): [0, 1, 4, 5]
    same seed | worker 1 | TFD202 AUTO (default): [2, 3, 6, 7]
    same seed | worker 0 | TFD202 dataset_fn without .shard: [0, 1, 2, 3, 4, 5, 6, 7]
    same seed | worker 1 | TFD202 dataset_fn without .shard: [0, 1, 2, 3, 4, 5, 6, 7]
    same seed | worker 0 | TFD202 alternative: dataset_fn with .shard: [0, 2, 4, 6]
    same seed | worker 1 | TFD202 alternative: dataset_fn with .shard: [1, 3, 5, 7]
    same seed | worker 0 | TFD501 tf.random.uniform in the replica function: [[0.8355, 0.9163, 0.4946]]
    same seed | worker 1 | TFD501 tf.random.uniform in the replica function: [[0.8355, 0.9163, 0.4946]]
    same seed | worker 0 | TFD501 initial Dense kernel built in the scope: [-0.4871, -0.435, 0.609, 0.7369]
    same seed | worker 1 | TFD501 initial Dense kernel built in the scope: [-0.4871, -0.435, 0.609, 0.7369]
    per-worker seed | worker 0 | TFD202 AutoShardPolicy.OFF: [0, 1, 2, 3, 4, 5, 6, 7]
    per-worker seed | worker 1 | TFD202 AutoShardPolicy.OFF: [0, 1, 2, 3, 4, 5, 6, 7]
    per-worker seed | worker 0 | TFD202 AUTO (default): [0, 1, 4, 5]
    per-worker seed | worker 1 | TFD202 AUTO (default): [2, 3, 6, 7]
    per-worker seed | worker 0 | TFD202 dataset_fn without .shard: [0, 1, 2, 3, 4, 5, 6, 7]
    per-worker seed | worker 1 | TFD202 dataset_fn without .shard: [0, 1, 2, 3, 4, 5, 6, 7]
    per-worker seed | worker 0 | TFD202 alternative: dataset_fn with .shard: [0, 2, 4, 6]
    per-worker seed | worker 1 | TFD202 alternative: dataset_fn with .shard: [1, 3, 5, 7]
    per-worker seed | worker 0 | TFD501 tf.random.uniform in the replica function: [[0.8355, 0.9163, 0.4946]]
    per-worker seed | worker 1 | TFD501 tf.random.uniform in the replica function: [[0.9663, 0.8712, 0.1679]]
    per-worker seed | worker 0 | TFD501 initial Dense kernel built in the scope: [1.1857, 0.1437, 0.2715, 0.2798]
    per-worker seed | worker 1 | TFD501 initial Dense kernel built in the scope: [1.1857, 0.1437, 0.2715, 0.2798]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from probing import free_ports

WORKER_LIMIT_S = 600


def _elements(tf, strategy, distributed) -> list[int]:
    seen: list[int] = []
    for batch in distributed:
        for local in strategy.experimental_local_results(batch):
            seen.extend(int(x) for x in tf.reshape(local, [-1]).numpy())
    return seen


def run_worker(seeding: str, index: int) -> None:
    """One worker, in this process: TF_CONFIG is already in its environment."""
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    tf.random.set_seed(42 if seeding == "same seed" else 42 + index)
    say = lambda case, result: print(f"{seeding} | worker {index} | {case}: {result}", flush=True)  # noqa: E731

    off = tf.data.Options()
    off.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    data = tf.data.Dataset.range(8).batch(4)
    say("TFD202 AutoShardPolicy.OFF", _elements(tf, strategy, strategy.experimental_distribute_dataset(data.with_options(off))))
    say("TFD202 AUTO (default)", _elements(tf, strategy, strategy.experimental_distribute_dataset(data)))

    def per_worker(shard: bool):
        def dataset_fn(ctx):
            ds = tf.data.Dataset.range(8)
            if shard:
                ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
            return ds.batch(ctx.get_per_replica_batch_size(4))
        return strategy.distribute_datasets_from_function(dataset_fn)

    say("TFD202 dataset_fn without .shard", _elements(tf, strategy, per_worker(False)))
    say("TFD202 alternative: dataset_fn with .shard", _elements(tf, strategy, per_worker(True)))

    draws = tf.function(lambda: strategy.run(lambda: tf.random.uniform([3])))()
    say("TFD501 tf.random.uniform in the replica function",
        [[round(float(x), 4) for x in local.numpy()] for local in strategy.experimental_local_results(draws)])
    with strategy.scope():
        layer = tf.keras.layers.Dense(2)
        layer.build((None, 2))
    say("TFD501 initial Dense kernel built in the scope", [round(float(x), 4) for x in layer.kernel.numpy().ravel()])


def main() -> None:
    """Both seedings, two workers each."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1], int(sys.argv[2]))
        return
    base = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for seeding in ("same seed", "per-worker seed"):
        hosts = [f"127.0.0.1:{port}" for port in free_ports(2)]
        workers = []
        for index in range(2):
            env = dict(base, TF_CONFIG=json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker", "index": index}}))
            workers.append(subprocess.Popen([sys.executable, __file__, seeding, str(index)], env=env, stderr=subprocess.DEVNULL))
        for worker in workers:
            try:
                worker.wait(timeout=WORKER_LIMIT_S)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
                print(f"{seeding} | a worker was still running after {WORKER_LIMIT_S} s: killed", flush=True)


if __name__ == "__main__":
    main()
