"""``distfix fix --emit-launcher DIR``: launch scripts that carry a removed, hard-coded TF_CONFIG.

TFD601 takes the cluster out of the training script; these files put it back where it belongs,
in each task's environment: one shell script per task, exporting TF_CONFIG with that task's type
and index, then running the training script.

Only a cluster that TensorFlow would accept is written out: a TF_CONFIG that is not valid JSON,
has no cluster, or whose cluster has a TFD603 defect is refused with a warning (TFD601 keeps such
a TF_CONFIG in the script, so nothing is lost); a loopback address mixed with other hosts
(TFD602) is written with a warning.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from fixer.clusterspec import check_cluster, launcher_problem
from fixer.engine import build_context
from fixer.report import render

# The interpreter the launch scripts run by default: whatever `python3` is on the task's machine
# (the scripts run on other hosts, where this process's interpreter path means nothing).
DEFAULT_PYTHON = "python3"


@dataclass
class LauncherPlan:
    """The TF_CONFIGs of a script that can become launch scripts, and why others cannot."""

    configs: list[dict] = field(default_factory=list)
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
    for setter in tf_config_setters(ctx):
        value = tf_config_of(ctx, setter)
        if not isinstance(value, str):
            continue
        where = f"{path}:{ctx.range(setter.node).start.line}"
        problem = launcher_problem(value)
        if problem is not None:
            plan.warnings.append(f"{where}: no launch scripts for this TF_CONFIG (it stays in the script): {problem}")
            continue
        config = json.loads(value)
        plan.configs.append(config)
        for loopback in (p for p in check_cluster(config["cluster"]) if p.code == "TFD602"):
            plan.warnings.append(f"{where}: launch scripts written, but {loopback.message}")
    return plan


def _tasks(addresses: object) -> list[tuple[int, str]]:
    """``["a:1", "b:1"]`` or TensorFlow's sparse ``{0: "a:1", 3: "b:1"}`` as (index, address)."""
    if isinstance(addresses, list):
        return list(enumerate(addresses))
    if isinstance(addresses, dict):
        return sorted((int(k), v) for k, v in addresses.items())
    return []


def emit_launchers(script: Path, config: dict, out_dir: Path, python: str | None = None) -> list[Path]:
    """Write ``launch_<type>_<index>.sh`` for every task of ``config['cluster']``; returns the files.

    ``python`` is the interpreter the scripts run unless ``$PYTHON`` is set when they start
    (default ``python3``; pass ``sys.executable`` to pin this machine's interpreter). A cluster
    TensorFlow would reject raises ``ValueError`` and writes nothing.
    """
    problem = launcher_problem(json.dumps(config))
    if problem is not None:
        raise ValueError(f"cannot write launch scripts: {problem}")
    out_dir.mkdir(parents=True, exist_ok=True)
    # Relative to the launchers' folder, so the scripts keep working when the project is copied
    # to the hosts (or anywhere else) with the same layout.
    relative = os.path.relpath(script.resolve(), out_dir.resolve())
    cluster = config["cluster"]
    written = []
    for task_type, addresses in cluster.items():
        for index, address in _tasks(addresses):
            tf_config = json.dumps({"cluster": cluster, "task": {"type": task_type, "index": index}})
            target = out_dir / f"launch_{task_type}_{index}.sh"
            target.write_text(
                render(
                    "launcher/launch.sh.j2",
                    script=relative,
                    script_quoted=shlex.quote(relative),
                    task_type=task_type,
                    index=index,
                    address=address,
                    tf_config=shlex.quote(tf_config),
                    python=shlex.quote(python or DEFAULT_PYTHON),
                ),
                encoding="utf-8",
            )
            target.chmod(0o755)
            written.append(target)
    return written
