"""Probe for TFD204: a list reordered by an unseeded shuffle before the dataset is built from it.

Starts 2 local workers on 127.0.0.1 (TF_CONFIG per process, free ports, the whole process group
killed at a timeout) that form one `MultiWorkerMirroredStrategy`. Each worker builds a list of
the 16 examples 0..15 and reorders it itself before `Dataset.from_tensor_slices(list)` (default
AUTO policy: a source not read from files is sharded by data), global batch 4. Variants:

- the list shuffled by `tf.random.shuffle` (unseeded), then the dataset's `shuffle(16, seed=42)`:
  TFD204's old rewrite, seeding only the dataset's shuffle;
- the same with `tf.random.shuffle(..., seed=42)` too (both seeded);
- the list shuffled in place by `np.random.shuffle` / `random.shuffle` (unseeded), no dataset
  shuffle: an evaluation set built the usual way;
- `model.evaluate` of that `np.random.shuffle`d evaluation set: a Keras metric sums `2 ** x` over
  the examples the workers read (all-reduced over both workers), so 65535 means each example was
  read exactly once; any other total means some were read twice and others not at all (under
  Keras 3 `evaluate` raises under this strategy, TFD504's premise: the error is printed).

Each worker prints the examples it received; the parent prints how many examples both workers
read (duplicated) and how many neither did (dropped). Runs twice under Keras 3 and twice under
tf-keras (`TF_USE_LEGACY_KERAS=1`).

    python benchmarks/probe_upstream_list_shuffle.py
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter

from probing import free_ports

WORKER = r"""
import json, random
import numpy as np
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
N = 16


def read(ds):
    seen = []
    for batch in strategy.experimental_distribute_dataset(ds):
        for local in strategy.experimental_local_results(batch):
            seen += local.numpy().tolist()
    return seen


def tf_shuffled(seed):
    return tf.random.shuffle(tf.range(N, dtype=tf.int64), seed=seed)


def np_shuffled():
    items = list(range(N))
    np.random.shuffle(items)
    return items


def py_shuffled():
    items = list(range(N))
    random.shuffle(items)
    return items


class PowerSum(tf.keras.metrics.Metric):
    # The sum of 2 ** x over the examples read: 65535 when each of 0..15 is read once.
    def __init__(self):
        super().__init__(name="power_sum")
        self.total = self.add_weight(name="total", shape=(), initializer="zeros", dtype="float64")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total.assign_add(tf.reduce_sum(tf.pow(tf.constant(2.0, tf.float64), tf.cast(y_true, tf.float64))))

    def result(self):
        return self.total


def evaluated(items):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse", metrics=[PowerSum()])
    x = tf.cast(tf.reshape(tf.constant(items), (-1, 1)), tf.float32)
    y = tf.constant(items, tf.int64)
    try:
        found = model.evaluate(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), verbose=0, return_dict=True)
    except Exception as exc:  # Keras 3's evaluate fails under this strategy (TFD504): say how
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
    return int(found["power_sum"])


results = {
    "list: tf.random.shuffle unseeded; dataset: shuffle(16, seed=42)":
        read(tf.data.Dataset.from_tensor_slices(tf_shuffled(None)).shuffle(N, seed=42).batch(4)),
    "list: tf.random.shuffle(seed=42); dataset: shuffle(16, seed=42)":
        read(tf.data.Dataset.from_tensor_slices(tf_shuffled(42)).shuffle(N, seed=42).batch(4)),
    "list: np.random.shuffle unseeded; dataset: no shuffle":
        read(tf.data.Dataset.from_tensor_slices(np_shuffled()).batch(4)),
    "list: random.shuffle unseeded; dataset: no shuffle":
        read(tf.data.Dataset.from_tensor_slices(py_shuffled()).batch(4)),
    "list: np.random.shuffle unseeded; model.evaluate (sum of 2**x, 65535 = each once)":
        evaluated(np_shuffled()),
}
print("RESULT " + json.dumps({"task": resolver.task_id, "keras": tf.keras.__name__, "results": results}), flush=True)
"""


def _cluster(legacy: str, timeout: float = 300.0) -> list[dict]:
    """Run the worker script on 2 local workers; their RESULT lines, by task."""
    cluster = {"worker": [f"127.0.0.1:{p}" for p in free_ports(2)]}
    processes = []
    for index in range(2):
        env = dict(
            os.environ,
            TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}}),
            TF_USE_LEGACY_KERAS=legacy,
            TF_CPP_MIN_LOG_LEVEL="2",
            CUDA_VISIBLE_DEVICES="",
        )
        processes.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        )
    found = []
    for process in processes:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # a hung collective ignores SIGTERM
            out, err = process.communicate()
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        if not lines:
            raise RuntimeError(err[-3000:])
        found.append(json.loads(lines[-1][len("RESULT ") :]))
    return sorted(found, key=lambda r: r["task"])


def _report(label: str, runs: list[list[dict]]) -> None:
    """Per variant: what each worker read and how many examples were duplicated or dropped."""
    sys.stdout.write(f"## {label} (tf.keras is {runs[0][0]['keras']})\n")
    for name in runs[0][0]["results"]:
        sys.stdout.write(f"- {name}\n")
        for number, run in enumerate(runs, 1):
            first, second = run[0]["results"][name], run[1]["results"][name]
            if isinstance(first, int | str):
                sys.stdout.write(f"  run {number}: worker 0 total {first}, worker 1 total {second}\n")
                continue
            counts = Counter([*first, *second])
            duplicated = sum(1 for x in range(16) if counts[x] > 1)
            dropped = sum(1 for x in range(16) if counts[x] == 0)
            sys.stdout.write(
                f"  run {number}: w0 {first} w1 {second}: {duplicated} of 16 read twice, {dropped} never\n"
            )


def main() -> None:
    for label, legacy in (("Keras 3", "0"), ("tf-keras (TF_USE_LEGACY_KERAS=1)", "1")):
        _report(label, [_cluster(legacy), _cluster(legacy)])


if __name__ == "__main__":
    main()
