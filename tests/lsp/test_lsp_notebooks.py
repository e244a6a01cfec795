"""Notebook documents in the language server, driven over stdio by pytest-lsp as a real client.

The client announces notebook synchronization (as VS Code does); every expectation is compared
with what ``distfix check`` / ``distfix fix`` give for the same notebook written as ``.ipynb``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import pytest_lsp
from lsp_edits import SERVER, apply, code_actions, published, start_session
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

CELL_1 = "%matplotlib inline\nimport tensorflow as tf\n\nstrategy = tf.distribute.MirroredStrategy()\n"
CELL_2 = "## The model\nBuilt *outside* the scope: a finding.\n"  # markdown
CELL_3 = (
    "batch_size = 64\n"
    "model = tf.keras.Sequential([tf.keras.layers.Dense(10)])\n"
    "with strategy.scope():\n"
    '    model.compile(optimizer="adam", loss="mse")\n'
)
CELL_4 = "!pip list\ndist = strategy.experimental_distribute_datasets_from_function(make_dataset)\nmodel.fit(dist, epochs=2)"
CELLS = [("code", CELL_1), ("markdown", CELL_2), ("code", CELL_3), ("code", CELL_4)]


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    capabilities = pytest_lsp.client_capabilities("visual-studio-code")
    capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities(execution_summary_support=True)
    )
    result = await start_session(lsp_client, tmp_path_factory.mktemp("workspace"), capabilities)
    lsp_client.sync = result.capabilities.notebook_document_sync
    yield
    await lsp_client.shutdown_session()


class Notebook:
    """A notebook as the client holds it: cell URIs, kinds and texts, and a version."""

    def __init__(self, client: LanguageClient, name: str, cells: list[tuple[str, str]]) -> None:
        self.client = client
        self.path = client.root / name
        self.uri = self.path.as_uri()
        self.version = 1
        self.counter = 0
        self.cells: list[tuple[str, str]] = []  # (uri, kind)
        self.texts: dict[str, str] = {}
        for kind, text in cells:
            self.cells.append((self._new_uri(), kind))
            self.texts[self.cells[-1][0]] = text

    def _new_uri(self) -> str:
        self.counter += 1
        return f"vscode-notebook-cell:{self.path.as_posix()}#W{self.counter}sZmlsZQ%3D%3D"

    def code_uris(self) -> list[str]:
        return [uri for uri, kind in self.cells if kind == "code"]

    def _cell(self, uri: str, kind: str) -> types.NotebookCell:
        code = types.NotebookCellKind.Code if kind == "code" else types.NotebookCellKind.Markup
        return types.NotebookCell(kind=code, document=uri)

    def _item(self, uri: str, kind: str) -> types.TextDocumentItem:
        return types.TextDocumentItem(uri, "python" if kind == "code" else "markdown", 1, self.texts[uri])

    def open(self) -> None:
        self.client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=self.uri, notebook_type="jupyter-notebook", version=self.version,
                    cells=[self._cell(uri, kind) for uri, kind in self.cells],
                ),
                cell_text_documents=[self._item(uri, kind) for uri, kind in self.cells],
            )
        )

    def _change(self, cells: types.NotebookDocumentCellChanges) -> None:
        self.version += 1
        self.client.notebook_document_did_change(
            types.DidChangeNotebookDocumentParams(
                notebook_document=types.VersionedNotebookDocumentIdentifier(self.version, self.uri),
                change=types.NotebookDocumentChangeEvent(cells=cells),
            )
        )

    def edit(self, uri: str, edits: list[types.TextEdit]) -> None:
        """Apply edits to a cell here and send them as the cell's content changes."""
        self.texts[uri] = apply(self.texts[uri], edits)
        changes = [
            types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
            for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
        ]
        identifier = types.VersionedTextDocumentIdentifier(version=self.version + 1, uri=uri)
        self._change(types.NotebookDocumentCellChanges(text_content=[types.NotebookDocumentCellContentChanges(identifier, changes)]))

    def remove(self, uri: str) -> None:
        index = [u for u, _ in self.cells].index(uri)
        del self.cells[index]
        array = types.NotebookCellArrayChange(start=index, delete_count=1, cells=[])
        self._change(
            types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(array, did_close=[types.TextDocumentIdentifier(uri)])
            )
        )

    def insert(self, index: int, text: str) -> str:
        uri = self._new_uri()
        self.cells.insert(index, (uri, "code"))
        self.texts[uri] = text
        array = types.NotebookCellArrayChange(start=index, delete_count=0, cells=[self._cell(uri, "code")])
        self._change(
            types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(array, did_open=[self._item(uri, "code")])
            )
        )
        return uri

    def move(self, uri: str, index: int) -> None:
        """Move a cell, sent as a structure change that replaces the whole cell array."""
        entry = next(cell for cell in self.cells if cell[0] == uri)
        self.cells.remove(entry)
        self.cells.insert(index, entry)
        cells = [self._cell(u, kind) for u, kind in self.cells]
        array = types.NotebookCellArrayChange(start=0, delete_count=len(cells), cells=cells)
        self._change(types.NotebookDocumentCellChanges(structure=types.NotebookDocumentCellChangeStructure(array)))

    def to_markdown(self, uri: str) -> None:
        """Turn a code cell into a markdown one (a cell data change)."""
        self.cells = [(u, "markdown" if u == uri else kind) for u, kind in self.cells]
        cell = types.NotebookCell(kind=types.NotebookCellKind.Markup, document=uri)
        self._change(types.NotebookDocumentCellChanges(data=[cell]))

    def close(self) -> None:
        self.client.notebook_document_did_close(
            types.DidCloseNotebookDocumentParams(
                notebook_document=types.NotebookDocumentIdentifier(self.uri),
                cell_text_documents=[types.TextDocumentIdentifier(uri) for uri, _ in self.cells],
            )
        )

    def ipynb(self) -> Path:
        """The notebook as an ``.ipynb`` file next to it, for the command line."""
        cells = [
            {"cell_type": kind, "id": f"c{n}", "metadata": {}, "source": self.texts[uri],
             **({"execution_count": None, "outputs": []} if kind == "code" else {})}
            for n, (uri, kind) in enumerate(self.cells)
        ]
        self.path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n")
        return self.path


