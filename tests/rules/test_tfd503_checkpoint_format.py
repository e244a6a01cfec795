"""TFD503 and the file format a chief-only `ModelCheckpoint` writes.

benchmarks/probe_chief_only_checkpoint_format.py (tf-keras, two MultiWorkerMirroredStrategy
workers): a `ModelCheckpoint` given to the chief only trains and saves when it writes HDF5, and
breaks the collectives when it writes `.keras`. So an HDF5 checkpoint for the chief only is not
reported; `.keras`, a path without a known suffix, and `BackupAndRestore` stay reported.
"""

from __future__ import annotations

import textwrap

import pytest

from fixer.config import Config
from fixer.engine import check_source

TEMPLATE = """
import os
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
resolver = strategy.cluster_resolver
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
callbacks = [tf.keras.callbacks.TensorBoard("logs")]
{setup}
if resolver.task_id == 0:
    callbacks.append({callback})
model.fit(dataset, epochs=3, callbacks=callbacks)
"""


def tfd503(callback: str, setup: str = "") -> list:
    source = textwrap.dedent(TEMPLATE.format(callback=callback, setup=setup))
    return check_source("train.py", source, Config(select=("TFD503",))).findings


@pytest.mark.parametrize(
    ("callback", "setup"),
    [
        ('tf.keras.callbacks.ModelCheckpoint("best_model.h5", save_best_only=True)', ""),
        ('tf.keras.callbacks.ModelCheckpoint(filepath="weights.hdf5")', ""),
        ('tf.keras.callbacks.ModelCheckpoint(f"{out}/epoch_{{epoch:02d}}.h5")', 'out = "runs"'),
        ('tf.keras.callbacks.ModelCheckpoint(os.path.join(out, "best.h5"))', 'out = "runs"'),
        ('tf.keras.callbacks.ModelCheckpoint(out + "/best.h5")', 'out = "runs"'),
        ("tf.keras.callbacks.ModelCheckpoint(path)", 'path = "checkpoints/model.h5"'),
        ('tf.keras.callbacks.ModelCheckpoint("checkpoints/model", save_format="h5")', ""),
    ],
    ids=["literal", "hdf5-keyword", "f-string", "path-join", "concatenation", "named", "save-format"],
)
def test_a_chief_only_hdf5_checkpoint_is_not_reported(callback, setup):
    assert tfd503(callback, setup) == []


@pytest.mark.parametrize(
    ("callback", "setup"),
    [
        ('tf.keras.callbacks.ModelCheckpoint("best_model.keras", save_best_only=True)', ""),
        ('tf.keras.callbacks.ModelCheckpoint("checkpoints/model")', ""),
        ("tf.keras.callbacks.ModelCheckpoint(path)", "path = make_path()"),
        ('tf.keras.callbacks.BackupAndRestore("backup.h5")', ""),
    ],
    ids=["keras-file", "no-suffix", "unknown-path", "backup-and-restore"],
)
def test_other_chief_only_saving_callbacks_stay_reported(callback, setup):
    (finding,) = tfd503(callback, setup)
    assert "only the chief gets this" in finding.message


def test_a_chief_only_hdf5_checkpoint_of_a_model_with_batch_normalization_stays_reported():
    """Measured (same probe): with BatchNormalization the chief's HDF5 save breaks the collectives."""
    source = textwrap.dedent(TEMPLATE.format(callback='tf.keras.callbacks.ModelCheckpoint("best.h5")', setup=""))
    source = source.replace(
        "tf.keras.layers.Dense(1)]", "tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(1)]"
    )
    (finding,) = check_source("train.py", source, Config(select=("TFD503",))).findings
    assert "only the chief gets this" in finding.message
