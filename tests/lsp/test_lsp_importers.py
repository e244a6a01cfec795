"""The language server checks a helper module through the scripts of the workspace that import it
(fixer/tf/importers.py): the helper alone is open, its importer is a file on disk."""

from __future__ import annotations

import pytest_lsp
from lsp_edits import SERVER, published, start_session
from lsprotocol import types
from pytest_lsp import LanguageClient

BUILDER = """\
import tensorflow as tf


def make_dataset(batch_size):
    ds = tf.data.Dataset.range(64)
    ds = ds.shuffle(64)
    return ds.batch(batch_size)
"""

TRAINER = """\
import tensorflow as tf

from data import make_dataset

strategy = tf.distribute.{strategy}()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
model.fit(make_dataset(16), epochs=1)
"""


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    (root / "main.py").write_text(TRAINER.format(strategy="MultiWorkerMirroredStrategy"))
    (root / "data.py").write_text(BUILDER)
    await start_session(lsp_client, root)
    yield
    await lsp_client.shutdown_session()


async def test_the_helper_open_alone_is_reported_through_its_importer_and_updated_when_it_is_saved(client: LanguageClient):
    data = (client.root / "data.py").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(data, "python", 1, BUILDER)))
    (diagnostic,) = (await published(client, [data]))[data]
    assert diagnostic.code == "TFD204"
    assert diagnostic.range.start.line == 5
    assert "`main.py` line 9 passes `make_dataset()` to `fit`" in diagnostic.message

    main = client.root / "main.py"
    main.write_text(TRAINER.format(strategy="MirroredStrategy"))
    client.diagnostics.clear()  # what the open published is not what the save publishes
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(main.as_uri())))
    assert (await published(client, [data]))[data] == []
