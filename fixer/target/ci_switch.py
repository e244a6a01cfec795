"""The legacy-Keras switch a repository's CI sets: `TF_USE_LEGACY_KERAS=1` in a GitHub Actions
`env:`, exported by a shell script the workflows run, in tox's `setenv` or a Makefile. The code the
CI runs with it is tested, and so written, with `tf.keras` being tf-keras (Keras 2) on TensorFlow
2.16 and later (docs/target.md, "The legacy-Keras switch of a project's CI").

A setting holds for the whole project when the CI runs the project's tests or build with it (a
workflow's or job's `env:`, a step that names no script, a build script's `export`, tox, make);
a step's `env:` or a command's own `TF_USE_LEGACY_KERAS=1 python x.py` that names scripts holds
for those scripts only."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fixer.target.small_files import read_small_text
from fixer.target.sources import Evidence, legacy_evidence
from fixer.target.yaml_lines import YamlLine, block, parent, yaml_lines

if TYPE_CHECKING:
    from pathlib import Path

# `TF_USE_LEGACY_KERAS: "1"` (YAML), `export TF_USE_LEGACY_KERAS=1` (shell), `TF_USE_LEGACY_KERAS = 1`
# (tox's setenv), `export TF_USE_LEGACY_KERAS := 1` (make). A value that is not a word (`${{ matrix.x }}`,
# `$LEGACY`) is decided elsewhere: not read.
_SETTING = re.compile(r"""\bTF_USE_LEGACY_KERAS["']?\s*(?::=|\?=|[:=])\s*["']?(\w+)""")
_SCRIPT = re.compile(r"""(?<![\w./-])([\w./-]+\.py)(?![\w])""")
# Folders of a repository root holding CI configurations and scripts, and the suffixes read there.
CI_FOLDERS = ((".github", "workflows"), (".github", "scripts"), ("ci",), (".ci",))
_SUFFIXES = (".yml", ".yaml", ".sh")
CI_ROOT_FILES = (".travis.yml", ".gitlab-ci.yml", "tox.ini", "Makefile")

Scoped = tuple[Evidence, tuple[str, ...]]  # a setting and the scripts it holds for (none: the project)


def ci_files(folder: Path) -> list[Path]:
    """The CI configurations and scripts of the repository root ``folder`` this module reads."""
    found: list[Path] = []
    for parts in CI_FOLDERS:
        scripts = folder.joinpath(*parts)
        if scripts.is_dir():
            found += sorted(p for p in scripts.iterdir() if p.suffix in _SUFFIXES and p.is_file())
    return found + [p for p in (folder / name for name in CI_ROOT_FILES) if p.is_file()]


def _step_text(lines: list[YamlLine], index: int) -> str | None:
    """The text of the workflow step (an item of a `steps:` list) that ``lines[index]`` sits in,
    or None when it sits in a job's or the workflow's own mapping."""
    above = parent(lines, index)
    while above is not None:
        container = parent(lines, above)
        if lines[above].item and container is not None and lines[container].key == "steps":
            return "\n".join(line.text for line in block(lines, above))
        above = container
    return None


def _settings(text: str, path: Path) -> list[Scoped]:
    """Every setting of the switch in ``text`` outside comment lines, with the scripts it is
    scoped to: those a workflow step runs, or those on the setting's own command line."""
    found: list[Scoped] = []
    workflow = path.suffix in (".yml", ".yaml") and path.name != ".travis.yml"
    structure = yaml_lines(text) if workflow else []
    indices = {line.number: index for index, line in enumerate(structure)}
    for number, line in enumerate(text.splitlines()):
        if line.lstrip().startswith("#"):
            continue  # `# export TF_USE_LEGACY_KERAS=1`: a setting someone turned off
        setting = _SETTING.search(line)
        if setting is None:
            continue
        step = _step_text(structure, indices[number + 1]) if workflow else None
        scripts = _SCRIPT.findall(step if step is not None else line)
        found.append((legacy_evidence(setting.group(1), str(path), number + 1, line), tuple(scripts)))
    return found


def ci_legacy_switch(folder: Path) -> tuple[Evidence | None, list[tuple[str, Evidence]], list[Path]]:
    """The switch the CI of ``folder`` sets for the whole project (None when it sets none, or
    when its settings disagree: one job on, another off, the project is tested on both), the
    scripts a step runs with its own setting (resolved paths that exist), and the files read."""
    files = ci_files(folder)
    settings: list[Scoped] = []
    for path in files:
        text = read_small_text(path)
        if text is not None and "TF_USE_LEGACY_KERAS" in text:
            settings += _settings(text, path)
    project = [evidence for evidence, scripts in settings if not scripts]
    switch = project[0] if project and len({e.legacy for e in project}) == 1 else None
    per_script: dict[str, list[Evidence]] = {}
    for evidence, scripts in settings:
        for script in scripts:
            candidate = (folder / script).resolve()
            if candidate.is_file():
                per_script.setdefault(str(candidate), []).append(evidence)
    scoped = [(script, found[0]) for script, found in per_script.items() if len({e.legacy for e in found}) == 1]
    return switch, scoped, files
