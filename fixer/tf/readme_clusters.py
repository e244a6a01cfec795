"""The TF_CONFIGs a project's README tells users to set for a script: its run instructions.

A multi-worker tutorial with no launcher often writes its cluster in the README: one
`export TF_CONFIG='{"cluster": ...}'` line per machine, or the TF_CONFIG as a JSON object or a
Python dict in a code block. For TFD502 (fixer/tf/save_locations.py) such a cluster counts like
one the project sets in code, for the scripts the README is about. Tied conservatively, as the
target model reads a README (docs/target.md): only code lines count (fenced and indented blocks,
inline code) and prose lines that are commands (an optional shell prompt, then `export TF_CONFIG=`
or `python x.py`; other prose is not read), only a README in the script's folder or a folder above it within
the project root, and only for a script its code lines name (`python train.py`, a path that leads
to it), or, when they name no `.py` file at all, for the multi-worker scripts of the README's own
folder (not of its subfolders).
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from fixer.sources import SourceError, open_regular
from fixer.syntax import evaluate_literal
from fixer.target.markdown import prose_lines
from fixer.target.readme import README_NAME, code_lines
from fixer.tf.cluster_hosts import shell_tf_configs

if TYPE_CHECKING:
    from collections.abc import Iterator

_SCRIPT = re.compile(r"(?<![\w.-])(?P<path>[\w./-]*\w\.py)\b")
# The opening of a cluster object in a code block: `{"cluster"` / `{'cluster'`, spaces allowed.
_CLUSTER_OPENING = re.compile(r"""\{\s*["']cluster["']""")
# A command written as a prose line (no code block): an optional shell prompt (`$ `, `user@node0$ `,
# `root@host:~# `), then `export TF_CONFIG=` / `TF_CONFIG=` or `python x.py`. Other prose is not read.
_PROSE_COMMAND = re.compile(
    r"^\s*(?:[\w.-]+@[\w.-]+(?::\S*)?\s*[$#]:?\s*|[$#>]\s+)?(?:(?:export\s+)?TF_CONFIG=|python[\d.]*\s+\S*\.py\b)"
)
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
    for folder in folders_above(script, root):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            names = []
        for name in names:
            if README_NAME.match(name):
                yield os.path.join(folder, name)


def folders_above(script: str, root: str) -> Iterator[str]:
    """``script``'s folder and each folder above it, up to ``root`` (absolute paths)."""
    folder = os.path.dirname(script)
    while folder == root or folder.startswith(root.rstrip(os.sep) + os.sep):
        yield folder
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
    commands = [line for _, line, _ in prose_lines(text) if _PROSE_COMMAND.match(line)]
    return "\n".join([line for _, line in code_lines(text)] + commands)


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
    """The README's code lines name ``script``, or name no `.py` file and ``script`` is a
    multi-worker script of the README's own folder (the run instructions of that folder's code)."""
    named = {m.group("path").removeprefix("./") for m in _SCRIPT.finditer(code)}
    here = os.path.dirname(readme)
    if named:
        return any(os.path.normpath(os.path.join(here, path)) == script for path in named)
    return os.path.dirname(script) == here and multi_worker_script(script)


def multi_worker_script(script: str) -> bool:
    """The script's text names MultiWorkerMirroredStrategy."""
    try:
        with open_regular(script) as handle:
            data = handle.read(_MAX_BYTES)
    except (OSError, SourceError):
        return False
    return _MULTI_WORKER in data.decode("utf-8", errors="replace")
