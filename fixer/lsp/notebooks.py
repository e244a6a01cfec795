"""Notebook documents (``notebookDocument/*``) in the language server.

All Python code cells of a notebook are analysed together, as ``distfix check`` does for an
``.ipynb`` file: :func:`fixer.notebook.combine_cells` joins them (IPython magics and shell lines
masked in place) and the engine checks the combined module, through one incremental
:class:`fixer.incremental.DocumentParser` per notebook as for ``.py`` documents. Findings are mapped
back to their cell (:func:`fixer.notebook.to_cell`) and published per cell document URI, in that
cell's coordinates.

A fix is applied by the engine to the combined module and split back into cells
(:func:`fixer.notebook.split_cells`, which also restores masked magics), exactly as ``distfix fix``
does; each changed cell then gets one edit covering the text that differs. A fix that would move
code across a cell boundary is offered as advice only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types

from fixer.engine import check_source, fix_source
from fixer.incremental import DocumentParser
from fixer.lsp.convert import diagnostic, lsp_range_of_offsets, range_json, uri_path
from fixer.notebook import (
    Notebook,
    NotebookError,
    cell_errors,
    combine_cells,
    split_cells,
    to_cell,
    within_cells,
)
from fixer.textmap import TextMap, apply_edits
from fixer.tf.project_imports import written_modules_visible
from fixer.types import Applicability, Finding
from fixer.written_modules import check_written_cells, module_sources, written_modules

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from pygls.workspace import Workspace

    from fixer.config import Config

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")]
        )
    ],
    save=True,
)


@dataclass
class Analysis:
    """One analysis of a notebook: findings and diagnostics per code cell URI (every code cell has an entry)."""

    version: int
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    diagnostics: dict[str, list[types.Diagnostic]] = field(default_factory=dict)


def notebook_of(workspace: Workspace, cell_uri: str) -> types.NotebookDocument | None:
    """The open notebook a cell document belongs to, or None for any other document."""
    return workspace.get_notebook_document(cell_uri=cell_uri)


def _code_cells(workspace: Workspace, notebook: types.NotebookDocument) -> list[tuple[int, str]]:
    """(1-based cell number among all cells, cell URI) of the notebook's Python code cells."""
    cells = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.kind != types.NotebookCellKind.Code:
            continue
        document = workspace.text_documents.get(unquote(cell.document))
        if document is not None and document.language_id in (None, "python"):
            cells.append((number, cell.document))
    return cells


def _sources(workspace: Workspace, notebook: types.NotebookDocument) -> tuple[list[tuple[int, str]], dict[int, str]]:
    """(cell number, text) of the notebook's code cells, and each cell number's URI."""
    cells = _code_cells(workspace, notebook)
    return [(number, workspace.get_text_document(uri).source) for number, uri in cells], dict(cells)


def _combine(workspace: Workspace, notebook: types.NotebookDocument) -> tuple[Notebook, dict[int, str]]:
    sources, uris = _sources(workspace, notebook)
    return combine_cells(sources), uris


def cell_edits(combined: Notebook, uris: dict[int, str], fixed: str) -> dict[str, list[types.TextEdit]] | None:
    """Edits per cell URI that turn each cell into its part of ``fixed`` (None if a fix crosses cells)."""
    try:
        changed = split_cells(combined, fixed)
    except NotebookError:
        return None
    originals = {cell.number: cell.original for cell in combined.cells}
    return {uris[number]: [_changed_span(originals[number], new)] for number, new in changed.items()}


def _changed_span(old: str, new: str) -> types.TextEdit:
    """One edit replacing the part of ``old`` between the prefix and suffix it shares with ``new``."""
    prefix = len(os.path.commonprefix([old, new]))
    suffix = 0
    limit = min(len(old), len(new)) - prefix
    while suffix < limit and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    span = lsp_range_of_offsets(TextMap(old), prefix, len(old) - suffix)
    return types.TextEdit(range=span, new_text=new[prefix : len(new) - suffix])


def _fix_data(combined: Notebook, uris: dict[int, str], cell_uri: str, finding: Finding) -> dict[str, Any] | None:
    """A finding's fix for ``Diagnostic.data``; edits on other cells than its own carry their ``uri``."""
    fix = finding.fix
    if fix is None or fix.applicability is Applicability.DISPLAY_ONLY or not fix.edits:
        return None
    edits = cell_edits(combined, uris, apply_edits(combined.combined, list(fix.edits)))
    if not edits:
        return None
    return {
        "title": fix.title,
        "applicability": fix.applicability.label,
        "edits": [
            {"range": range_json(edit.range), "newText": edit.new_text, **({} if uri == cell_uri else {"uri": uri})}
            for uri, cell in edits.items()
            for edit in cell
        ],
    }


