"""Shared analysis for the input rules: which expressions are `tf.data` datasets.

Not a rule: TFD201 and TFD202 both need it.
"""

from __future__ import annotations

import libcst as cst

from fixer.engine import RuleContext

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
        "batch", "map", "shuffle", "repeat", "prefetch", "take", "skip", "filter", "cache", "unbatch",
        "padded_batch", "interleave", "flat_map", "with_options", "shard", "apply", "zip", "concatenate",
        "rebatch", "ragged_batch", "enumerate", "window",
    }
)
DISTRIBUTING = frozenset(
    {"experimental_distribute_dataset", "distribute_datasets_from_function", "experimental_distribute_datasets_from_function"}
)


class DatasetModel:
    """Names bound to datasets in one module, and whether an expression is a dataset."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self.names: dict[str, cst.BaseExpression] = {}
        for _ in range(3):  # a few passes so `b = a.batch(4)` after `a = Dataset...` resolves
            for assign in ctx.index.assigns:
                if isinstance(assign, cst.Assign) and self.is_dataset(assign.value):
                    for target in assign.targets:
                        if isinstance(target.target, cst.Name):
                            self.names[target.target.value] = assign.value

    def is_dataset(self, expr: cst.BaseExpression) -> bool:
        """True for a `tf.data` dataset that is not distributed by a strategy."""
        if isinstance(expr, cst.Name):
            return expr.value in self.names
        if not isinstance(expr, cst.Call):
            return False
        callee = self.ctx.tf.names.callee(expr)
        if callee is not None:
            return callee.startswith(DATASET_CONSTRUCTORS)
        func = expr.func
        if isinstance(func, cst.Attribute):
            if func.attr.value in DISTRIBUTING:
                return False
            if func.attr.value in DATASET_METHODS:
                return self.is_dataset(func.value)
        return False

    def origin(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """The defining expression of a dataset name, or the expression itself."""
        if isinstance(expr, cst.Name) and expr.value in self.names:
            return self.names[expr.value]
        return expr
