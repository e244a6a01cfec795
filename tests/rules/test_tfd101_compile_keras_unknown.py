"""TFD101 on `compile("adam")` after the scope a model was built in: where no file names
TensorFlow (the target is only assumed), the message says what happens on each Keras
(benchmarks/probe_metric_and_string_optimizer_outside_scope.py: Keras 3's `fit` raises, tf-keras
trains the same) instead of "not distributed"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source

if TYPE_CHECKING:
    from pathlib import Path

SCRIPT = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(features, labels, epochs=2)
"""


def _messages(root: Path, files: dict[str, str], text: str = SCRIPT) -> list[str]:
    (root / ".git").mkdir(parents=True)
    for name, content in files.items():
        (root / name).write_text(content)
    path = root / "train.py"
    path.write_text(text)
    return [f.message for f in check_source(str(path), text, Config(select=("TFD101",))).findings]


def test_an_assumed_target_tells_both_kerases(tmp_path: Path):
    (message,) = _messages(tmp_path / "a", {})
    assert "Keras 3 `fit` raises `RuntimeError: Mixing different tf.distribute.Strategy objects`" in message
    assert "tf-keras trains the same" in message
    assert "not distributed" not in message


def test_a_stated_keras_3_keeps_its_message(tmp_path: Path):
    (message,) = _messages(tmp_path / "b", {"requirements.txt": "tensorflow==2.21.0\n"})
    assert "tf-keras trains the same" not in message
    assert message.startswith("`compile()` runs outside `strategy.scope()`")


def test_the_scripts_own_switch_decides_the_keras(tmp_path: Path):
    keras3 = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "0"\n' + SCRIPT
    (message,) = _messages(tmp_path / "c", {}, keras3)
    assert "tf-keras trains the same" not in message
