"""``--launcher ray``: a Ray job entry point that runs the training script unchanged as the tasks
of the removed cluster, one Ray actor per task, each with a TF_CONFIG built from its node's IP and a
free port (the entry point is rendered from ``templates/launcher/ray_job.py.j2``, with the retried
local start of ``fixer.ray_start``; distfix itself never imports Ray)."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from fixer.launcher.plan import cluster_tasks, project_root, relative_path
from fixer.ray_start import launcher_source
from fixer.report import render

if TYPE_CHECKING:
    from pathlib import Path


def cluster_shape(cluster: dict[str, Any]) -> str:
    """``1 chief, 2 workers``: how many tasks of each type."""
    counts = Counter(task_type for task_type, _, _ in cluster_tasks(cluster))
    return ", ".join(
        f"{count} {task_type}{'s' * (count != 1 and task_type != 'ps')}" for task_type, count in counts.items()
    )


def write_ray_job(script: Path, config: dict[str, Any], out_dir: Path) -> list[Path]:
    """Write ``ray_job.py`` for ``config['cluster']``; returns the file."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "ray_job.py"
    root = project_root(script, out_dir)
    cluster = config["cluster"]
    target.write_text(
        render(
            "launcher/ray_job.py.j2",
            script=relative_path(script, root),
            script_from_here=repr(relative_path(script, out_dir)),
            entry=relative_path(target, root),
            root_from_here=relative_path(root, out_dir),
            task_count=len(cluster_tasks(cluster)),
            shape=cluster_shape(cluster),
            # JSON of strings, lists and dicts is also a Python literal.
            cluster=json.dumps(cluster),
            ray_start=launcher_source(),
        ),
        encoding="utf-8",
    )
    return [target]