def cli_findings(distfix, notebook: Notebook) -> set[tuple[int, int, int, str]]:
    """(cell index, 0-based line, 0-based column, code) of ``distfix check`` on the notebook file."""
    output = distfix("check", str(notebook.ipynb())).stdout
    return {
        (int(cell) - 1, int(line) - 1, int(column) - 1, code)
        for cell, line, column, code in re.findall(r"\.ipynb:cell (\d+):(\d+):(\d+): (TFD\d+)", output)
    }


def cli_fixed_cells(distfix, notebook: Notebook, *flags: str) -> list[str]:
    """The cell sources ``distfix fix --write`` gives for the notebook file."""
    path = notebook.ipynb()
    distfix("fix", "--write", *flags, str(path))
    return [cell["source"] for cell in json.loads(path.read_text())["cells"]]


def as_found(notebook: Notebook, diagnostics: dict[str, list[types.Diagnostic]]) -> set[tuple[int, int, int, str]]:
    index = {uri: n for n, (uri, _) in enumerate(notebook.cells)}
    return {(index[uri], d.range.start.line, d.range.start.character, d.code) for uri, ds in diagnostics.items() for d in ds}


async def test_the_server_advertises_jupyter_notebooks_with_python_cells(client: LanguageClient):
    [selector] = client.sync.notebook_selector
    assert selector.notebook == "jupyter-notebook"
    assert [cell.language for cell in selector.cells] == ["python"]
    assert client.sync.save is True


async def test_cells_are_analysed_together_and_published_per_cell(client: LanguageClient, distfix):
    notebook = Notebook(client, "train.ipynb", CELLS)
    notebook.open()
    first, third, fourth = notebook.code_uris()
    diagnostics = await published(client, notebook.code_uris())
    assert diagnostics[first] == []
    # cell 3 uses `strategy` and cell 4 uses `model`, both defined in earlier cells; the magics
    # (`%matplotlib inline`, `!pip list`) neither break parsing nor shift lines.
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diagnostics[third]] == [("TFD101", 1, 8)]
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diagnostics[fourth]] == [("TFD401", 1, 16)]
    assert as_found(notebook, diagnostics) == cli_findings(distfix, notebook)
    assert notebook.cells[1][0] not in client.diagnostics, "a markdown cell gets no diagnostics"
    renamed = diagnostics[fourth][0]
    assert renamed.range.end.character == 62 and renamed.data["applicability"] == "safe"
    assert all("uri" not in edit for edit in renamed.data["edits"])
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(third), diagnostics[third][0].range.start))
    assert hover.contents.value.startswith("# TFD101 created-outside-strategy-scope")


