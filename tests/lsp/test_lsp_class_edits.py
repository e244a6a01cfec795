"""Edits inside the methods of a long class, over stdio: the server re-parses one member at a
time (fixer/class_members.py), and after every edit its diagnostics equal a fresh check's."""

from __future__ import annotations

import pytest_lsp
from lsp_edits import SERVER, open_document, start_session
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient

from fixer.engine import check_source
from fixer.lsp.convert import diagnostic, uri_path
from fixer.textmap import TextMap

METHOD = """\
    def test_{n}(self):
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        with strategy.scope():
            model.compile(loss="mse")
        return strategy.experimental_run_v2(step, args=({n},))

"""
SOURCE = (
    "import tensorflow as tf\n\nstrategy = tf.distribute.MirroredStrategy()\n\n\ndef step(x):\n    return x\n\n\n"
    "class StrategyTest(tf.test.TestCase):\n\n"
    + "".join(METHOD.format(n=n) for n in range(12))
    + "    def test_last(self):\n        pass\n"
)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await start_session(lsp_client, tmp_path_factory.mktemp("workspace"))
    yield
    await lsp_client.shutdown_session()


def _fresh(uri: str, text: str) -> list[object]:
    """The diagnostics a fresh whole-file check of ``text`` gives, as the server sends them."""
    findings = check_source(str(uri_path(uri)), text).findings
    textmap = TextMap(text)
    return default_converter().unstructure([diagnostic(f, textmap) for f in findings])


def _line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines()) if needle in line)


async def test_edits_inside_methods_publish_what_a_fresh_check_finds(client: LanguageClient):
    uri, diagnostics = await open_document(client, "strategy_test.py", SOURCE)
    assert default_converter().unstructure(diagnostics) == _fresh(uri, SOURCE)
    assert len(diagnostics) >= 12  # one renamed API per method at least
    text = SOURCE
    edits = [
        # a statement typed inside test_5: a variable made outside the scope, used inside it
        ("    def test_5(self):", "        v = tf.Variable(1.0)\n"),
        # the renamed API fixed by hand in test_7: its diagnostic goes
        ("experimental_run_v2(step, args=(7,))", None),
        # a comment between two methods, at their indentation
        ("    def test_9(self):", "    # the ninth\n"),
        # a method typed at the end of the class
        ("        pass", "        return strategy.experimental_run_v2(step)\n"),
    ]
    for version, (needle, inserted) in enumerate(edits, start=2):
        line = _line_of(text, needle)
        if inserted is None:  # rename on the line
            column = text.splitlines()[line].index("experimental_run_v2")
            change = types.TextDocumentContentChangePartial(
                range=types.Range(
                    types.Position(line, column), types.Position(line, column + len("experimental_run_v2"))
                ),
                text="run",
            )
            lines = text.splitlines(keepends=True)
            lines[line] = lines[line].replace("experimental_run_v2", "run", 1)
        else:
            at = line + 1 if not inserted.startswith("    #") else line
            change = types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(at, 0), types.Position(at, 0)), text=inserted
            )
            lines = text.splitlines(keepends=True)
            lines.insert(at, inserted)
        text = "".join(lines)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change])
        )
        params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        while params.version != version:
            params = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        assert default_converter().unstructure(params.diagnostics) == _fresh(uri, text), f"edit {version}"
