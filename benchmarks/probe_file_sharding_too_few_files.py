"""Probe for TFD205: file-based auto-sharding of an input with fewer files than workers.

Writes 4 TFRecord files (file f holds 100f .. 100f + 3) and one text file, then for each case
starts 2 local `MultiWorkerMirroredStrategy` workers on 127.0.0.1 (TF_CONFIG per process, free
ports, the whole process group killed at a timeout). Each worker distributes the case's dataset
(global batch 2) with `experimental_distribute_dataset` (or Keras `fit` where named) and prints
the values it read, or the first line of the error it raised. Cases:

- 1 TFRecord file with the default AUTO policy, with FILE, with DATA, with OFF, and with DATA
  set on the reader before `map` (where TFD205's fix puts it);
- 2 TFRecord files with AUTO; 3 files with AUTO;
- `list_files` of a pattern that matches 1 file, AUTO, and with DATA set on `list_files`;
- 1 text file (`TextLineDataset`) with AUTO;
- 1 file through `distribute_datasets_from_function` (no auto-sharding: the function shards);
- in-memory `from_tensor_slices` with AUTO (falls back to DATA);
- Keras `fit` on the 1-file dataset (AUTO) and with the DATA policy.

The sharding is tf.data's, so one Keras flavour (the default, Keras 3) is enough; the `fit`
cases also run under tf-keras (`TF_USE_LEGACY_KERAS=1`).

    python benchmarks/probe_file_sharding_too_few_files.py

Output on TensorFlow 2.21 (Keras 3.15.1, tf-keras 2.21), 2026-11-26 (first line of each error, cut at
200 characters; with 3 files the workers get 2 files and 1, and worker 1 then reads 0s that no file
holds; Keras 3 `fit` under MultiWorkerMirroredStrategy fails with the DATA policy too, for TFD504's
reason; tf-keras' `Graph execution error` is the same pair of errors, its first line only):

    - 1 file, AUTO (default)
      worker 0: InvalidArgumentError: {{function_node __wrapped__IteratorGetNextAsOptional_device_/job:worker/replica:0/task:0/device:CPU:0}} Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the
      worker 1: UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: Socket closed
    - 1 file, FILE
      worker 0: InvalidArgumentError: {{function_node __wrapped__IteratorGetNextAsOptional_device_/job:worker/replica:0/task:0/device:CPU:0}} Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the
      worker 1: UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: Socket closed
    - 1 file, DATA
      worker 0: [0, 2]
      worker 1: [1, 3]
    - 1 file, OFF
      worker 0: [0, 1, 2, 3]
      worker 1: [0, 1, 2, 3]
    - 1 file, DATA set on the source (the fix)
      worker 0: [0, 2]
      worker 1: [1, 3]
    - 1-element list, AUTO
      worker 0: InvalidArgumentError: {{function_node __wrapped__IteratorGetNextAsOptional_device_/job:worker/replica:0/task:0/device:CPU:0}} Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the
      worker 1: UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: Socket closed
    - 2 files, AUTO
      worker 0: [0, 1, 2, 3]
      worker 1: [100, 101, 102, 103]
    - 3 files, AUTO
      worker 0: [0, 1, 2, 3, 200, 201, 202, 203]
      worker 1: [100, 101, 102, 103, 0, 0, 0, 0]
    - list_files matching 1 file, AUTO
      worker 0: InvalidArgumentError: {{function_node __wrapped__IteratorGetNextAsOptional_device_/job:worker/replica:0/task:0/device:CPU:0}} Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the
      worker 1: UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: Socket closed
    - list_files matching 1 file, DATA set on list_files (the fix)
      worker 0: [0, 2]
      worker 1: [1, 3]
    - 1 text file, AUTO
      worker 0: InvalidArgumentError: {{function_node __wrapped__IteratorGetNextAsOptional_device_/job:worker/replica:0/task:0/device:CPU:0}} Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the
      worker 1: UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: recvmsg:Connection reset by peer
    - 1 file, distribute_datasets_from_function
      worker 0: [0, 2]
      worker 1: [1, 3]
    - in-memory from_tensor_slices, AUTO
      worker 0: [0, 2, 4, 6]
      worker 1: [1, 3, 5, 7]
    - Keras fit, 1 file, AUTO [Keras 3]
      worker 0: InvalidArgumentError: {{function_node __wrapped__IteratorGetNextAsOptional_device_/job:worker/replica:0/task:0/device:CPU:0}} Could not apply FILE based sharding: the dataset only has 1 file(s), which is not enough for the
      worker 1: UnavailableError: {{function_node __wrapped__CollectiveReduceV2_Nordering_token_1_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: Socket closed
    - Keras fit, 1 file, AUTO [tf-keras]
      worker 0: InvalidArgumentError: Graph execution error:
      worker 1: UnavailableError: Graph execution error:
    - Keras fit, 1 file, DATA [Keras 3]
      worker 0: ValueError: Attempt to convert a value (PerReplica:{
      worker 1: ValueError: Attempt to convert a value (PerReplica:{
    - Keras fit, 1 file, DATA [tf-keras]
      worker 0: trained, 1 epoch
      worker 1: trained, 1 epoch
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile

WORKER = r"""
import json, os, sys
import tensorflow as tf

case = sys.argv[1]
folder = os.environ["PROBE_FILES"]
resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
task = resolver.task_id
Policy = tf.data.experimental.AutoShardPolicy
parse = lambda r: tf.io.parse_tensor(r, tf.int64)
files = [os.path.join(folder, f"part-{f}.tfrecord") for f in range(4)]


def policy(ds, name):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = getattr(Policy, name)
    return ds.with_options(options)


def records(paths):
    return tf.data.TFRecordDataset(paths).map(parse)


