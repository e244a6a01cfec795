"""The language server end to end, driven over stdio by pytest-lsp as a real client."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
import pytest_lsp
from lsp_edits import SERVER, apply, code_actions, open_document, published, start_session
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from fixer.engine import check_source, fix_source

SOURCE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
dist = strategy.experimental_distribute_datasets_from_function(make_dataset)  # café


@tf.function
def step(batch):
    return strategy.experimental_run_v2(replica_fn, args=(batch,))


def eager_step(batch):
    return strategy.run(replica_fn, args=(batch,))
"""


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


async def test_diagnostics_carry_codes_links_and_fixes(client: LanguageClient):
    uri, diagnostics = await open_document(client, "train.py", SOURCE)
    codes = sorted(d.code for d in diagnostics)
    assert codes == ["TFD401", "TFD401", "TFD402"]
    renamed = next(d for d in diagnostics if d.range.start.line == 3)
    # "strategy." is 9 characters; the line's non-ASCII comment comes later and must not shift it.
    assert (renamed.range.start.character, renamed.range.end.character) == (16, 62)
    assert renamed.code_description is None  # distfix has no public home to link to yet (fixer.explain.PROJECT_URL)
    assert renamed.data["applicability"] == "safe"


async def test_quick_fixes_reproduce_the_engine_exactly(client: LanguageClient):
    uri, diagnostics = await open_document(client, "train.py", SOURCE)
    text = SOURCE
    for diag in sorted(diagnostics, key=lambda d: d.range.start.line, reverse=True):
        actions = await code_actions(client, uri, diag, only=[types.CodeActionKind.QuickFix])
        fixes = [a for a in actions if a.title.startswith(("Use the current name", "Compile the step"))]
        assert len(fixes) == 1
        if diag.code == "TFD402":
            assert fixes[0].title.endswith("(unsafe)") and not fixes[0].is_preferred
        else:
            assert fixes[0].is_preferred
        text = apply(text, fixes[0].edit.changes[uri])
    assert text == fix_source(str(Path("train.py")), SOURCE, unsafe=True).fixed_text
    cst.parse_module(text)


async def test_fix_all_applies_safe_fixes_only(client: LanguageClient):
    uri, _ = await open_document(client, "train.py", SOURCE)
    actions = await code_actions(client, uri, None, only=["source.fixAll.distfix"])
    assert [a.kind for a in actions] == ["source.fixAll.distfix"]
    fixed = apply(SOURCE, actions[0].edit.changes[uri])
    assert fixed == fix_source("train.py", SOURCE, unsafe=False).fixed_text
    assert "@tf.function\ndef eager_step" not in fixed


async def test_ignore_action_inserts_the_suppression(client: LanguageClient):
    uri, diagnostics = await open_document(client, "train.py", SOURCE)
    diag = next(d for d in diagnostics if d.code == "TFD402")
    actions = await code_actions(client, uri, diag)
    ignore = next(a for a in actions if a.title == "Ignore TFD402 on this line")
    text = apply(SOURCE, ignore.edit.changes[uri])
    assert "    return strategy.run(replica_fn, args=(batch,))  # distfix: ignore[TFD402]\n" in text
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2), [types.TextDocumentContentChangeWholeDocument(text)]
        )
    )
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert sorted(d.code for d in params.diagnostics) == ["TFD401", "TFD401"]


async def test_incremental_change_and_syntax_error_mid_edit(client: LanguageClient):
    uri, diagnostics = await open_document(client, "train.py", SOURCE)
    assert len(diagnostics) == 3
    line = SOURCE.splitlines()[3]
    start = line.index("experimental_distribute")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangePartial(range=types.Range(types.Position(3, start), types.Position(3, start + len("experimental_"))), text="")],
        )
    )
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert sorted(d.code for d in params.diagnostics) == ["TFD401", "TFD402"]
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            [types.TextDocumentContentChangePartial(range=types.Range(types.Position(8, 0), types.Position(8, 0)), text="    return strategy.run(\n")],
        )
    )
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in params.diagnostics] == ["TFD000"]
    assert params.diagnostics[0].severity == types.DiagnosticSeverity.Error
    broken = SOURCE.splitlines(keepends=True)
    broken.insert(8, "    return strategy.run(\n")
    [engine_finding] = check_source("train.py", "".join(broken)).findings
    assert params.diagnostics[0].range.start.line == engine_finding.start.line - 1
    actions = await code_actions(client, uri, params.diagnostics[0], only=[types.CodeActionKind.QuickFix])
    assert list(actions) == []


async def test_hover_shows_the_rule_explanation(client: LanguageClient):
    uri, diagnostics = await open_document(client, "train.py", SOURCE)
    diag = next(d for d in diagnostics if d.code == "TFD402")
    result = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), diag.range.start)
    )
    assert result.contents.value.startswith("# TFD402 strategy-run-outside-tf-function")
    assert "## Fix safety" in result.contents.value


