"""Whether a module is written for Keras 2: a call Keras 3 rejects, handed to the project-target
model as evidence (``Target.with_keras2_usage``, fixer/target/model.py).

Measured on TensorFlow 2.21 (benchmarks/probe_keras2_only_calls.py): Keras 3 raises ValueError
for an optimizer's `lr=` keyword and has no `fit_generator` / `evaluate_generator` /
`predict_generator`; tf-keras (Keras 2) accepts both. Keras 3 has no
`tf.keras.layers.experimental.preprocessing` and no `tf.keras.optimizers.experimental`
(AttributeError; tf-keras has both). Keras 3 raises ImportError when a
`tf.keras.optimizers.legacy` optimizer is built; tf-keras builds it
(benchmarks/probe_ledger13b_premises.py). A module that imports a package built on Keras 2
(`tensorflow_addons`, TensorFlow <= 2.15: fixer/target/versions.py KERAS2_PACKAGES) is written for
Keras 2 too. So is one that calls `reset_states()` on a metric
made from `tf.keras.metrics`: Keras 3 metrics only have `reset_state` (AttributeError on 2.21,
tf-keras has both: benchmarks/probe_ledger7a_premises.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.target.caps import import_cap
from fixer.target.requirements import Range
from fixer.target.sources import Evidence, line_of
from fixer.tf.bindings import assigned_values
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

_OPTIMIZER_MODULES = ("tensorflow.keras.optimizers.", "keras.optimizers.")
_GENERATOR_METHODS = frozenset({"fit_generator", "evaluate_generator", "predict_generator"})
# Modules only Keras 2 has (probe_keras2_only_calls.py): a call into them is Keras 2 code.
_KERAS2_ONLY_MODULES = (
    "tensorflow.keras.layers.experimental.preprocessing.",
    "tensorflow.keras.optimizers.experimental.",
    "tensorflow.keras.optimizers.legacy.",  # ImportError on Keras 3 (probe_ledger13b_premises.py)
)
# `tf.keras.metrics.*` as written (standalone `keras.metrics` is Keras 3 beside TensorFlow 2.21).
_TF_KERAS_METRICS = "tensorflow.keras.metrics."


def keras2_usage_evidence(index: ModuleIndex, names: NameResolver, path: str, text: str) -> Evidence | None:
    """The first call in the module that only Keras 2 accepts (`Adam(lr=0.001)`,
    `model.fit_generator(...)`, `tf.keras.optimizers.experimental.AdamW()`) or an import of a
    package built on Keras 2 (`tensorflow_addons`), as a statement about its target; None when
    there is none."""
    package = import_cap(text, path)
    if package is not None:
        return package
    for call in index.calls:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _GENERATOR_METHODS:
            return _statement(func.attr.value, path, text)
        if isinstance(func, cst.Attribute) and func.attr.value == "reset_states" and _keras_metric(index, names, func):
            return _statement(f"{dotted_name(func.value)}.reset_states", path, text)
        spelled = names.as_imported(func) or ""  # as written: the canonical form drops `experimental`
        if spelled.startswith(_KERAS2_ONLY_MODULES):
            return _statement(spelled.rsplit(".", 1)[-1], path, text)
        qualified = names.qualified(func) or ""
        if qualified.startswith(_OPTIMIZER_MODULES) and any(
            arg.keyword is not None and arg.keyword.value == "lr" for arg in call.args
        ):
            return _statement("lr=", path, text)
    return None


def _keras_metric(index: ModuleIndex, names: NameResolver, method: cst.Attribute) -> bool:
    """``method``'s receiver (``train_loss``, ``self.train_loss``) is assigned only from
    `tf.keras.metrics` constructors (``tf.keras.metrics.Mean(name="loss")``)."""
    values = assigned_values(index, dotted_name(method.value))
    return bool(values) and all(
        isinstance(value, cst.Call) and (names.as_imported(value.func) or "").startswith(_TF_KERAS_METRICS)
        for value in values
    )


def _statement(spelled: str, path: str, text: str) -> Evidence:
    offset = text.find(spelled)
    line = line_of(text, offset) if offset >= 0 else 1
    return Evidence("keras2-usage", Range(), path, line, spelled)
