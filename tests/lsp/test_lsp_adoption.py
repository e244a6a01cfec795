"""What editors other than VS Code need from the server: configuration errors shown to the
user (window/showMessage), and code-action ``only`` filtering by LSP's kind hierarchy."""

from __future__ import annotations

import pytest_lsp
from lsp_edits import SERVER, code_actions, open_document, start_session
from lsprotocol import types
from pytest_lsp import LanguageClient

SOURCE = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
dist = strategy.experimental_distribute_datasets_from_function(make_dataset)
"""


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    # A plain client (Neovim's): no dynamic registration, no resolve support.
    await start_session(lsp_client, tmp_path_factory.mktemp("workspace"), types.ClientCapabilities())
    yield
    await lsp_client.shutdown_session()


async def test_a_configuration_error_is_shown_to_the_user(client: LanguageClient):
    (client.root / "pyproject.toml").write_text('[tool.distfix]\nselect = ["TFD4O1"]\n')
    uri = (client.root / "train.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, SOURCE)))
    shown = await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert shown.type == types.MessageType.Error
    assert "unknown rule code or prefix TFD4O1 in [tool.distfix] select (did you mean TFD401?)" in shown.message
    assert "checking with the default settings" in shown.message
    diagnostics = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in diagnostics.diagnostics] == ["TFD401"]


async def test_only_source_includes_fix_all(client: LanguageClient):
    uri, _ = await open_document(client, "train.py", SOURCE)
    for only in (["source"], ["source.fixAll"], ["source.fixAll.distfix"]):
        actions = await code_actions(client, uri, None, only=only)
        assert [a.kind for a in actions] == ["source.fixAll.distfix"], only
        assert actions[0].edit is not None, "asked for explicitly, fix-all comes with its edit"


async def test_only_filters_by_kind(client: LanguageClient):
    uri, diagnostics = await open_document(client, "train.py", SOURCE)
    (diag,) = diagnostics
    quick = await code_actions(client, uri, diag, only=["quickfix"])
    assert quick and all(a.kind == types.CodeActionKind.QuickFix for a in quick)
    assert list(await code_actions(client, uri, diag, only=["refactor"])) == []
    everything = await code_actions(client, uri, diag)
    assert {a.kind for a in everything} == {types.CodeActionKind.QuickFix, "source.fixAll.distfix"}