class OpenNotebooks:
    """What the language server keeps per open notebook, and the notebook requests it serves.

    It holds one incremental parser per notebook, the cell URIs each notebook last published
    diagnostics for (to clear cells that went away), and each cell's findings with the notebook
    version they were computed for (hover and code actions reuse them). The server passes its
    workspace on each call, and gives its configuration lookup and its way to publish diagnostics.
    """

    def __init__(
        self,
        config_for: Callable[[Path], Config],
        send: Callable[[types.PublishDiagnosticsParams], None],
    ) -> None:
        self._config_for = config_for
        self._send = send
        self._parsers: dict[str, DocumentParser] = {}
        self._cells: dict[str, set[str]] = {}
        self._published: dict[str, tuple[int, list[Finding]]] = {}

    def analyse(self, workspace: Workspace, notebook: types.NotebookDocument) -> Analysis:
        """Check the notebook's code cells together, and the modules its cells write, and build each
        cell's diagnostics."""
        sources, uris = _sources(workspace, notebook)
        combined = combine_cells(sources)
        path = uri_path(notebook.uri)
        config = self._config_for(path)
        parser = self._parsers.setdefault(notebook.uri, DocumentParser())  # re-parses only what an edit changed
        # `import mnist_setup` in a cell or in a written module reads the cell that writes it.
        modules = written_modules(sources)  # combined once: for the imports and for the checks
        with written_modules_visible(module_sources(modules)):
            result = check_source(str(path), combined.combined, config, parser=parser.parse)
            written = check_written_cells(str(path), sources, modules, config)
        analysis = Analysis(notebook.version, {uri: [] for uri in uris.values()}, {uri: [] for uri in uris.values()})
        textmaps = {cell.number: TextMap(cell.original) for cell in combined.cells}
        for in_cell in cell_errors(combined, str(path)):  # cells left out because they do not parse
            uri = uris[in_cell.cell]  # type: ignore[index]
            analysis.findings[uri].append(in_cell)
            analysis.diagnostics[uri].append(diagnostic(in_cell, textmaps[in_cell.cell]))  # type: ignore[index]
        for finding in result.findings:
            in_cell = to_cell(combined, finding)
            uri = uris[in_cell.cell]  # type: ignore[index]
            diag = diagnostic(in_cell, textmaps[in_cell.cell])  # type: ignore[index]
            diag.data = _fix_data(combined, uris, uri, finding)
            analysis.findings[uri].append(in_cell)
            analysis.diagnostics[uri].append(diag)
        for in_cell in written:  # already in cell coordinates, no fix
            uri = uris[in_cell.cell]  # type: ignore[index]
            analysis.findings[uri].append(in_cell)
            analysis.diagnostics[uri].append(diagnostic(in_cell, textmaps[in_cell.cell]))  # type: ignore[index]
        return analysis

    def publish(self, workspace: Workspace, notebook_uri: str) -> None:
        """Check an open notebook and publish each code cell's diagnostics; clear cells that went away."""
        notebook = workspace.get_notebook_document(notebook_uri=notebook_uri)
        if notebook is None:
            return
        analysis = self.analyse(workspace, notebook)
        for uri in self._cells.get(notebook_uri, set()) - set(analysis.diagnostics):
            self._clear(uri)
        for uri, diagnostics in analysis.diagnostics.items():
            self._published[uri] = (analysis.version, analysis.findings[uri])
            version = workspace.get_text_document(uri).version
            self._send(types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics))
        self._cells[notebook_uri] = set(analysis.diagnostics)

    def close(self, notebook_uri: str, cell_uris: list[str]) -> None:
        """Forget a closed notebook and clear the diagnostics of all its cells."""
        self._parsers.pop(notebook_uri, None)
        for uri in self._cells.pop(notebook_uri, set()) | set(cell_uris):
            self._clear(uri)

    def forget_findings(self) -> None:
        """Drop every cell's remembered findings (the configuration changed: they are stale)."""
        self._published.clear()

    def _clear(self, cell_uri: str) -> None:
        self._published.pop(cell_uri, None)
        self._send(types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=[]))

    def cell_findings(self, workspace: Workspace, cell_uri: str) -> tuple[str, list[Finding]]:
        """A cell's text and findings, reusing the published ones while the notebook is unchanged."""
        notebook = notebook_of(workspace, cell_uri)
        text = workspace.get_text_document(cell_uri).source
        if notebook is None:
            return text, []
        cached = self._published.get(cell_uri)
        if cached is not None and cached[0] == notebook.version:
            return text, cached[1]
        return text, self.analyse(workspace, notebook).findings.get(cell_uri, [])

    def fix_all_edit(self, workspace: Workspace, cell_uri: str) -> types.WorkspaceEdit | None:
        """The safe fixes of the cell's whole notebook, as ``distfix fix`` applies them, per cell URI."""
        notebook = notebook_of(workspace, cell_uri)
        if notebook is None:
            return None
        combined, uris = _combine(workspace, notebook)
        path = uri_path(notebook.uri)
        result = fix_source(str(path), combined.combined, self._config_for(path), unsafe=False, admits=within_cells)
        if result.fixed_text is None:
            return None
        edits = cell_edits(combined, uris, result.fixed_text)
        return types.WorkspaceEdit(changes=edits) if edits else None
