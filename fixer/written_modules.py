"""`%%writefile NAME.py` cells of a notebook: the modules they write, analysed as modules.

Tutorials often keep the real training script in such cells (`%%writefile main.py`, then
`!python main.py` per worker). In the notebook itself the cell is not Python, so the combined
module of the notebook masks it; here each written module is checked on its own, built from its
cells in order (`-a`/`--append` adds to it, a plain `%%writefile` starts it again), and its
findings point at the cell and line that hold the code. They come without edits: a fix would
have to rewrite the cell, which ``distfix fix`` does only for the notebook's own Python.
"""

from __future__ import annotations

import shlex
from dataclasses import replace

from fixer.config import Config
from fixer.engine import check_source
from fixer.notebook import Notebook, combine_cells, to_cell
from fixer.types import Finding, Position

_APPEND = frozenset({"-a", "--append"})


def written_modules(data: dict) -> dict[str, list[tuple[int, str]]]:
    """Each ``.py`` file the notebook's cells write, with the (cell number, body) that make it."""
    modules: dict[str, list[tuple[int, str]]] = {}
    for number, cell in enumerate(data.get("cells", []), start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source  # checked by load_notebook
        first, _, body = source.partition("\n")
        target = _target(first)
        if target is None:
            continue
        name, append = target
        if not append:
            modules[name] = []
        modules.setdefault(name, []).append((number, body))
    return modules


def _target(first_line: str) -> tuple[str, bool] | None:
    """(file name, append?) of a ``%%writefile`` line writing a ``.py`` file, or None."""
    stripped = first_line.strip()
    if not stripped.startswith("%%writefile"):
        return None
    try:
        words = shlex.split(stripped[len("%%writefile"):])
    except ValueError:
        return None
    names = [w for w in words if w not in _APPEND]
    if len(names) != 1 or not names[0].endswith(".py"):
        return None
    return names[0], any(w in _APPEND for w in words)


def written_sources(data: dict) -> dict[str, str]:
    """The source of each ``.py`` file the notebook's cells write, by file name."""
    return {name: combine_cells(cells).combined for name, cells in written_modules(data).items()}


def check_written_modules(path: str, data: dict, config: Config, dependencies: set | None = None) -> list[Finding]:
    """Findings of every module the notebook writes, located in its cells, without edits. The
    files of the project their analysis read are added to ``dependencies`` when it is given
    (see ``FileResult.dependencies``)."""
    findings: list[Finding] = []
    for cells in written_modules(data).values():
        module = combine_cells(cells)
        result = check_source(path, module.combined, config)
        findings.extend(_in_cell(module, f) for f in result.findings)
        if dependencies is not None:
            dependencies.update(result.dependencies)
    return findings


def _in_cell(module: Notebook, finding: Finding) -> Finding:
    """The finding at its cell's line: the body starts on the cell's second line."""
    located = to_cell(module, finding)
    start = Position(located.start.line + 1, located.start.column)
    end = Position(located.end.line + 1, located.end.column)
    return replace(located, start=start, end=end, fix=None)
