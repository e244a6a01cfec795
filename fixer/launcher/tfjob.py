"""``--launcher tfjob``: a Kubeflow ``TFJob`` manifest with the removed cluster's shape.

One replica spec per task type of the removed cluster, with as many replicas as it had tasks of
that type. The training operator gives each replica its TF_CONFIG (its own type and index, the
others' service addresses), so the removed addresses themselves are not needed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fixer.launcher.plan import cluster_tasks, project_root, relative_path
from fixer.report import render

if TYPE_CHECKING:
    from pathlib import Path

# TF_CONFIG task types and the TFJob replica types the training operator knows them by.
REPLICA_TYPES = {"chief": "Chief", "worker": "Worker", "ps": "PS", "evaluator": "Evaluator"}

# Pods and services are named `<job>-<type>-<index>`: a DNS label of at most 63 characters.
_MAX_NAME = 40


@dataclass(frozen=True)
class ReplicaSpec:
    """One entry of ``spec.tfReplicaSpecs``."""

    replica_type: str
    replicas: int
    renumbered: bool  # the removed cluster's indices were not 0..n-1, and the operator's are


def job_name(script: Path) -> str:
    """A Kubernetes name from the script's name: lower case, ``-`` for anything else, starting with a letter."""
    name = re.sub(r"[^a-z0-9]+", "-", script.stem.lower()).strip("-")
    name = re.sub(r"^[^a-z]+", "", name)[:_MAX_NAME].rstrip("-")
    return name or "tfjob"


def replica_specs(cluster: dict[str, Any]) -> list[ReplicaSpec]:
    """The replica specs of a cluster, in its order of task types."""
    indices: dict[str, list[int]] = {}
    for task_type, index, _ in cluster_tasks(cluster):
        indices.setdefault(task_type, []).append(index)
    return [
        ReplicaSpec(REPLICA_TYPES[task_type], len(found), found != list(range(len(found))))
        for task_type, found in indices.items()
    ]


def write_tfjob(
    script: Path, config: dict[str, Any], out_dir: Path, image: str, command: list[str] | None = None
) -> list[Path]:
    """Write ``tfjob.yaml`` for ``config['cluster']``; returns the file.

    ``command`` defaults to ``python <script>``, the script's path relative to the folder that
    holds both it and ``out_dir`` (the image's working directory is expected to hold that folder).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    root = project_root(script, out_dir)
    script_path = relative_path(script, root)
    target = out_dir / "tfjob.yaml"
    target.write_text(
        render(
            "launcher/tfjob.yaml.j2",
            script=script_path,
            name=json.dumps(job_name(script)),  # quoted: `yes`, `on` or `null` would not be a string
            replicas=replica_specs(config["cluster"]),
            image=json.dumps(image),
            command=[json.dumps(part) for part in (command or ["python", script_path])],
        ),
        encoding="utf-8",
    )
    return [target]
