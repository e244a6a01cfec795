"""TFD403's `SyncBatchNormalization -> BatchNormalization(synchronized=True)` is safe only where
every TensorFlow the code may run on takes `synchronized` (Keras 2.12 and later): on an assumed
target, an upgrade from an older pin or a package floor below 2.12 it is unsafe (issue 28,
ledger8b's wrong fixes: a 2021 fork run on TF 2.5 got a `TypeError`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.config import Config
from fixer.engine import check_source
from fixer.types import Applicability

if TYPE_CHECKING:
    from pathlib import Path

SYNC_BN = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    norm = tf.keras.layers.experimental.SyncBatchNormalization(momentum=0.9)
"""


def _applicability(root: Path, requirements: str | None, target_version: tuple[int, int] | None = None) -> list:
    (root / ".git").mkdir(parents=True)
    if requirements is not None:
        (root / "requirements.txt").write_text(requirements)
    path = root / "train.py"
    path.write_text(SYNC_BN)
    findings = check_source(str(path), SYNC_BN, Config(select=("TFD403",), target_version=target_version)).findings
    return [(f.code, f.applicability) for f in findings]


def test_safe_where_the_project_states_a_keras_3_tensorflow(tmp_path: Path):
    assert _applicability(tmp_path, "tensorflow==2.17.0\n") == [("TFD403", Applicability.SAFE)]


def test_unsafe_on_an_assumed_target(tmp_path: Path):
    assert _applicability(tmp_path, None) == [("TFD403", Applicability.UNSAFE)]


def test_unsafe_on_an_upgrade_from_a_pin_without_the_argument(tmp_path: Path):
    found = _applicability(tmp_path, "tensorflow==2.10.0\n", target_version=(2, 21))
    assert found == [("TFD403", Applicability.UNSAFE)]
