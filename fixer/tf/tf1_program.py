"""Whether a module is written for TensorFlow 1.x: a fact about the TensorFlow it runs, handed to
the project-target model (``ctx.tf.target.tf1_program``, fixer/target/model.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.target.requirements import Range
from fixer.target.sources import Evidence, exactly
from fixer.tf.compat import imported_modules
from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

# Top-level names that only TensorFlow 1.x has (gone from `tf` in 2.0; `tf.compat.v1` keeps them).
_TF1_ONLY_NAMES = frozenset(
    {
        "tensorflow.Session",
        "tensorflow.InteractiveSession",
        "tensorflow.placeholder",
        "tensorflow.ConfigProto",
        "tensorflow.global_variables_initializer",
        "tensorflow.get_variable",
        "tensorflow.variable_scope",
    }
)
# Names of the TensorFlow 1 API kept by TensorFlow 2: a program using them is written for 1.x
# behaviour, though it runs on the pinned TensorFlow 2.
_V1_API_NAMES = (
    "tensorflow.compat.v1.disable_v2_behavior",
    "tensorflow.estimator.tpu.TPUEstimator",
    "tensorflow.compat.v1.estimator.tpu.TPUEstimator",
)


def tf1_program_evidence(index: ModuleIndex, names: NameResolver, path: str, text: str) -> Evidence | None:
    """What shows the file is written for TensorFlow 1.x APIs, as a statement about its target
    (fixer/target); None for a TensorFlow 2 program.

    A name only 1.x has (``tensorflow.contrib``, ``tf.Session``, ``tf.placeholder`` under
    ``import tensorflow as tf``) means the file runs on TensorFlow 1.15 (``allowed`` is 1.15).
    ``import tensorflow.compat.v1 as tf`` (its ``distribute`` namespace has only the experimental
    strategy classes), ``disable_v2_behavior()`` and TPUEstimator mean the TensorFlow 1 API on
    the pinned TensorFlow (``allowed`` open). Graph mode alone (``disable_eager_execution()``
    under ``import tensorflow as tf``) is neither: the TF 2 names are there.
    """
    v1_api: str | None = None
    for module in imported_modules(index):
        if module.startswith("tensorflow.contrib"):
            return _statement(module, path, text, tf1_only=True)
        if module == "tensorflow.compat.v1" or module.startswith("tensorflow.compat.v1."):
            v1_api = v1_api or module
    for attribute in index.attributes:
        if isinstance(index.parent.get(attribute), cst.Attribute):
            continue  # the longest chain is qualified once
        qualified = names.qualified(attribute) or ""
        if qualified.startswith("tensorflow.contrib.") or qualified in _TF1_ONLY_NAMES:
            return _statement(dotted_name(attribute) or qualified, path, text, tf1_only=True)
        if qualified.startswith(_V1_API_NAMES):
            v1_api = v1_api or dotted_name(attribute) or qualified
    return _statement(v1_api, path, text, tf1_only=False) if v1_api is not None else None


def _statement(name: str, path: str, text: str, *, tf1_only: bool) -> Evidence:
    """``name`` (as the file writes it) as a target statement at its first line in ``text``."""
    offset = text.find(name.rsplit(".", 1)[-1]) if name not in text else text.find(name)
    line = text.count("\n", 0, offset) + 1 if offset >= 0 else 1
    return Evidence("tf1-program", exactly((1, 15)) if tf1_only else Range(), path, line, name)
