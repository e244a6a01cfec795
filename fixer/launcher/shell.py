"""``--launcher shell``: one shell script per task, exporting TF_CONFIG with that task's type and
index, then running the training script by its path relative to the script's own folder."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from fixer.launcher.plan import cluster_tasks, relative_path
from fixer.report import render

if TYPE_CHECKING:
    from pathlib import Path

# The interpreter the launch scripts run by default: whatever `python3` is on the task's machine
# (the scripts run on other hosts, where this process's interpreter path means nothing).
DEFAULT_PYTHON = "python3"


def write_shell_launchers(script: Path, config: dict[str, Any], out_dir: Path, python: str | None = None) -> list[Path]:
    """Write ``launch_<type>_<index>.sh`` for every task of ``config['cluster']``; returns the files.

    ``python`` is the interpreter the scripts run unless ``$PYTHON`` is set when they start
    (default ``python3``; pass ``sys.executable`` to pin this machine's interpreter).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    # Relative to the launchers' folder, so the scripts keep working when the project is copied
    # to the hosts (or anywhere else) with the same layout.
    relative = relative_path(script, out_dir)
    cluster = config["cluster"]
    written = []
    for task_type, index, address in cluster_tasks(cluster):
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
