"""Regression tests for issue 28 (fix22b): single false positives left on the ledger at 5f5509e, in our
own words, each with the control that keeps the finding.

- TFD101 (ledger21a class 1): a Hugging Face TF model used through one of its parts on a Keras `Input`
  (`encoder.bert(token_ids, ...)`, its tf-keras main layer) makes the program Keras 2 as calling the
  model itself does (benchmarks/probe_ledger17c_premises.py, part 1: a tf-keras layer refuses a Keras 3
  tensor); a recompile outside the scope then trains (tf-keras), so TFD101 is silent. A part called on
  no Keras tensor builds nothing and keeps the finding.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

_RECOMPILE = """
import tensorflow as tf
import transformers

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    token_ids = tf.keras.layers.Input(shape=(64,), dtype=tf.int32)
    encoder = transformers.TFBertModel.from_pretrained("bert-base-uncased")
    encoder.trainable = False
    {use}
    scores = tf.keras.layers.Dense(2)(hidden.pooler_output)
    net = tf.keras.Model(token_ids, scores)
    net.compile(optimizer="adam", loss="mse")

net.fit(features, targets)
encoder.trainable = True
net.compile(optimizer=tf.keras.optimizers.Adam(1e-5), loss="mse")
net.fit(features, targets)
"""


def _codes(root: Path, source: str) -> list[str]:
    """The codes found in a project at ``root`` whose one file is ``source``."""
    path = root / "train.py"
    path.write_text(textwrap.dedent(source))
    (result,) = list(run([path], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.code for f in result.findings]


def test_a_hugging_face_main_layer_on_an_input_makes_the_program_keras2(tmp_path: Path) -> None:
    use = "hidden = encoder.bert(token_ids, training=False)"
    assert "TFD101" not in _codes(tmp_path, _RECOMPILE.format(use=use))


def test_control_a_part_called_on_no_keras_tensor_keeps_tfd101(tmp_path: Path) -> None:
    use = "hidden = encoder.bert(features, training=False)"
    assert "TFD101" in _codes(tmp_path, _RECOMPILE.format(use=use))
