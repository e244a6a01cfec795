"""Probe for TFD502/TFD503's per-worker path helper: what `strategy.cluster_resolver` is.

The helpers the fixes add (`templates/snippets/multiworker_paths.py.j2`) tell the chief from the
other workers by `strategy.cluster_resolver`. This probe builds, in one process without
TF_CONFIG, a `MultiWorkerMirroredStrategy` (first: it must come before other ops only under a
cluster TF_CONFIG), a `MirroredStrategy`, a `OneDeviceStrategy` and the default strategy, prints
each one's `cluster_resolver`, then calls the rendered `_worker_path` on each, and the same helper
without its `resolver is None` test (the helper before issue 28's fix).

    python benchmarks/probe_single_machine_cluster_resolver.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-27:

    MultiWorkerMirroredStrategy: cluster_resolver TFConfigClusterResolver; helper -> /tmp/out/model.keras
      old helper -> /tmp/out/model.keras
    MirroredStrategy: cluster_resolver None; helper -> /tmp/out/model.keras
      old helper -> AttributeError: 'NoneType' object has no attribute 'task_type'
    OneDeviceStrategy: cluster_resolver None; helper -> /tmp/out/model.keras
      old helper -> AttributeError: 'NoneType' object has no attribute 'task_type'
    default strategy: cluster_resolver None; helper -> /tmp/out/model.keras
      old helper -> AttributeError: 'NoneType' object has no attribute 'task_type'
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

os.environ.pop("TF_CONFIG", None)

import tensorflow as tf  # noqa: E402

from fixer.report import render  # noqa: E402

_NONE_TEST = "    if resolver is None:\n"
PATH = "/tmp/out/model.keras"


def _helper(source: str) -> Any:
    """The `_worker_path` function the given helper text defines."""
    namespace: dict[str, Any] = {"os": os, "tf": tf}
    exec(source, namespace)  # our own template, rendered: the code a fix adds to a script
    return namespace["_worker_path"]


def _call(helper: Any, strategy: Any) -> str:
    try:
        return str(helper(PATH, strategy))
    except Exception as error:  # noqa: BLE001 - the probe reports whatever the helper raises
        return f"{type(error).__name__}: {error}"


def main() -> None:
    """Print each strategy's cluster resolver and what the new and the old helper return."""
    current = render("snippets/multiworker_paths.py.j2", tf="tf", os="os")
    lines = current.splitlines(keepends=True)
    start = lines.index(_NONE_TEST)
    old = "".join(lines[:start] + lines[start + 2 :])  # without the `if resolver is None: return path`
    new_helper, old_helper = _helper(current), _helper(old)
    strategies = [
        ("MultiWorkerMirroredStrategy", tf.distribute.MultiWorkerMirroredStrategy()),
        ("MirroredStrategy", tf.distribute.MirroredStrategy()),
        ("OneDeviceStrategy", tf.distribute.OneDeviceStrategy("/cpu:0")),
        ("default strategy", tf.distribute.get_strategy()),
    ]
    for label, strategy in strategies:
        resolver = strategy.cluster_resolver
        kind = type(resolver).__name__ if resolver is not None else "None"
        print(f"{label}: cluster_resolver {kind}; helper -> {_call(new_helper, strategy)}", flush=True)
        print(f"  old helper -> {_call(old_helper, strategy)}", flush=True)


if __name__ == "__main__":
    main()
