"""The TF_CONFIGs a project's README tells users to set for a script: its run instructions.

A multi-worker tutorial with no launcher often writes its cluster in the README: one
`export TF_CONFIG='{"cluster": ...}'` line per machine, or the TF_CONFIG as a JSON object or a
Python dict in a code block. For TFD502 (fixer/tf/save_locations.py) such a cluster counts like
one the project sets in code, for the scripts the README is about. Tied conservatively, as the
target model reads a README (docs/target.md): only code lines count (fenced and indented blocks,
inline code; prose is not read), only a README in the script's folder or a folder above it within
the project root, and only for a script its code lines name (`python train.py`, a path that leads
to it), or, when they name no `.py` file at all, for the only multi-worker script of the README's
own folder.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from fixer.sources import SourceError, open_regular
from fixer.syntax import evaluate_literal
from fixer.target.readme import README_NAME, code_lines
from fixer.tf.cluster_hosts import shell_tf_configs

if TYPE_CHECKING:
    from collections.abc import Iterator

_SCRIPT = re.compile(r"(?<![\w.-])(?P<path>[\w./-]*\w\.py)\b")
# The opening of a cluster object in a code block: `{"cluster"` / `{'cluster'`, spaces allowed.
_CLUSTER_OPENING = re.compile(r"""\{\s*["']cluster["']""")
_MULTI_WORKER = "MultiWorkerMirroredStrategy"
_MAX_BYTES = 500_000


def readme_tf_configs(script: str, root: str) -> tuple[list[str], list[str]]:
    """The TF_CONFIG texts (JSON) the READMEs tied to ``script`` write, and those READMEs' paths
    (dependencies of the result; a README read but not tied is not one)."""
    script = os.path.abspath(script)
    configs: list[str] = []
    tied: list[str] = []
    for readme in _readmes_above(script, os.path.abspath(root)):
        code = _code_text(readme)
        if code is None:
            continue
        found = _tf_configs(code)
        if found and _about(script, readme, code):
            configs += found
            tied.append(readme)
    return configs, tied


def _readmes_above(script: str, root: str) -> Iterator[str]:
    """The READMEs of ``script``'s folder and of each folder above it up to ``root``."""
    folder = os.path.dirname(script)
    while folder == root or folder.startswith(root.rstrip(os.sep) + os.sep):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            names = []
        for name in names:
            if README_NAME.match(name):
                yield os.path.join(folder, name)
        if folder == root:
            return
        folder = os.path.dirname(folder)


def _code_text(path: str) -> str | None:
    try:
        with open_regular(path) as handle:
            data = handle.read(_MAX_BYTES + 1)
    except (OSError, SourceError):
        return None
    if len(data) > _MAX_BYTES:
        return None
    text = data.decode("utf-8", errors="replace")
    return "\n".join(line for _, line in code_lines(text))


def _tf_configs(code: str) -> list[str]:
    """Each TF_CONFIG the code lines give: quoted shell words after `TF_CONFIG=`, and each cluster
    object (`{"cluster": {...}, "task": {...}}`, JSON or a Python literal) as JSON text."""
    found = list(shell_tf_configs(code))
    shell = "\n".join(found)
    for match in _CLUSTER_OPENING.finditer(code):
        text = _balanced(code, match.start())
        if text is None or text in shell:
            continue  # unclosed, or the object of an `export TF_CONFIG='...'` already taken
        value = _literal(text)
        if isinstance(value, dict):
            found.append(json.dumps(value))
    return found


def _balanced(text: str, start: int) -> str | None:
    """The `{...}` that opens at ``start``, braces counted (strings hold none in a TF_CONFIG)."""
    depth = 0
    for position in range(start, len(text)):
        if text[position] == "{":
            depth += 1
        elif text[position] == "}":
            depth -= 1
            if depth == 0:
                return text[start : position + 1]
    return None


def _literal(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return evaluate_literal(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _about(script: str, readme: str, code: str) -> bool:
    """The README's code lines name ``script``, or name no `.py` file and ``script`` is the only
    multi-worker script of the README's folder."""
    named = {m.group("path").removeprefix("./") for m in _SCRIPT.finditer(code)}
    here = os.path.dirname(readme)
    if named:
        return any(os.path.normpath(os.path.join(here, path)) == script for path in named)
    if os.path.dirname(script) != here:
        return False
    return [os.path.join(here, name) for name in _multi_worker_scripts(here)] == [script]


def _multi_worker_scripts(folder: str) -> list[str]:
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        try:
            with open_regular(os.path.join(folder, name)) as handle:
                data = handle.read(_MAX_BYTES)
        except (OSError, SourceError):
            continue
        if _MULTI_WORKER in data.decode("utf-8", errors="replace"):
            found.append(name)
    return found