async def test_configuration_change_is_picked_up(client: LanguageClient):
    uri, diagnostics = await open_document(client, "train.py", SOURCE)
    # The server asked to be told about pyproject.toml changes (VS Code only sends what was asked).
    [registration] = client.registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    globs = [w["globPattern"] for w in registration.register_options["watchers"]]
    assert globs[0] == "**/pyproject.toml" and "**/requirements*.txt" in globs and "**/Dockerfile*" in globs
    assert len(diagnostics) == 3
    pyproject = client.root / "pyproject.toml"
    pyproject.write_text('[tool.distfix]\nignore = ["TFD4"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(pyproject.as_uri(), types.FileChangeType.Created)])
    )
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(params.diagnostics) == []


async def test_a_broken_request_gets_an_error_and_the_server_keeps_serving(client: LanguageClient):
    with pytest.raises(JsonRpcException):
        await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier("file:///never/opened.py"), types.Position(0, 0))
        )
    uri, diagnostics = await open_document(client, "after_error.py", SOURCE)
    assert len(diagnostics) == 3


WIDE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
pair = ("é😀", strategy.experimental_distribute_datasets_from_function(make_dataset))
"""


async def test_positions_count_utf16_units_before_the_finding(client: LanguageClient):
    uri, diagnostics = await open_document(client, "wide.py", WIDE)
    [diag] = diagnostics
    line = WIDE.splitlines()[3]
    prefix = line[: line.index("experimental_")]
    # The emoji is one character but two UTF-16 units, so the two counts must differ here.
    assert len(prefix.encode("utf-16-le")) // 2 == len(prefix) + 1
    assert (diag.range.start.line, diag.range.start.character) == (3, len(prefix) + 1)
    actions = await code_actions(client, uri, diag, only=[types.CodeActionKind.QuickFix])
    fix = next(a for a in actions if a.is_preferred)
    fixed = apply(WIDE, fix.edit.changes[uri])
    assert fixed == fix_source("wide.py", WIDE).fixed_text
    ignore = next(a for a in actions if a.title == "Ignore TFD401 on this line")
    assert apply(WIDE, ignore.edit.changes[uri]).splitlines()[3] == line + "  # distfix: ignore[TFD401]"


async def test_ignore_action_extends_an_existing_comment(client: LanguageClient):
    text = WIDE.replace("(make_dataset))\n", "(make_dataset))  # distfix: ignore[TFD999]\n")
    uri, [diag] = await open_document(client, "extend.py", text)
    actions = await code_actions(client, uri, diag)
    ignore = next(a for a in actions if a.title == "Ignore TFD401 on this line")
    assert apply(text, ignore.edit.changes[uri]).splitlines()[3].endswith(
        "(make_dataset))  # distfix: ignore[TFD999, TFD401]"
    )


async def test_saving_pyproject_reloads_the_configuration(client: LanguageClient):
    uri, diagnostics = await open_document(client, "saved.py", SOURCE)
    assert len(diagnostics) == 3
    pyproject = client.root / "pyproject.toml"
    pyproject.write_text('[tool.distfix]\nignore = ["TFD402"]\n')
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(pyproject.as_uri())))
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert sorted(d.code for d in params.diagnostics) == ["TFD401", "TFD401"]


async def test_a_new_pin_file_rechecks_open_documents(client: LanguageClient):
    folder = client.root / "pinned"
    folder.mkdir()
    uri, diagnostics = await open_document(client, "pinned/train.py", SOURCE)
    assert sorted(d.code for d in diagnostics) == ["TFD401", "TFD401", "TFD402"]
    requirements = folder / "requirements.txt"
    requirements.write_text("tensorflow==2.1.0\n")  # neither `run` nor `distribute_datasets_from_function` exists there
    client.diagnostics.clear()  # every open document is checked again: wait for this one's new diagnostics
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(requirements.as_uri(), types.FileChangeType.Created)])
    )
    assert [d.code for d in (await published(client, [uri]))[uri]] == ["TFD402"]


async def test_light_bulb_fix_all_is_computed_on_resolve(client: LanguageClient):
    uri, diagnostics = await open_document(client, "lazy.py", SOURCE)
    actions = await code_actions(client, uri, diagnostics[0])
    [lazy] = [a for a in actions if a.kind == "source.fixAll.distfix"]
    assert lazy.edit is None
    resolved = await client.code_action_resolve_async(lazy)
    assert apply(SOURCE, resolved.edit.changes[uri]) == fix_source("lazy.py", SOURCE).fixed_text


async def test_a_document_opened_as_python_is_checked_whatever_its_name(client: LanguageClient):
    # jupyterlab-lsp sends a notebook as one Python document named after it, magics as calls.
    text = (
        "import tensorflow as tf\n\nstrategy = tf.distribute.MirroredStrategy()\n\n\n"
        'get_ipython().run_line_magic("matplotlib", " inline")\nstrategy.experimental_run_v2(lambda: 1)\n'
    )
    other = (client.root / "notes.txt").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(other, "plaintext", 1, "strategy.experimental_run_v2(f)\n")))
    uri = (client.root / ".virtual_documents" / "mistake.ipynb").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    # Messages are handled in order: the plain-text document published nothing before this one.
    assert params.uri == uri
    assert [(d.code, d.range.start.line, d.range.start.character) for d in params.diagnostics] == [("TFD401", 6, 9)]
