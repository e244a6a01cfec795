"""Write the launchers of one cluster, of the kind the options name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.launcher import LauncherKind, LaunchOptions
from fixer.launcher.plan import refuse_unlaunchable
from fixer.launcher.ray_job import write_ray_job
from fixer.launcher.shell import write_shell_launchers
from fixer.launcher.tfjob import write_tfjob

if TYPE_CHECKING:
    from pathlib import Path

_DEFAULT_OPTIONS = LaunchOptions()  # frozen: one shared default is safe


def emit_launchers(
    script: Path, config: dict[str, object], out_dir: Path, options: LaunchOptions = _DEFAULT_OPTIONS
) -> list[Path]:
    """Write the launchers of one TF_CONFIG's cluster into ``out_dir``; returns the files.

    A cluster TensorFlow would reject, or a TFJob without an image, raises ``ValueError`` and
    writes nothing.
    """
    refuse_unlaunchable(config)
    if options.kind is LauncherKind.ray:
        return write_ray_job(script, config, out_dir)
    if options.kind is LauncherKind.tfjob:
        if not options.image:
            raise ValueError("a TFJob needs a container image")
        return write_tfjob(script, config, out_dir, options.image, list(options.command) if options.command else None)
    return write_shell_launchers(script, config, out_dir, options.python)
