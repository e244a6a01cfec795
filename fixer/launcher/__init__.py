"""``distfix fix --emit-launcher DIR --launcher shell|ray|tfjob``: launchers that carry a removed,
hard-coded TF_CONFIG.

TFD601 takes the cluster out of the training script; a launcher puts it back where it belongs,
in each task's environment, for the platform the job runs on: one shell script per task
(``shell``), a Ray job entry point (``ray``), or a Kubeflow TFJob manifest (``tfjob``). Every kind
names the script by a path relative to where it is written, never by a path of the machine that
ran distfix. This module holds the options, and imports nothing heavy: the CLI imports it at
start-up, and a warm ``check`` must not pay for libcst or jinja2. ``fixer.launcher.plan`` decides
which clusters can be launched, ``fixer.launcher.emit`` writes the files.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["LaunchOptions", "LauncherKind", "LauncherPlan", "launcher_plan"]


def __getattr__(name: str) -> object:
    """``LauncherPlan`` and ``launcher_plan`` from ``fixer.launcher.plan``, imported when first used."""
    if name in ("LauncherPlan", "launcher_plan"):
        from fixer.launcher import plan

        return getattr(plan, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class LauncherKind(str, enum.Enum):
    """The platforms ``--launcher`` writes for."""

    shell = "shell"
    ray = "ray"
    tfjob = "tfjob"


@dataclass(frozen=True)
class LaunchOptions:
    """How to write launchers: the kind, and what some kinds need."""

    kind: LauncherKind = LauncherKind.shell
    python: str | None = None  # shell: the interpreter (default python3; $PYTHON wins when set)
    image: str | None = None  # tfjob: the container image (required)
    command: tuple[str, ...] | None = None  # tfjob: the container command (default python <script>)
