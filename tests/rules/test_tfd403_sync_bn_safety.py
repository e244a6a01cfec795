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


def _package(root: Path, setup_requirement: str) -> list:
    """SYNC_BN as a module of a package whose setup.py declares ``setup_requirement``."""
    (root / ".git").mkdir(parents=True)
    (root / "setup.py").write_text(f"from setuptools import setup\nsetup(install_requires=[{setup_requirement!r}])\n")
    (root / "lib").mkdir()
    (root / "lib" / "__init__.py").write_text("")
    path = root / "lib" / "layers.py"
    path.write_text(SYNC_BN)
    findings = check_source(str(path), SYNC_BN, Config(select=("TFD403",))).findings
    return [(f.code, f.applicability, bool(f.fix), f.message) for f in findings]


def test_advice_without_an_edit_where_the_package_still_supports_a_release_before_2_12(tmp_path: Path):
    # Users of the package may run TF 2.9, whose Keras has no `synchronized` (TypeError).
    [(code, _, fixable, message)] = _package(tmp_path, "tensorflow>=2.9")
    assert (code, fixable) == ("TFD403", False)
    assert "once TF 2.9 is no longer supported" in message


def test_control_a_floor_of_2_12_keeps_the_safe_rewrite(tmp_path: Path):
    [(code, applicability, fixable, _)] = _package(tmp_path, "tensorflow>=2.12")
    assert (code, applicability, fixable) == ("TFD403", Applicability.SAFE, True)
