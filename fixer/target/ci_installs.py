"""The TensorFlow releases a repository's CI installs with pip: `pip install tensorflow==2.9.0`,
`pip install intel-tensorflow==2.9.1`, `python -m pip install tensorflow-cpu==2.12.0` in a GitHub
Actions workflow (`.github/workflows/*.yml`), a composite action (`.github/actions/**/action.yml`),
`.travis.yml` or a CircleCI configuration (`.circleci/config.yml`, whose `run:` commands are read
as a workflow's). Each job tests the project's code on the release it installs (docs/target.md,
"Releases a CI installs"). The requirements files a CI installs (`pip install -r requirements.txt`)
are read too: the CI's Python then binds them (fixer/target/caps.py).

Read as text, line by line (``continuation.logical_lines``: a `run: |` block's commands are lines of
their own; a line's YAML prefix, `- ` or `run:`, is skipped by finding the pip command in it). Only
pins of one release count (`==2.9.0`, `~=2.9.0`): `tensorflow>=2.4` or a bare name installs today's
release, and a version from a variable (`tensorflow==${{ matrix.tf }}`) names nothing readable.
TensorFlow 1 pins are left out: a TF 1 job tests the project's TF 1 code, not its TF 2 code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from fixer.cache import Stamp, file_stamp
from fixer.target.continuation import logical_lines
from fixer.target.notebook import install_evidence
from fixer.target.small_files import read_small_text

if TYPE_CHECKING:
    from fixer.target.sources import Evidence

# A pip command anywhere in a line (after `- `, `run: `, `bash -c "`): up to a command separator.
_PIP = re.compile(r"(?:python3?\s+-m\s+)?pip3?\s+install\b[^;&|\"']*")
# `-r requirements.txt`, `--requirement=ci/requirements.txt`, `-rrequirements.txt`.
_REQUIREMENT_FILE = re.compile(r"(?:^|\s)(?:-r\s*|--requirement[=\s]+)(?P<file>[\w./-]+)")


def ci_install_files(folder: Path) -> list[Path]:
    """The CI configurations of ``folder`` (a repository root) that may install packages: its
    GitHub workflows and composite actions, `.travis.yml` and CircleCI's configuration."""
    github = folder / ".github"
    files = sorted((github / "workflows").glob("*.y*ml")) if (github / "workflows").is_dir() else []
    if (github / "actions").is_dir():
        files += sorted(p for p in (github / "actions").rglob("action.y*ml") if p.is_file())
    return files + [p for p in (folder / ".travis.yml", *circleci_files(folder)) if p.is_file()]


def circleci_files(folder: Path) -> tuple[Path, ...]:
    """Where CircleCI reads the configuration of the repository at ``folder`` (present or not)."""
    return (folder / ".circleci" / "config.yml", folder / ".circleci" / "config.yaml")


def ci_root(path: Path) -> Path:
    """The repository root a CI file of :func:`ci_install_files` belongs to (resolved)."""
    parts = path.resolve().parts
    for marker in (".github", ".circleci"):
        if marker in parts:
            last = len(parts) - 1 - parts[::-1].index(marker)  # the repository's own, not an outer folder's
            return Path(*parts[:last])
    return path.resolve().parent


# The pip commands of each CI file read, kept while the file is unchanged: every folder of a
# repository walks up to its root, and a monorepo's root may hold a hundred composite actions.
_COMMANDS: dict[str, tuple[Stamp, list[tuple[int, str]]]] = {}


def _pip_commands(path: Path) -> list[tuple[int, str]]:
    """The pip install commands of the CI file ``path``, with their lines."""
    stamp = file_stamp(str(path))
    known = _COMMANDS.get(str(path))
    if known is not None and known[0] == stamp:
        return known[1]
    text = read_small_text(path)
    commands = [
        (number, match.group(0))
        for number, line in (logical_lines(text) if text is not None and "install" in text else [])
        if not line.lstrip().startswith("#")
        for match in _PIP.finditer(line)
    ]
    _COMMANDS[str(path)] = (stamp, commands)
    return commands


def ci_installs(folder: Path) -> tuple[list[Evidence], list[Path]]:
    """The TensorFlow 2 releases the CI of ``folder`` installs by a one-release pin, in file order,
    and the files read."""
    files = ci_install_files(folder)
    found: dict[tuple[str, int, tuple[int, int]], Evidence] = {}
    for path in files:
        for number, command in _pip_commands(path):
            for e in install_evidence(command, str(path), number):
                if e.kind == "tensorflow" and not e.allowed.open_above and e.allowed.newest() >= (2, 0):
                    # `intel-tensorflow==2.7.0 tensorflow==2.7.0` on one line: one statement.
                    found.setdefault((e.path, e.line, e.allowed.newest()), e)
    return list(found.values()), files


def ci_installed_requirements(folder: Path) -> frozenset[str]:
    """The requirements files (paths relative to ``folder``, as written) the CI of ``folder``
    installs with `pip install -r`."""
    return frozenset(
        found.group("file").removeprefix("./")
        for path in ci_install_files(folder)
        for _, command in _pip_commands(path)
        for found in _REQUIREMENT_FILE.finditer(command)
    )
