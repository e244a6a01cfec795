"""The legacy-Keras switch a repository's CI sets: `TF_USE_LEGACY_KERAS=1` in a GitHub Actions
`env:` (workflow, job or step level), exported by a shell script the workflows run, in tox's
`setenv` or a Makefile. The project's code is tested, and so written, with `tf.keras` being
tf-keras (Keras 2) on TensorFlow 2.16 and later (docs/target.md, "The legacy-Keras switch of a
project's CI")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, legacy_evidence

if TYPE_CHECKING:
    from pathlib import Path

# `TF_USE_LEGACY_KERAS: "1"` (YAML), `export TF_USE_LEGACY_KERAS=1` (shell), `TF_USE_LEGACY_KERAS = 1`
# (tox's setenv), `export TF_USE_LEGACY_KERAS := 1` (make). A value that is not a word (`${{ matrix.x }}`,
# `$LEGACY`) is decided elsewhere: not read.
_SETTING = re.compile(r"""\bTF_USE_LEGACY_KERAS["']?\s*(?::=|\?=|[:=])\s*["']?(\w+)""")
# Folders of a repository root holding CI scripts, and the suffixes read there.
CI_FOLDERS = ((".github", "workflows"), (".github", "scripts"), ("ci",), (".ci",))
_SCRIPT_SUFFIXES = (".yml", ".yaml", ".sh")
CI_ROOT_FILES = (".travis.yml", ".gitlab-ci.yml", "tox.ini", "Makefile")


def ci_files(folder: Path) -> list[Path]:
    """The CI configurations and scripts of the repository root ``folder`` this module reads."""
    found: list[Path] = []
    for parts in CI_FOLDERS:
        scripts = folder.joinpath(*parts)
        if scripts.is_dir():
            found += sorted(p for p in scripts.iterdir() if p.suffix in _SCRIPT_SUFFIXES and p.is_file())
    return found + [p for p in (folder / name for name in CI_ROOT_FILES) if p.is_file()]


def _settings(text: str, path: str) -> list[Evidence]:
    """Every setting of the switch in ``text`` outside comment lines."""
    found: list[Evidence] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue  # `# export TF_USE_LEGACY_KERAS=1`: a setting someone turned off
        setting = _SETTING.search(line)
        if setting is not None:
            found.append(legacy_evidence(setting.group(1), path, number, line))
    return found


def ci_legacy_switch(folder: Path) -> tuple[Evidence | None, list[Path]]:
    """The switch the CI of ``folder`` sets, and the files read. None when it sets none, or when
    its settings disagree (one job on, another off: the project is tested on both Kerases)."""
    files = ci_files(folder)
    settings: list[Evidence] = []
    for path in files:
        text = read_small_text(path)
        if text is not None and "TF_USE_LEGACY_KERAS" in text:
            settings += _settings(text, str(path))
    if not settings or len({s.legacy for s in settings}) > 1:
        return None, files
    return settings[0], files