async def test_quick_fixes_on_cells_give_what_distfix_fix_gives(client: LanguageClient, distfix):
    notebook = Notebook(client, "train.ipynb", CELLS)
    notebook.open()
    _, third, fourth = notebook.code_uris()
    diagnostics = await published(client, notebook.code_uris())
    for uri in (fourth, third):
        [diag] = diagnostics[uri]  # each quick fix is asked for with the latest diagnostics
        actions = await code_actions(client, uri, diag, only=[types.CodeActionKind.QuickFix])
        [fix] = [a for a in actions if not a.title.startswith("Ignore")]
        assert fix.title.endswith("(unsafe)") == (diag.code == "TFD101")
        assert list(fix.edit.changes) == [uri], "each fix stays in its own cell"
        notebook.edit(uri, fix.edit.changes[uri])
        diagnostics = await published(client, notebook.code_uris())
        assert diagnostics[uri] == [], "the finding went away once its cell changed"
    expected = cli_fixed_cells(distfix, Notebook(client, "expected.ipynb", CELLS), "--unsafe-fixes")
    assert [notebook.texts[uri] if kind == "code" else text for (uri, kind), text in zip(notebook.cells, expected)] == expected
    assert notebook.texts[third].startswith("batch_size = 64\nwith strategy.scope():\n    model = tf.keras")


async def test_fix_all_on_a_cell_applies_the_notebooks_safe_fixes(client: LanguageClient, distfix):
    notebook = Notebook(client, "train.ipynb", CELLS)
    notebook.open()
    first, third, fourth = notebook.code_uris()
    await published(client, notebook.code_uris())
    # Offered in the light bulb, it is computed on resolve, and refused once the notebook changed.
    [lazy] = [a for a in await code_actions(client, third, None) if a.kind == "source.fixAll.distfix"]
    assert lazy.edit is None
    [fix_all] = await code_actions(client, first, None, only=["source.fixAll.distfix"])
    assert list(fix_all.edit.changes) == [fourth], "only the safe TFD401 fix, in the cell it belongs to"
    assert (await client.code_action_resolve_async(lazy)).edit == fix_all.edit
    notebook.edit(fourth, fix_all.edit.changes[fourth])
    expected = cli_fixed_cells(distfix, Notebook(client, "expected.ipynb", CELLS))
    assert notebook.texts[fourth] == expected[3] and notebook.texts[third] == CELL_3
    with pytest.raises(JsonRpcException):
        await client.code_action_resolve_async(lazy)
    await published(client, notebook.code_uris())
    assert list(await code_actions(client, fourth, None, only=["source.fixAll.distfix"])) == [], "nothing safe is left"


async def test_ignore_action_on_a_cell(client: LanguageClient):
    notebook = Notebook(client, "train.ipynb", CELLS)
    notebook.open()
    _, third, fourth = notebook.code_uris()
    diagnostics = await published(client, notebook.code_uris())
    actions = await code_actions(client, fourth, diagnostics[fourth][0])
    ignore = next(a for a in actions if a.title == "Ignore TFD401 on this line")
    notebook.edit(fourth, ignore.edit.changes[fourth])
    assert notebook.texts[fourth].splitlines()[1].endswith("(make_dataset)  # distfix: ignore[TFD401]")
    after = await published(client, notebook.code_uris())
    assert after[fourth] == [] and [d.code for d in after[third]] == ["TFD101"]


async def test_removed_added_moved_and_retyped_cells(client: LanguageClient, distfix):
    notebook = Notebook(client, "train.ipynb", CELLS)
    notebook.open()
    first, third, fourth = notebook.code_uris()
    await published(client, notebook.code_uris())
    notebook.remove(fourth)
    after = await published(client, [first, third, fourth])
    assert after[fourth] == [], "a removed cell's diagnostics are cleared"
    assert [d.code for d in after[third]] == ["TFD101"]
    added = notebook.insert(1, "for batch in batches:\n    step = strategy.experimental_run_v2(replica_fn)\n")
    after = await published(client, notebook.code_uris())
    assert sorted((d.code, d.range.start.line) for d in after[added]) == [("TFD401", 1), ("TFD402", 1)]
    assert as_found(notebook, after) == cli_findings(distfix, notebook)
    notebook.move(added, len(notebook.cells) - 1)
    after = await published(client, notebook.code_uris())
    assert as_found(notebook, after) == cli_findings(distfix, notebook)
    notebook.to_markdown(added)
    after = await published(client, [first, third, added])
    assert after[added] == [], "a cell turned into markdown is not checked any more"


