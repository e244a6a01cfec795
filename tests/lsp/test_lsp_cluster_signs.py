"""TFD504 in the language server: the project tree's signs of a cluster (fixer/tf/cluster_signs.py)
are kept between edits and read again where a file changed, so an edit after a helper starts or
stops setting TF_CONFIG sees it."""

from __future__ import annotations

import os

import pytest_lsp
from lsp_edits import SERVER, published, start_session
from lsprotocol import types
from pytest_lsp import LanguageClient

ONE_MACHINE = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(loss="mse")
model.fit(x, y, epochs=2)
"""
READS_TF_CONFIG = 'import json, os\nworkers = json.loads(os.environ["TF_CONFIG"])["cluster"]["worker"]\n'


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    (root / ".git").mkdir()
    (root / "run.sh").write_text("python train.py --epochs 2\n")
    await start_session(lsp_client, root)
    yield
    await lsp_client.shutdown_session()


def _edit(client: LanguageClient, uri: str, version: int) -> None:
    """Append a comment line: the document changes, the project files are looked at again."""
    end = types.Position(len(ONE_MACHINE.splitlines()) + version - 2, 0)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=types.Range(end, end), text=f"# edit {version}\n")],
        )
    )


async def test_an_edit_sees_a_helper_that_starts_and_stops_setting_tf_config(client: LanguageClient):
    uri = (client.root / "train.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, ONE_MACHINE)))
    assert [d.code for d in (await published(client, [uri]))[uri]] == []  # one worker: no sign of a cluster

    helper = client.root / "cluster.py"
    helper.write_text(READS_TF_CONFIG)
    _edit(client, uri, 2)
    assert [d.code for d in (await published(client, [uri]))[uri]] == ["TFD504"]

    _edit(client, uri, 3)  # nothing changed on disk: the kept answer
    assert [d.code for d in (await published(client, [uri]))[uri]] == ["TFD504"]

    helper.write_text("import os\n")
    later = os.stat(helper).st_mtime_ns + 1_000_000_000  # a new stamp, whatever the clock's resolution
    os.utime(helper, ns=(later, later))
    _edit(client, uri, 4)
    assert [d.code for d in (await published(client, [uri]))[uri]] == []
