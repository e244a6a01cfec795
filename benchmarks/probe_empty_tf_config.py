"""Probe for TFD601, TFD603 and TFD105: what an empty TF_CONFIG (`"{}"`, `json.dumps({})`) means.

A launcher that starts its workers often sets its own `TF_CONFIG` to `"{}"` afterwards (or
deletes it) so that the launcher process itself runs as one local worker. The cases also
measure an unset TF_CONFIG, an empty string and a TF_CONFIG with a task but no cluster. Each case runs in a
fresh process with the TF_CONFIG text given (or none), optionally runs `tf.constant` first, then
reads `TFConfigClusterResolver()` and builds `MultiWorkerMirroredStrategy()` and all-reduces
(SUM) 1.0 from every replica. The printed line says how far it got. A last case builds
`tf.train.ClusterSpec({})` (what an evaluator outside the training cluster is given) and reads it
back directly and through `SimpleClusterResolver`.

    python benchmarks/probe_empty_tf_config.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-27:

    TF_CONFIG unset: resolver cluster {} task None/None; strategy: 1 replica(s), all-reduce = 1.0
    TF_CONFIG "{}": resolver cluster {} task None/None; strategy: 1 replica(s), all-reduce = 1.0
    TF_CONFIG "{}", tf.constant first: resolver cluster {} task None/None; strategy: 1 replica(s), all-reduce = 1.0
    TF_CONFIG unset, tf.constant first: resolver cluster {} task None/None; strategy: 1 replica(s), all-reduce = 1.0
    TF_CONFIG "" (empty string): failed: json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
    TF_CONFIG '{"task": {"type": "worker", "index": 0}}' (task only): resolver cluster {} task worker/0; strategy: 1 replica(s), all-reduce = 1.0

The last case, added 2026-11-27 (`--empty-spec` runs it alone), on the same TensorFlow 2.21:

    tf.train.ClusterSpec({}): as_dict {}, jobs [], bool False; SimpleClusterResolver cluster {}
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

# label -> (TF_CONFIG text or None for unset, run `tf.constant` before the strategy)
CASES: dict[str, tuple[str | None, bool]] = {
    "TF_CONFIG unset": (None, False),
    'TF_CONFIG "{}"': ("{}", False),
    'TF_CONFIG "{}", tf.constant first': ("{}", True),
    "TF_CONFIG unset, tf.constant first": (None, True),
    'TF_CONFIG "" (empty string)': ("", False),
    "TF_CONFIG '{\"task\": {\"type\": \"worker\", \"index\": 0}}' (task only)": (
        json.dumps({"task": {"type": "worker", "index": 0}}),
        False,
    ),
}


def run_case(label: str) -> None:
    """One case, in this process: TF_CONFIG is already in its environment."""
    import tensorflow as tf

    if CASES[label][1]:
        tf.constant(1.0) + 1.0
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    seen = f"resolver cluster {resolver.cluster_spec().as_dict()} task {resolver.task_type}/{resolver.task_id}"
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(1.0)), axis=None)
    print(f"{label}: {seen}; strategy: {strategy.num_replicas_in_sync} replica(s), all-reduce = {float(total)}", flush=True)


EMPTY_SPEC = "tf.train.ClusterSpec({})"


def run_empty_spec() -> None:
    """`tf.train.ClusterSpec({})`: whether it builds, and what it describes."""
    import tensorflow as tf

    spec = tf.train.ClusterSpec({})
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(spec)
    print(
        f"{EMPTY_SPEC}: as_dict {spec.as_dict()}, jobs {spec.jobs}, bool {bool(spec)}; "
        f"SimpleClusterResolver cluster {resolver.cluster_spec().as_dict()}",
        flush=True,
    )


def main() -> None:
    """Every case in its own process (TF_CONFIG is read and the runtime starts once per process)."""
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_case(sys.argv[2])
        return
    if sys.argv[1:] == ["--empty-spec"]:
        run_empty_spec()
        return
    base = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    base.pop("TF_CONFIG", None)
    for label, (config, _) in CASES.items():
        env = dict(base) if config is None else dict(base, TF_CONFIG=config)
        done = subprocess.run([sys.executable, __file__, "--case", label], env=env, capture_output=True, text=True, check=False)
        lines = [line for line in done.stdout.splitlines() if line.startswith(label)]
        errors = [line for line in done.stderr.splitlines() if "Error" in line and not line.startswith(("  ", "Traceback"))]
        print(lines[-1] if lines else f"{label}: failed: {errors[-1] if errors else done.stderr.strip()[-200:]}", flush=True)
    done = subprocess.run([sys.executable, __file__, "--empty-spec"], env=base, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith(EMPTY_SPEC)]
    print(lines[-1] if lines else f"{EMPTY_SPEC}: failed: {done.stderr.strip()[-200:]}", flush=True)


if __name__ == "__main__":
    main()
