"""Probe for TFD601 (noise22): a notebook's TF_CONFIG set after its strategy, then a kernel restart.

TFD601 leaves unreported a TF_CONFIG that a notebook cell sets after the strategy of its kernel
was made when a later cell asks for a kernel restart and nothing in between can read it. Two facts
carry that premise:

1. A strategy reads TF_CONFIG when it is made, not later (measured for two workers by
   `benchmarks/probe_tf_config_after_strategy.py`); this probe repeats the one-process half:
   `MultiWorkerMirroredStrategy()` made before TF_CONFIG names a two-worker cluster keeps one
   worker and one replica after it is set.
2. A restarted Jupyter kernel is a new process started from the kernel manager's environment:
   the `os.environ["TF_CONFIG"]` an earlier cell set is gone after `restart_kernel`.

Fact 1 runs in a kernel too (cells executed in order, as a notebook would), so both are measured
where the premise speaks of them:

    python benchmarks/probe_noise22_premises.py

Output on TensorFlow 2.21, jupyter_client 8.10.0 / ipykernel 7.4.0, 2026-11-28:

    before restart: strategy made first has 1 worker(s), 1 replica(s); TF_CONFIG now set: True
    after restart: TF_CONFIG in os.environ: False
"""

from __future__ import annotations

import os

from jupyter_client.manager import start_new_kernel

# Cells as a notebook would hold them: the strategy first, its TF_CONFIG below it (a two-worker
# cluster on unused local ports; nothing connects, since the strategy was already made).
_CELL = """
import json, os
import tensorflow as tf
strategy = tf.distribute.MultiWorkerMirroredStrategy()
os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["localhost:1", "localhost:2"]},
                                      "task": {"type": "worker", "index": 0}})
print(f"before restart: strategy made first has {strategy.extended._num_workers} worker(s), "
      f"{strategy.num_replicas_in_sync} replica(s); TF_CONFIG now set: {'TF_CONFIG' in os.environ}")
"""
_AFTER = """
import os
print(f"after restart: TF_CONFIG in os.environ: {'TF_CONFIG' in os.environ}")
"""


def _run(client: object, code: str) -> None:
    """Execute ``code`` in the kernel and print what it prints (stdout only)."""

    def show(message: dict) -> None:
        if message["msg_type"] == "stream" and message["content"]["name"] == "stdout":
            print(message["content"]["text"], end="", flush=True)
        elif message["msg_type"] == "error":
            print("error:", message["content"]["ename"], message["content"]["evalue"], flush=True)

    client.execute_interactive(code, output_hook=show, timeout=None)  # type: ignore[attr-defined]


def main() -> None:
    """The cell, a restart, and the check, in one python3 kernel."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("TF_CONFIG", None)
    manager, client = start_new_kernel(kernel_name="python3", env=env)
    try:
        _run(client, _CELL)
        manager.restart_kernel(now=True)
        client.wait_for_ready(timeout=None)
        _run(client, _AFTER)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
