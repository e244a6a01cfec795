"""A virtualenv a launcher ships with the job: a build script creates it (`virtualenv tf2-venv`,
`python3 -m venv tf2-venv`) and installs a TensorFlow into it (`pip3 install tensorflow==2.1.0`),
and a job script runs a file with that environment's python
(`--worker_launch_cmd "tf2-venv.zip/tf2-venv/bin/python mnist_tf2.py"`): that file runs on the
TensorFlow the environment holds, whatever else the folder says.

Shell scripts (`*.sh`) of the walk's folders are read as text, never executed.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from fixer.target.notebook import install_evidence
from fixer.target.small_files import read_small_text

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from fixer.target.sources import Evidence

# `virtualenv tf2-venv`, `python3 virtualenv-16.0.0/virtualenv.py tf2-venv`, `python3 -m venv tf2-venv`.
_CREATES = re.compile(r"(?:\bvirtualenv(?:\.py)?|-m\s+(?:venv|virtualenv))\s+(?P<args>[^;&|#]*)")
_VALUED = frozenset({"-p", "--python", "--prompt", "--extra-search-dir"})  # options taking the next word
# `<venv>/bin/python3 <script>.py`, the environment possibly inside an archive (`tf2-venv.zip/tf2-venv/`).
_LAUNCH = re.compile(r"(?P<venv>[\w.-]+)/bin/python[\d.]*\s+(?P<script>[\w./-]+\.py)\b")


def _shell_scripts(folder: Path, consult: Callable[[str], None]) -> list[tuple[str, str]]:
    """(path, text) of the shell scripts directly in ``folder``."""
    try:
        paths = sorted(e.path for e in os.scandir(folder) if e.name.endswith(".sh") and e.is_file())
    except OSError:
        return []
    found: list[tuple[str, str]] = []
    for path in paths:
        consult(path)
        text = read_small_text(path)
        if text is not None:
            found.append((path, text))
    return found


def _venv_installs(scripts: list[tuple[str, str]]) -> dict[str, list[Evidence]]:
    """The TensorFlow each virtualenv a script creates gets: the installs after its creation."""
    installs: dict[str, list[Evidence]] = {}
    for path, text in scripts:
        venv = None
        for number, line in enumerate(text.splitlines(), 1):
            created = _CREATES.search(line)
            if created is not None:
                venv = _created_folder(created.group("args").split()) or venv
                continue
            if venv is not None:
                named = [e for e in install_evidence(line, path, number) if e.kind in ("tensorflow", "tf-nightly")]
                installs.setdefault(venv, []).extend(e for e in named if not e.allowed.open_ended)
    return {venv: found for venv, found in installs.items() if found}


def _created_folder(words: list[str]) -> str | None:
    """The folder a `virtualenv` / `venv` command creates: its last positional argument."""
    folder, skip = None, False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _VALUED
        else:
            folder = word
    return folder


def venv_jobs(candidate: Path, folder: Path, consult: Callable[[str], None]) -> list[tuple[str, tuple[Evidence, ...]]]:
    """The scripts of ``folder`` that shell scripts in ``candidate`` launch with the python of a
    virtualenv those scripts fill with a TensorFlow, each with what was installed there."""
    scripts = _shell_scripts(candidate, consult)
    installs = _venv_installs(scripts)
    found: list[tuple[str, tuple[Evidence, ...]]] = []
    for _, text in scripts if installs else ():
        for launch in _LAUNCH.finditer(text):
            installed = installs.get(launch.group("venv"))
            script = folder / os.path.basename(launch.group("script"))
            if installed and script.is_file():
                found.append((str(script), tuple(installed)))
    return found
