"""The `tf.data` API by name: what builds a dataset, what chains on one, what distributes one.

Names only (no analysis), so that the module summaries of project imports
(fixer/tf/module_summary.py) read them without the dataset model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

DATASET_CONSTRUCTORS = (
    "tensorflow.data.Dataset.",
    "tensorflow.data.TFRecordDataset",
    "tensorflow.data.TextLineDataset",
    "tensorflow.data.FixedLengthRecordDataset",
    "tensorflow.data.experimental.make_csv_dataset",
    "tensorflow.data.experimental.make_batched_features_dataset",
    "keras.utils.image_dataset_from_directory",
    "keras.utils.text_dataset_from_directory",
    "keras.preprocessing.image_dataset_from_directory",
)
DATASET_METHODS = frozenset(
    {
        "batch",
        "map",
        "shuffle",
        "repeat",
        "prefetch",
        "take",
        "skip",
        "filter",
        "cache",
        "unbatch",
        "padded_batch",
        "interleave",
        "flat_map",
        "with_options",
        "shard",
        "apply",
        "zip",
        "concatenate",
        "rebatch",
        "ragged_batch",
        "enumerate",
        "window",
    }
)
DISTRIBUTING = frozenset(
    {
        "experimental_distribute_dataset",
        "distribute_datasets_from_function",
        "experimental_distribute_datasets_from_function",
    }
)


TFDS_LOADS = frozenset({"tensorflow_datasets.load"})


def loads_tfds_split(callee: str | None, call: cst.Call) -> bool:
    """``tfds.load(..., split=...)``: a `tf.data` dataset per split (without a split: a dict of them)."""
    return callee in TFDS_LOADS and any(a.keyword is not None and a.keyword.value == "split" for a in call.args)
