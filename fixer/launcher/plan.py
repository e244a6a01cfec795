"""Which literal TF_CONFIGs of a script can be carried by launchers, and the tasks of a cluster.

Only a cluster that TensorFlow would accept is written out: a TF_CONFIG that is not valid JSON,
has no cluster, or whose cluster has a TFD603 defect is refused with a warning (TFD601 keeps such
a TF_CONFIG in the script, so nothing is lost); a loopback address mixed with other hosts
(TFD602) is written with a warning.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from fixer.clusterspec import check_cluster, is_no_cluster, launcher_problem
from fixer.engine import build_context


@dataclass
class LauncherPlan:
    """The TF_CONFIGs of a script that can become launchers, and why others cannot."""

    configs: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def launcher_plan(path: str, text: str) -> LauncherPlan:
    """Every literal TF_CONFIG the script sets, in source order: the usable ones, and a warning
    (``path:line: ...``) for each one that is refused or has a loopback problem."""
    from fixer.tf.tf_config_sources import tf_config_of, tf_config_setters

    plan = LauncherPlan()
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return plan
    ctx = build_context(path, text, module)
    for setter in tf_config_setters(ctx.tf):
        value = tf_config_of(ctx.tf, setter)
        if not isinstance(value, str) or is_no_cluster(value):
            continue  # `"{}"` clears the cluster (one local worker): nothing to launch, nothing lost
        where = f"{path}:{ctx.range(setter.node).start.line}"
        problem = launcher_problem(value)
        if problem is not None:
            plan.warnings.append(f"{where}: no launchers for this TF_CONFIG (it stays in the script): {problem}")
            continue
        config = json.loads(value)
        plan.configs.append(config)
        for loopback in (p for p in check_cluster(config["cluster"]) if p.code == "TFD602"):
            plan.warnings.append(f"{where}: launchers written, but {loopback.message}")
    return plan


def cluster_tasks(cluster: dict[str, Any]) -> list[tuple[str, int, str]]:
    """Every task of a cluster as (type, index, address), in the cluster's order: a task type's
    ``["a:1", "b:1"]`` or TensorFlow's sparse ``{0: "a:1", 3: "b:1"}``."""
    tasks: list[tuple[str, int, str]] = []
    for task_type, addresses in cluster.items():
        if isinstance(addresses, list):
            tasks.extend((task_type, index, address) for index, address in enumerate(addresses))
        elif isinstance(addresses, dict):
            tasks.extend(
                (task_type, index, address) for index, address in sorted((int(k), v) for k, v in addresses.items())
            )
    return tasks


def refuse_unlaunchable(config: dict[str, Any]) -> None:
    """Raise ``ValueError`` for a cluster TensorFlow would reject (nothing is written then)."""
    problem = launcher_problem(json.dumps(config))
    if problem is not None:
        raise ValueError(f"cannot write launchers: {problem}")


def project_root(script: Path, out_dir: Path) -> Path:
    """The folder that holds both the script and the launchers' folder: what a Ray job uploads as
    its working directory and what a container image is expected to hold as its working directory."""
    return Path(os.path.commonpath([script.resolve().parent, out_dir.resolve()]))


def relative_path(target: Path, start: Path) -> str:
    """``target`` relative to ``start`` with ``/`` separators: launchers never name a path of the
    machine that ran distfix, and they run on POSIX hosts and containers."""
    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
