"""Probe for TFD204: a shuffle before the shard point under MultiWorkerMirroredStrategy.

Starts 2 local workers on 127.0.0.1 (TF_CONFIG per process, free ports, the whole process group
killed at a timeout) that form one `MultiWorkerMirroredStrategy` and each read, for every
variant below, one epoch of `Dataset.range(16)` with a global batch of 4 (2 per worker). The
parent prints, per variant, the examples each worker received, how many examples both workers
received (duplicated) and how many neither did (dropped). Every variant runs twice (two
clusters) to show what changes from run to run, once under Keras 3 and once under tf-keras
(`TF_USE_LEGACY_KERAS=1`).

    python benchmarks/probe_shuffle_before_shard.py
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter

from probing import free_ports

WORKER = r"""
import json, os
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
task = resolver.task_id
N = 16
DATA = tf.data.experimental.AutoShardPolicy.DATA


def source():
    return tf.data.Dataset.range(N)


def local_examples(distributed_dataset):
    seen = []
    for batch in distributed_dataset:
        for local in strategy.experimental_local_results(batch):
            seen += local.numpy().tolist()
    return seen


def distributed(ds):
    return local_examples(strategy.experimental_distribute_dataset(ds))


def iterated(ds):
    return [int(x) for b in ds for x in b.numpy().tolist()]


def from_function(make):
    return local_examples(strategy.distribute_datasets_from_function(make))


PATTERN = os.path.join(os.environ["PROBE_FILES"], "part-*.tfrecord")


def records(files):
    # 8 files of 2 records each: file f holds 2f and 2f + 1.
    parse = lambda r: tf.io.parse_tensor(r, tf.int64)
    return files.interleave(tf.data.TFRecordDataset, cycle_length=1).map(parse).batch(4)


def variant(name, global_seed, build):
    tf.random.set_seed(global_seed)
    return name, build()


results = dict(
    [
        variant("AUTO, unseeded shuffle, no global seed", None, lambda: distributed(source().shuffle(N).batch(4))),
        variant("AUTO, shuffle(seed=7)", None, lambda: distributed(source().shuffle(N, seed=7).batch(4))),
        variant("AUTO, unseeded shuffle, tf.random.set_seed(42) on every worker", 42, lambda: distributed(source().shuffle(N).batch(4))),
        variant("AUTO, shuffle(seed=7), tf.random.set_seed(42 + task)", 42 + task, lambda: distributed(source().shuffle(N, seed=7).batch(4))),
        variant("AUTO, shuffle(seed=task)", None, lambda: distributed(source().shuffle(N, seed=task).batch(4))),
        variant(
            "DATA policy, unseeded shuffle",
            None,
            lambda: distributed(source().shuffle(N).batch(4).with_options(_options())),
        ),
        variant("AUTO, unseeded shuffle of whole batches (.batch(4).shuffle(4))", None, lambda: distributed(source().batch(4).shuffle(4))),
        variant("AUTO, unseeded shuffle, 2 epochs (repeat after shuffle)", None, lambda: distributed(source().shuffle(N).repeat(2).batch(4))),
        variant("AUTO, shuffle(seed=7), 2 epochs (repeat after shuffle)", None, lambda: distributed(source().shuffle(N, seed=7).repeat(2).batch(4))),
        variant("iterated, unseeded shuffle then .shard(2, task)", None, lambda: iterated(source().shuffle(N).shard(2, task).batch(2))),
        variant("iterated, .shard(2, task) then unseeded shuffle", None, lambda: iterated(source().shard(2, task).shuffle(N).batch(2))),
        variant(
            "dataset_fn: unseeded shuffle then shard(ctx)",
            None,
            lambda: from_function(lambda ctx: source().shuffle(N).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(2)),
        ),
        variant("AUTO over 8 TFRecord files, list_files' default (unseeded) shuffle", None, lambda: distributed(records(tf.data.Dataset.list_files(PATTERN)))),
        variant(
            "AUTO over 8 TFRecord files, unseeded .shuffle(8) of the file names",
            None,
            lambda: distributed(records(tf.data.Dataset.list_files(PATTERN, shuffle=False).shuffle(8))),
        ),
        variant(
            "dataset_fn: shard(ctx) then unseeded shuffle",
            None,
            lambda: from_function(lambda ctx: source().shard(ctx.num_input_pipelines, ctx.input_pipeline_id).shuffle(N).batch(2)),
        ),
    ]
)
print("RESULT " + json.dumps({"task": task, "keras": tf.keras.__name__, "results": results}), flush=True)
"""

OPTIONS = """
def _options():
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = DATA
    return options
"""


WRITE_FILES = r"""
import os, sys
import tensorflow as tf
for f in range(8):
    with tf.io.TFRecordWriter(os.path.join(sys.argv[1], f"part-{f}.tfrecord")) as writer:
        for r in range(2):
            writer.write(tf.io.serialize_tensor(tf.constant(2 * f + r, tf.int64)).numpy())
"""


def _cluster(legacy: str, files: str, timeout: float = 180.0) -> list[dict]:
    """Run the worker script on 2 local workers; their RESULT lines, by task."""
    ports = free_ports(2)
    cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
    script = WORKER.replace("def variant(", OPTIONS + "\n\ndef variant(")
    processes = []
    for index in range(2):
        env = dict(
            os.environ,
            TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}}),
            TF_USE_LEGACY_KERAS=legacy,
            PROBE_FILES=files,
            TF_CPP_MIN_LOG_LEVEL="2",
            CUDA_VISIBLE_DEVICES="",
        )
        processes.append(
            subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
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
        found.append(json.loads(lines[-1][len("RESULT "):]))
    return sorted(found, key=lambda r: r["task"])


def main() -> None:
    with tempfile.TemporaryDirectory() as files:
        subprocess.run([sys.executable, "-c", WRITE_FILES, files], check=True, capture_output=True, timeout=300)
        for label, legacy in (("Keras 3", "0"), ("tf-keras (TF_USE_LEGACY_KERAS=1)", "1")):
            _report(label, [_cluster(legacy, files), _cluster(legacy, files)])


def _report(label: str, runs: list[list[dict]]) -> None:
    """Per variant: what each worker read, and how many examples were duplicated or dropped."""
    sys.stdout.write(f"## {label} (tf.keras is {runs[0][0]['keras']})\n")
    for name in runs[0][0]["results"]:
        cells = []
        epochs = 2 if "2 epochs" in name else 1
        for run in runs:
            counts = Counter(x for worker in run for x in worker["results"][name])
            duplicated = sum(1 for x in range(16) if counts[x] > epochs)
            dropped = sum(1 for x in range(16) if counts[x] < epochs)
            cells.append(
                f"w0 {run[0]['results'][name]} w1 {run[1]['results'][name]}: "
                f"{duplicated} of 16 read more than {epochs}x, {dropped} fewer"
            )
        sys.stdout.write(f"- {name}\n  run 1: {cells[0]}\n  run 2: {cells[1]}\n")


if __name__ == "__main__":
    main()
