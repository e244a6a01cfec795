"""Probe for TFD601, TFD602, TFD603 and TFD105: what a worker does with each kind of TF_CONFIG.

Each case starts its worker processes on 127.0.0.1 (free ports) with the TF_CONFIG text given to
each. A worker imports TensorFlow, optionally runs an op first (TFD105), builds
`MultiWorkerMirroredStrategy()` and all-reduces (SUM) 1.0 from every replica. The cases run one
after another; once all of a case's workers have imported TensorFlow they get 60 s, and a worker
still running then is sent SIGTERM, and if it is still alive 15 s later, SIGKILL. Each worker's line says how far it got: the all-reduce result, the
last line of its error, or "hung" with what it did with SIGTERM.

- TFD601: the same literal TF_CONFIG (task index 0) in both workers' script.
- TFD602: two tasks on one loopback address and port; a worker whose peer's address reaches no
  process (what a `localhost` entry is on another host: nobody there).
- TFD603: invalid JSON, no port, an index out of range, the index as the string "0"/"1".
- TFD105: `tf.constant` before the strategy with a two-worker TF_CONFIG, and with none.
- The alternative: each worker given its own index of a valid two-worker spec.

    python benchmarks/probe_cluster_specs.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-27:

    TFD601 same literal TF_CONFIG (index 0) in both workers | process 0: strategy not built; tensorflow.python.framework.errors_impl.UnknownError: Could not start gRPC server
    TFD601 same literal TF_CONFIG (index 0) in both workers | process 1: hung until the 60 s deadline; still alive 15 s after SIGTERM, killed; strategy not built
    TFD602 two tasks on one loopback port | process 0: hung until the 60 s deadline; still alive 15 s after SIGTERM, killed; strategy not built
    TFD602 two tasks on one loopback port | process 1: strategy not built; tensorflow.python.framework.errors_impl.UnknownError: Could not start gRPC server
    TFD602 peer address reaches no process | process 0: hung until the 60 s deadline; still alive 15 s after SIGTERM, killed; strategy not built
    TFD603 invalid JSON | process 0: strategy not built; json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 80 (char 79)
    TFD603 no port | process 0: strategy not built; tensorflow.python.framework.errors_impl.InvalidArgumentError: Could not parse port for local server from "127.0.0.1".
    TFD603 index out of range | process 0: strategy not built; ValueError: The `task_id` 5 exceeds the maximum id of worker.
    TFD603 index as a string | process 0: all-reduce of 1.0 per replica = 2.0
    TFD603 index as a string | process 1: all-reduce of 1.0 per replica = 2.0
    TFD105 tf.constant before the strategy, two-worker TF_CONFIG | process 0: strategy not built; RuntimeError: Collective ops must be configured at program startup
    TFD105 tf.constant before the strategy, two-worker TF_CONFIG | process 1: strategy not built; RuntimeError: Collective ops must be configured at program startup
    TFD105 tf.constant before the strategy, no TF_CONFIG | process 0: all-reduce of 1.0 per replica = 1.0
    alternative: one valid spec, each worker its own index | process 0: all-reduce of 1.0 per replica = 2.0
    alternative: one valid spec, each worker its own index | process 1: all-reduce of 1.0 per replica = 2.0
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probing import free_ports

DEADLINE_S = 60  # from the moment every worker of the case imported TensorFlow; the control forms in seconds
IMPORT_LIMIT_S = 600  # importing TensorFlow on a loaded machine is slow, but not this slow


def run_worker(ops_first: bool) -> None:
    """One worker, in this process: TF_CONFIG is already in its environment."""
    import tensorflow as tf

    print("imported", flush=True)
    if ops_first:
        tf.constant(1.0) + 1.0
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    print(f"strategy built ({strategy.num_replicas_in_sync} replicas)", flush=True)
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(1.0)), axis=None)
    print(f"all-reduce of 1.0 per replica = {float(total)}", flush=True)


def _spec(hosts: list[str], index: object) -> str:
    return json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker", "index": index}})


def _cases() -> list[tuple[str, bool, list[str | None]]]:
    """(label, op before the strategy, the TF_CONFIG text of each worker; None: no TF_CONFIG)."""
    def two() -> list[str]:
        return [f"127.0.0.1:{port}" for port in free_ports(2)]

    same, shared_port, lonely, strings, ok, ops = two(), free_ports(1)[0], two(), two(), two(), two()
    return [
        ("TFD601 same literal TF_CONFIG (index 0) in both workers", False, [_spec(same, 0)] * 2),
        ("TFD602 two tasks on one loopback port", False,
         [_spec([f"127.0.0.1:{shared_port}"] * 2, index) for index in (0, 1)]),
        ("TFD602 peer address reaches no process", False, [_spec(lonely, 0)]),
        ("TFD603 invalid JSON", False, ['{"cluster": {"worker": ["127.0.0.1:1"]}, "task": {"type": "worker", "index": 0}']),
        ("TFD603 no port", False, [_spec(["127.0.0.1"], 0)]),
        ("TFD603 index out of range", False, [_spec(two(), 5)]),
        ("TFD603 index as a string", False, [_spec(strings, str(index)) for index in (0, 1)]),
        ("TFD105 tf.constant before the strategy, two-worker TF_CONFIG", True, [_spec(ops, index) for index in (0, 1)]),
        ("TFD105 tf.constant before the strategy, no TF_CONFIG", True, [None]),
        ("alternative: one valid spec, each worker its own index", False, [_spec(ok, index) for index in (0, 1)]),
    ]


def _outcome(worker: subprocess.Popen, logs: Path, deadline: float) -> str:
    try:
        worker.wait(timeout=max(deadline - time.monotonic(), 0.1))
        hung = ""
    except subprocess.TimeoutExpired:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=15)
            hung = f"hung until the {DEADLINE_S} s deadline; SIGTERM ended it; "
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
            hung = f"hung until the {DEADLINE_S} s deadline; still alive 15 s after SIGTERM, killed; "
    out = (logs / "out").read_text().strip().splitlines()
    err = (logs / "err").read_text().strip().splitlines()
    errors = [line for line in err if "Error" in line and not line.startswith(("  ", "Traceback"))]
    reached = out[-1] if len(out) > 1 else "strategy not built"
    return f"{hung}{reached}" + (f"; {errors[-1][:160]}" if errors else "")


def _wait_for_imports(started: list[tuple[int, Path, subprocess.Popen]]) -> None:
    """Until every worker has printed "imported" or exited (or the import limit passed)."""
    limit = time.monotonic() + IMPORT_LIMIT_S
    while time.monotonic() < limit and not all(
        (logs / "out").read_text().strip() or worker.poll() is not None for _, logs, worker in started
    ):
        time.sleep(0.5)


def main() -> None:
    """Each case in turn, its workers started together."""
    if len(sys.argv) > 1:
        run_worker(sys.argv[1] == "ops-first")
        return
    base = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    base.pop("TF_CONFIG", None)
    with tempfile.TemporaryDirectory() as scratch:  # files, not pipes: a hung worker cannot block on a full pipe
        for number, (label, ops_first, configs) in enumerate(_cases()):
            started = []
            for index, config in enumerate(configs):
                logs = Path(scratch, f"{number}-{index}")
                logs.mkdir()
                env = dict(base) if config is None else dict(base, TF_CONFIG=config)
                argv = [sys.executable, __file__, "ops-first" if ops_first else "strategy-first"]
                with (logs / "out").open("w") as out, (logs / "err").open("w") as err:
                    started.append((index, logs, subprocess.Popen(argv, env=env, stdout=out, stderr=err)))
            _wait_for_imports(started)
            deadline = time.monotonic() + DEADLINE_S
            for index, logs, worker in started:
                print(f"{label} | process {index}: {_outcome(worker, logs, deadline)}", flush=True)


if __name__ == "__main__":
    main()
