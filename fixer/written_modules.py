"""`%%writefile NAME.py` cells of a notebook: the modules they write, analysed as modules.

Tutorials often keep the real training script in such cells (`%%writefile main.py`, then
`!python main.py` per worker). In the notebook itself the cell is not Python, so the combined
module of the notebook masks it; here each written module is checked on its own, built from its
cells in order (`-a`/`--append` adds to it, a plain `%%writefile` starts it again), and its
findings point at the cell and line that hold the code. They come without edits: a fix would
have to rewrite the cell, which ``distfix fix`` does only for the notebook's own Python.

A module that a cell launches after setting TF_CONFIG (`fixer/notebook_launches.py`) is a worker
of the launcher's cluster: it is checked as the script it writes (next to the notebook), not as
notebook code, so rules that treat a notebook kernel as a single worker (TFD105) judge it as
the worker it is.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixer.engine import check_source
from fixer.notebook import Notebook, combine_cells, to_cell
from fixer.notebook_cells import code_sources
from fixer.notebook_launches import launched_with_tf_config, launches
from fixer.types import Dependency, Finding, Position

if TYPE_CHECKING:
    from fixer.config import Config

_APPEND = frozenset({"-a", "--append"})


def modules_written_by(cells: list[tuple[int, str]]) -> dict[str, list[tuple[int, str]]]:
    """Each ``.py`` file that code cells given as (cell number, source) write, with the (cell
    number, body) that make it."""
    modules: dict[str, list[tuple[int, str]]] = {}
    for number, source in cells:
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
        words = shlex.split(stripped[len("%%writefile") :])
    except ValueError:
        return None
    names = [w for w in words if w not in _APPEND]
    if len(names) != 1 or not names[0].endswith(".py"):
        return None
    return names[0], any(w in _APPEND for w in words)


def written_modules(cells: list[tuple[int, str]]) -> dict[str, Notebook]:
    """Each ``.py`` file that code cells given as (cell number, source) write, combined from its
    cells, by file name: built once per notebook, for its imports (:func:`module_sources`) and
    its checks (:func:`check_written_cells`)."""
    return {name: combine_cells(parts) for name, parts in modules_written_by(cells).items()}


def module_sources(modules: dict[str, Notebook]) -> dict[str, str]:
    """The source of each written module, by file name (what `import NAME` reads)."""
    return {name: module.combined for name, module in modules.items()}


def check_written_modules(
    path: str, data: dict[str, Any], config: Config, dependencies: set[Dependency] | None = None
) -> list[Finding]:
    """Findings of every module the notebook writes, located in its cells, without edits. The
    files of the project their analysis read are added to ``dependencies`` when it is given
    (see ``FileResult.dependencies``)."""
    cells = code_sources(data)
    return check_written_cells(path, cells, written_modules(cells), config, dependencies)


def check_written_cells(
    path: str,
    cells: list[tuple[int, str]],
    modules: dict[str, Notebook],
    config: Config,
    dependencies: set[Dependency] | None = None,
) -> list[Finding]:
    """Findings of ``modules``, the modules that the notebook's code cells (cell number, source)
    write (:func:`written_modules`), located in their cells, without edits. ``path`` is the
    notebook's; the project files their analysis read are added to ``dependencies`` when it is given."""
    findings: list[Finding] = []
    started = launches(cells)
    for name, module in modules.items():
        # A worker of the launcher's cluster is the script it writes, not notebook code.
        checked_as = str(Path(path).parent / name) if launched_with_tf_config(name, started) else path
        result = check_source(checked_as, module.combined, config, tree=module.tree)
        findings.extend(_in_cell(module, f, path) for f in result.findings)
        if dependencies is not None:
            dependencies.update(result.dependencies)
    return findings


def _in_cell(module: Notebook, finding: Finding, path: str) -> Finding:
    """The finding at its cell's line in the notebook ``path``: the body starts on the cell's second line."""
    located = to_cell(module, finding)
    start = Position(located.start.line + 1, located.start.column)
    end = Position(located.end.line + 1, located.end.column)
    return replace(located, path=path, start=start, end=end, fix=None)