async def test_a_cell_that_does_not_parse_gets_tfd000(client: LanguageClient, distfix):
    notebook = Notebook(client, "train.ipynb", CELLS)
    notebook.open()
    first, third, fourth = notebook.code_uris()
    before = await published(client, notebook.code_uris())
    notebook.edit(third, [types.TextEdit(types.Range(types.Position(2, 0), types.Position(2, 0)), "x = (\n")])
    after = await published(client, notebook.code_uris())
    [error] = after[third]
    assert error.code == "TFD000" and error.severity == types.DiagnosticSeverity.Error
    # The cell that does not parse is left out; the other cells are still checked.
    assert after[first] == [] and [d.code for d in after[fourth]] == [d.code for d in before[fourth]] != []
    assert as_found(notebook, after) == cli_findings(distfix, notebook)
    assert list(await code_actions(client, third, error, only=[types.CodeActionKind.QuickFix])) == []


async def test_a_fix_that_spans_two_cells_edits_both(client: LanguageClient, distfix):
    cells = [
        # The notebook reads TF_CONFIG: it runs as a worker, so the strategy must come first.
        ("code", "import os\nimport tensorflow as tf\nprint(os.environ['TF_CONFIG'])\nprint(tf.config.list_logical_devices())\n"),
        ("code", "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"),
    ]
    notebook = Notebook(client, "workers.ipynb", cells)
    notebook.open()
    first, second = notebook.code_uris()
    diagnostics = await published(client, notebook.code_uris())
    [diag] = diagnostics[second]
    assert diag.code == "TFD105"
    actions = await code_actions(client, second, diag, only=[types.CodeActionKind.QuickFix])
    [fix] = [a for a in actions if not a.title.startswith("Ignore")]
    assert set(fix.edit.changes) == {first, second}
    for uri, edits in fix.edit.changes.items():
        notebook.edit(uri, edits)
    expected = cli_fixed_cells(distfix, Notebook(client, "expected.ipynb", cells), "--unsafe-fixes")
    assert [notebook.texts[first], notebook.texts[second]] == expected


async def test_saving_checks_again_and_closing_clears_the_cells(client: LanguageClient):
    notebook = Notebook(client, "train.ipynb", CELLS)
    notebook.open()
    await published(client, notebook.code_uris())
    client.notebook_document_did_save(types.DidSaveNotebookDocumentParams(types.NotebookDocumentIdentifier(notebook.uri)))
    saved = await published(client, notebook.code_uris())
    assert as_found(notebook, saved) == {(2, 1, 8, "TFD101"), (3, 1, 16, "TFD401")}
    notebook.close()
    after = await published(client, notebook.code_uris())
    assert all(diagnostics == [] for diagnostics in after.values())


WRITTEN_WORKER = (
    "%%writefile main.py\n"
    "import tensorflow as tf\n"
    "\n"
    "print(tf.config.list_logical_devices())\n"
    "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"
)
LAUNCHER = (
    "import json, os\n"
    "os.environ['TF_CONFIG'] = json.dumps({'cluster': {'worker': ['localhost:12345', 'localhost:23456']},\n"
    "                                      'task': {'type': 'worker', 'index': 0}})\n"
    "!python main.py &> job_0.log &\n"
)


async def test_modules_written_by_cells_are_checked_and_published_on_their_cells(client: LanguageClient, distfix):
    notebook = Notebook(client, "tutorial.ipynb", [("code", WRITTEN_WORKER), ("code", LAUNCHER)])
    notebook.open()
    written, launcher = notebook.code_uris()
    diagnostics = await published(client, notebook.code_uris())
    # The launcher's TF_CONFIG is the cluster of the worker it starts: creating the strategy
    # after an op there fails (TFD105); the launcher cell itself is not hard-coding a worker's TF_CONFIG.
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diagnostics[written]] == [("TFD105", 4, 11)]
    assert diagnostics[written][0].data is None, "a written module's finding is advice: the cell is not Python"
    assert diagnostics[launcher] == []
    assert as_found(notebook, diagnostics) == cli_findings(distfix, notebook)
    notebook.edit(launcher, [types.TextEdit(types.Range(types.Position(3, 0), types.Position(3, 30)), "")])
    unlaunched = await published(client, notebook.code_uris())
    assert unlaunched[written] == [], "not started with the TF_CONFIG: a single worker, which may start late"
    assert [d.code for d in unlaunched[launcher]] == ["TFD601"]
