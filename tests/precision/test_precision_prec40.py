"""Regression tests for issue 28 (prec40): ledger15a/15b classes, in our own words, each with the
control that keeps the finding where it is right.

- TFD111: Keras's `ImageDataGenerator` and its `flow` / `flow_from_directory` /
  `flow_from_dataframe` iterators start no runtime (benchmarks/probe_image_generator_runtime.py),
  so a device split after them is accepted.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source

if TYPE_CHECKING:
    from fixer.types import Finding


def _findings(text: str, code: str, path: str = "train.py") -> list[Finding]:
    return [f for f in check_source(path, textwrap.dedent(text)).findings if f.code == code]


# -- TFD111: an image generator before the device configuration -------------------------------------

_SPLIT_AFTER = """
import numpy as np
import tensorflow as tf
from tensorflow.keras.preprocessing.image import ImageDataGenerator

augment = ImageDataGenerator(rescale=1 / 255, horizontal_flip=True)
{before}
cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy()
"""


def test_an_image_generator_and_its_iterators_do_not_start_the_runtime() -> None:
    before = (
        'folders = augment.flow_from_directory("photos/train", batch_size=64)\n'
        "arrays = augment.flow(np.zeros((8, 4, 4, 3)), np.arange(8), batch_size=4)\n"
        'frames = augment.flow_from_dataframe(table, directory="photos")\n'
    )
    assert _findings(_SPLIT_AFTER.format(before=before), "TFD111") == []


def test_a_tensor_after_the_image_generator_still_starts_it() -> None:
    found = _findings(_SPLIT_AFTER.format(before="mean = tf.constant([0.5, 0.5, 0.5])\n"), "TFD111")
    assert [f.start.line for f in found] == [10]
