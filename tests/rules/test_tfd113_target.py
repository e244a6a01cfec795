"""TFD113 names the error of the Keras in play: the project's pin or TF_USE_LEGACY_KERAS decides."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source

LOADED_THEN_COMPILED = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
model = tf.keras.models.load_model("model.keras")
with strategy.scope():
    model.compile(optimizer="adam", loss="mse")
"""
KERAS3 = "training it then fails with a bare `AssertionError`"
TF_KERAS = "compiling it there raises `ValueError: Variable ... was not created in the ... scope`"


def messages(tmp_path: Path, source: str, pin: str | None) -> list[str]:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    if pin is not None:
        (tmp_path / "requirements.txt").write_text(f"tensorflow=={pin}\n")
    config = replace(Config(), select=("TFD113",))
    return [f.message for f in check_source(str(tmp_path / "train.py"), source, config).findings]


def test_tf_keras_under_a_pin_below_2_16(tmp_path):
    [message] = messages(tmp_path, LOADED_THEN_COMPILED, "2.15.0")
    assert TF_KERAS in message


def test_keras_3_under_a_current_pin(tmp_path):
    [message] = messages(tmp_path, LOADED_THEN_COMPILED, "2.21.0")
    assert KERAS3 in message


def test_the_script_asking_for_legacy_keras(tmp_path):
    source = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"\n' + LOADED_THEN_COMPILED
    [message] = messages(tmp_path, source, "2.21.0")
    assert TF_KERAS in message


def test_no_fix_when_the_load_shares_its_line(tmp_path):
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    config = replace(Config(), select=("TFD113",))
    [alone] = check_source(str(tmp_path / "train.py"), LOADED_THEN_COMPILED, config).findings
    assert alone.fix is not None
    source = LOADED_THEN_COMPILED.replace(
        'model = tf.keras.models.load_model("model.keras")', 'model = tf.keras.models.load_model("model.keras"); n = 1'
    )
    [finding] = check_source(str(tmp_path / "train.py"), source, config).findings
    assert finding.fix is None
