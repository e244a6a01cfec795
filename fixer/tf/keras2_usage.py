"""Whether a module is written for Keras 2: a call Keras 3 rejects, handed to the project-target
model as evidence (``Target.with_keras2_usage``, fixer/target/model.py).

Measured on TensorFlow 2.21 (benchmarks/probe_keras2_only_calls.py): Keras 3 raises ValueError
for an optimizer's `lr=` keyword and has no `fit_generator` / `evaluate_generator` /
`predict_generator`; tf-keras (Keras 2) accepts both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.target.requirements import Range
from fixer.target.sources import Evidence

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

_OPTIMIZER_MODULES = ("tensorflow.keras.optimizers.", "keras.optimizers.")
_GENERATOR_METHODS = frozenset({"fit_generator", "evaluate_generator", "predict_generator"})


def keras2_usage_evidence(index: ModuleIndex, names: NameResolver, path: str, text: str) -> Evidence | None:
    """The first call in the module that only Keras 2 accepts (`Adam(lr=0.001)`,
    `model.fit_generator(...)`), as a statement about its target; None when there is none."""
    for call in index.calls:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _GENERATOR_METHODS:
            return _statement(func.attr.value, path, text)
        qualified = names.qualified(func) or ""
        if qualified.startswith(_OPTIMIZER_MODULES) and any(
            arg.keyword is not None and arg.keyword.value == "lr" for arg in call.args
        ):
            return _statement("lr=", path, text)
    return None


def _statement(spelled: str, path: str, text: str) -> Evidence:
    offset = text.find(spelled)
    line = text.count("\n", 0, offset) + 1 if offset >= 0 else 1
    return Evidence("keras2-usage", Range(), path, line, spelled)
