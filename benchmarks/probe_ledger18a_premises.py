"""Premises of the ledger18a verdicts (benchmarks/WILD.md): when a MultiWorkerMirroredStrategy made
after other TensorFlow operations raises, what the experimental TPUStrategy says when made, and
whether the TF 1 strategy methods of a book's custom loop still exist.

1. A MultiWorkerMirroredStrategy made after an operation has started the runtime is built (one
   replica) when no TF_CONFIG is set, and raises `RuntimeError: Collective ops must be configured
   at program startup` when TF_CONFIG names a cluster (two workers, with or without a ps job):
   the handson-ml2 chapter 19 cells that set TF_CONFIG first raise; a cell meant for a restarted
   kernel, or one that sets TF_CONFIG only after its strategy, does not. Each case runs in a
   fresh process, because the runtime start is per process.
2. `tf.distribute.experimental.TPUStrategy.__init__` logs that the class is deprecated and names
   `tf.distribute.TPUStrategy` (read from its source: no TPU here). A saved output holding that
   warning was therefore made by a TensorFlow that has the new name, whatever else it shows.
3. A TF 2 `tf.distribute.MirroredStrategy` still has the TF 1 methods `make_dataset_iterator`
   and `experimental_run` on 2.21 (the book's loop runs, outside the TF 2 API).

    python benchmarks/probe_ledger18a_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger18a), CPU:

    keras 3 | MWMS after an op, no TF_CONFIG: built, 1 replica
    keras 3 | MWMS after an op, 2 workers: RuntimeError: Collective ops must be configured at program startup
    keras 3 | MWMS after an op, 2 workers + ps: RuntimeError: Collective ops must be configured at program startup
    keras 3 | experimental TPUStrategy.__init__ warns and names tf.distribute.TPUStrategy: True
    keras 3 | MirroredStrategy has make_dataset_iterator / experimental_run: True / True
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from probing import free_ports, print_outcomes

CLUSTERS = {"none": None, "workers": ["worker"], "ps": ["worker", "ps"]}


def strategy_after_an_op(case: str) -> None:
    """In this (fresh) process: set the case's TF_CONFIG, run one op, then make the strategy."""
    jobs = CLUSTERS[case]
    if jobs is not None:
        ports = iter(free_ports(3))
        cluster = {"worker": [f"127.0.0.1:{next(ports)}", f"127.0.0.1:{next(ports)}"]}
        if "ps" in jobs:
            cluster["ps"] = [f"127.0.0.1:{next(ports)}"]
        os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 1}})
    import tensorflow as tf

    tf.constant(1.0) + 1.0  # the runtime starts here, as the notebooks' earlier cells start it
    try:
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        print(f"built, {strategy.num_replicas_in_sync} replica")
    except RuntimeError as exc:
        print(f"RuntimeError: {str(exc).splitlines()[0]}")


def in_a_fresh_process(case: str) -> str:
    """The last line the case printed in a process of its own (TensorFlow's logs go to stderr)."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="-1", TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("TF_CONFIG", None)
    done = subprocess.run(
        [sys.executable, __file__, "mwms", case], capture_output=True, text=True, env=env, check=False
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else f"no output (exit {done.returncode}): {done.stderr.strip()[-200:]}"


def premises() -> None:
    """Run the three premises (the strategy cases each in a new process)."""
    import inspect

    import tensorflow as tf
    from tensorflow.python.distribute import tpu_strategy

    def tpu_warning() -> str:
        source = inspect.getsource(tpu_strategy.TPUStrategy.__init__)
        return str("is deprecated" in source and "`tf.distribute.TPUStrategy`" in source)

    def tf1_methods() -> str:
        mirrored = tf.distribute.MirroredStrategy(["/cpu:0"])
        return f"{hasattr(mirrored, 'make_dataset_iterator')} / {hasattr(mirrored, 'experimental_run')}"

    print_outcomes(
        "keras 3",
        [
            ("MWMS after an op, no TF_CONFIG", lambda: in_a_fresh_process("none")),
            ("MWMS after an op, 2 workers", lambda: in_a_fresh_process("workers")),
            ("MWMS after an op, 2 workers + ps", lambda: in_a_fresh_process("ps")),
            ("experimental TPUStrategy.__init__ warns and names tf.distribute.TPUStrategy", tpu_warning),
            ("MirroredStrategy has make_dataset_iterator / experimental_run", tf1_methods),
        ],
    )


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "mwms":
        strategy_after_an_op(sys.argv[2])
    else:
        premises()
