"""``distfix fix --emit-launcher DIR``: launch scripts that carry a removed, hard-coded TF_CONFIG.

TFD601 takes the cluster out of the training script; these files put it back where it belongs,
in each task's environment: one shell script per task, exporting TF_CONFIG with that task's type
and index, then running the training script.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import libcst as cst

from fixer.engine import build_context
from fixer.report import render


def hardcoded_tf_configs(path: str, text: str) -> list[dict]:
    """The literal TF_CONFIG objects a script sets (what TFD601 removes), in source order."""
    from codemods.cluster.tf_config_sources import tf_config_of, tf_config_setters

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return []
    ctx = build_context(path, text, module)
    configs = []
    for setter in tf_config_setters(ctx):
        value = tf_config_of(ctx, setter)
        if isinstance(value, str):
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                continue
            if isinstance(parsed, dict) and isinstance(parsed.get("cluster"), dict):
                configs.append(parsed)
    return configs


def emit_launchers(script: Path, config: dict, out_dir: Path, python: str | None = None) -> list[Path]:
    """Write ``launch_<type>_<index>.sh`` for every task of ``config['cluster']``; returns the files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cluster = config["cluster"]
    written = []
    for task_type, addresses in cluster.items():
        if not isinstance(addresses, list):
            continue
        for index, address in enumerate(addresses):
            tf_config = json.dumps({"cluster": cluster, "task": {"type": task_type, "index": index}})
            target = out_dir / f"launch_{task_type}_{index}.sh"
            target.write_text(
                render(
                    "launcher/launch.sh.j2",
                    script=str(script.resolve()),
                    script_quoted=shlex.quote(str(script.resolve())),
                    task_type=task_type,
                    index=index,
                    address=address,
                    tf_config=shlex.quote(tf_config),
                    python=shlex.quote(python or sys.executable),
                ),
                encoding="utf-8",
            )
            target.chmod(0o755)
            written.append(target)
    return written
