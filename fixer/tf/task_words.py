"""Identifiers that hold which worker of a cluster this process is.

Several analyses ask whether a value depends on the task: a dataset a builder shards
(fixer/tf/pipelines.py, fixer/tf/module_summary.py) or a path each worker writes
(fixer/tf/checkpoints.py). Each adds its own domain words to this common core.
"""

from __future__ import annotations

# Names a program gives this process's index in the cluster.
WORKER_INDEX_NAMES = frozenset({"task_id", "task_index", "worker_index", "worker_id", "rank"})
