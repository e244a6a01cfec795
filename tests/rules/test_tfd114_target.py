"""TFD114 reports only where `tf.keras` is tf-keras: the project's pin or TF_USE_LEGACY_KERAS decides
(Keras 3 metrics take cross-replica updates: benchmarks/probe_metric_updated_cross_replica.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixer.config import Config
from fixer.engine import check_source

UPDATED_IN_THE_LOOP = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    train_loss = tf.keras.metrics.Mean()

for batch in dist_dataset:
    train_loss.update_state(distributed_step(batch))
"""


def findings(tmp_path: Path, source: str, pin: str | None) -> list:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    if pin is not None:
        (tmp_path / "requirements.txt").write_text(f"tensorflow=={pin}\n")
    config = replace(Config(), select=("TFD114",))
    return check_source(str(tmp_path / "train.py"), source, config).findings


def test_tf_keras_under_a_pin_below_2_16(tmp_path):
    [finding] = findings(tmp_path, UPDATED_IN_THE_LOOP, "2.15.0")
    assert finding.start.line == 8 and "SyncOnReadVariable" in finding.message


def test_keras_3_under_a_current_pin(tmp_path):
    assert findings(tmp_path, UPDATED_IN_THE_LOOP, "2.21.0") == []


def test_the_script_asking_for_legacy_keras(tmp_path):
    source = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"\n' + UPDATED_IN_THE_LOOP
    [finding] = findings(tmp_path, source, "2.21.0")
    assert finding.fix is None


def test_metric_made_outside_the_scope_under_tf_keras(tmp_path):
    source = UPDATED_IN_THE_LOOP.replace("with strategy.scope():\n    train_loss", "train_loss")
    assert "with strategy.scope()" not in source
    assert findings(tmp_path, source, "2.15.0") == []
