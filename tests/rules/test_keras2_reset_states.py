"""`reset_states()` on a metric made from `tf.keras.metrics` is Keras 2 code (Keras 3 metrics only
have `reset_state`: benchmarks/probe_ledger7a_premises.py), so where no TensorFlow version is
stated the file's `tf.keras` is Keras 2 and TFD109 (Keras 3 only) stays silent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from tests.rules.test_tfd109_project import SCRIPT

if TYPE_CHECKING:
    from pathlib import Path


def _codes(root: Path, text: str, files: dict[str, str] | None = None) -> list[str]:
    (root / ".git").mkdir(parents=True)
    for name, content in (files or {}).items():
        (root / name).write_text(content)
    path = root / "train.py"
    path.write_text(text)
    return [f.code for f in check_source(str(path), text, Config(select=("TFD109",))).findings]


def test_a_module_level_metric_reset_with_reset_states(tmp_path: Path):
    loop = "\ntrain_loss = tf.keras.metrics.Mean(name='loss')\nfor epoch in range(2):\n    train_loss.reset_states()\n"
    assert _codes(tmp_path / "a", SCRIPT + loop) == []


def test_a_metric_kept_on_self_and_imported_by_name(tmp_path: Path):
    trainer = (
        "\nfrom tensorflow.keras.metrics import SparseCategoricalAccuracy\n\n\nclass Trainer:\n"
        "    def __init__(self):\n        self.accuracy = SparseCategoricalAccuracy()\n\n"
        "    def end_epoch(self):\n        self.accuracy.reset_states()\n"
    )
    assert _codes(tmp_path / "b", SCRIPT + trainer) == []


def test_controls_stay_reported(tmp_path: Path):
    # Keras 3's own method, another object's `reset_states` (a stateful RNN model), standalone
    # Keras 3 metrics, and a stated Keras 3 release.
    keras3 = "\ntrain_loss = tf.keras.metrics.Mean()\ntrain_loss.reset_state()\n"
    model = "\nmodel.reset_states()\n"
    standalone = "\nimport keras\n\nm = keras.metrics.Mean()\nm.reset_states()\n"
    pinned = "\ntrain_loss = tf.keras.metrics.Mean()\ntrain_loss.reset_states()\n"
    assert _codes(tmp_path / "c", SCRIPT + keras3) == ["TFD109"]
    assert _codes(tmp_path / "d", SCRIPT + model) == ["TFD109"]
    assert _codes(tmp_path / "e", SCRIPT + standalone) == ["TFD109"]
    assert _codes(tmp_path / "f", SCRIPT + pinned, {"requirements.txt": "tensorflow==2.21.0\n"}) == ["TFD109"]