def read(ds):
    seen = []
    for batch in strategy.experimental_distribute_dataset(ds.batch(2)):
        for local in strategy.experimental_local_results(batch):
            seen += [int(v) for v in local.numpy().reshape(-1).tolist()]
    return seen


def from_function():
    def make(ctx):
        ds = records(files[0]).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
        return ds.batch(ctx.get_per_replica_batch_size(2))
    seen = []
    for batch in strategy.distribute_datasets_from_function(make):
        for local in strategy.experimental_local_results(batch):
            seen += [int(v) for v in local.numpy().reshape(-1).tolist()]
    return seen


def fit(ds):
    keras = tf.keras
    with strategy.scope():
        model = keras.Sequential([keras.Input(shape=(1,)), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    xy = ds.map(lambda v: (tf.cast(tf.reshape(v, (1,)), tf.float32), tf.cast(tf.reshape(v, (1,)), tf.float32))).batch(2)
    history = model.fit(xy, epochs=1, verbose=0)
    return f"trained, {len(history.history['loss'])} epoch"


CASES = {
    "1 file, AUTO (default)": lambda: read(records(files[0])),
    "1 file, FILE": lambda: read(policy(records(files[0]), "FILE")),
    "1 file, DATA": lambda: read(policy(records(files[0]), "DATA")),
    "1 file, OFF": lambda: read(policy(records(files[0]), "OFF")),
    "1 file, DATA set on the source (the fix)": lambda: read(
        policy(tf.data.TFRecordDataset(files[0]), "DATA").map(parse)
    ),
    "1-element list, AUTO": lambda: read(records([files[0]])),
    "2 files, AUTO": lambda: read(records(files[:2])),
    "3 files, AUTO": lambda: read(records(files[:3])),
    "list_files matching 1 file, AUTO": lambda: read(
        tf.data.Dataset.list_files(os.path.join(folder, "part-0.*"), shuffle=False).interleave(tf.data.TFRecordDataset).map(parse)
    ),
    "list_files matching 1 file, DATA set on list_files (the fix)": lambda: read(
        policy(tf.data.Dataset.list_files(os.path.join(folder, "part-0.*"), shuffle=False), "DATA")
        .interleave(tf.data.TFRecordDataset).map(parse)
    ),
    "1 text file, AUTO": lambda: read(tf.data.TextLineDataset(os.path.join(folder, "lines.txt")).map(lambda s: tf.strings.to_number(s, tf.int64))),
    "1 file, distribute_datasets_from_function": from_function,
    "in-memory from_tensor_slices, AUTO": lambda: read(tf.data.Dataset.from_tensor_slices(tf.range(8, dtype=tf.int64))),
    "Keras fit, 1 file, AUTO": lambda: fit(records(files[0])),
    "Keras fit, 1 file, DATA": lambda: fit(policy(records(files[0]), "DATA")),
}
try:
    outcome = CASES[case]()
except Exception as exc:
    outcome = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"
print("RESULT " + json.dumps({"task": task, "outcome": outcome}), flush=True)
"""

WRITE_FILES = r"""
import os, sys
import tensorflow as tf
for f in range(4):
    with tf.io.TFRecordWriter(os.path.join(sys.argv[1], f"part-{f}.tfrecord")) as writer:
        for r in range(4):
            writer.write(tf.io.serialize_tensor(tf.constant(100 * f + r, tf.int64)).numpy())
with open(os.path.join(sys.argv[1], "lines.txt"), "w") as handle:
    handle.write("\n".join(str(v) for v in range(8)) + "\n")
"""

CASES = (
    "1 file, AUTO (default)",
    "1 file, FILE",
    "1 file, DATA",
    "1 file, OFF",
    "1 file, DATA set on the source (the fix)",
    "1-element list, AUTO",
    "2 files, AUTO",
    "3 files, AUTO",
    "list_files matching 1 file, AUTO",
    "list_files matching 1 file, DATA set on list_files (the fix)",
    "1 text file, AUTO",
    "1 file, distribute_datasets_from_function",
    "in-memory from_tensor_slices, AUTO",
    "Keras fit, 1 file, AUTO",
    "Keras fit, 1 file, DATA",
)


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def _cluster(case: str, legacy: str, files: str, timeout: float = 240.0) -> list[str]:
    """Run one case on 2 local workers; each worker's outcome, by task."""
    cluster = {"worker": [f"127.0.0.1:{p}" for p in _free_ports(2)]}
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
            subprocess.Popen([sys.executable, "-c", WORKER, case], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        )
    outcomes = []
    for index, process in enumerate(processes):
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # a hung collective ignores SIGTERM
            out, err = process.communicate()
            outcomes.append(f"hung (killed after {timeout:.0f} s)")
            continue
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        if lines:
            outcomes.append(json.loads(lines[-1][len("RESULT "):])["outcome"])
        else:
            last = [line for line in err.strip().splitlines() if "Error" in line] or err.strip().splitlines()[-1:] or ["?"]
            outcomes.append(f"process died, exit {process.returncode}: {last[-1][:200]}")
    return outcomes


def main() -> None:
    only = sys.argv[1:]
    with tempfile.TemporaryDirectory() as files:
        subprocess.run([sys.executable, "-c", WRITE_FILES, files], check=True, capture_output=True, timeout=300)
        for case in CASES:
            if only and not any(word in case for word in only):
                continue
            kerases = (("Keras 3", "0"), ("tf-keras", "1")) if case.startswith("Keras fit") else (("", "0"),)
            for label, legacy in kerases:
                outcomes = _cluster(case, legacy, files)
                name = f"{case} [{label}]" if label else case
                sys.stdout.write(f"- {name}\n  worker 0: {outcomes[0]}\n  worker 1: {outcomes[1]}\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
