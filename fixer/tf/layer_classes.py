"""Keras `Layer` subclasses of a module that are not models.

A layer class's `__init__` runs when the model holding it is constructed, and Keras 3 creates a
layer's variables when it is built, not when it is constructed: TFD101 reports where the
outermost model is constructed, never at each sub-layer a layer class makes for itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.classes import bases_in_module
from fixer.tf.keras_models import keras_model_base

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

_LAYER_BASES = frozenset({"keras.layers.Layer", "keras.Layer"})


def keras_layer_only(index: ModuleIndex, names: NameResolver, cls: cst.ClassDef) -> bool:
    """``cls`` derives from a Keras `Layer` (directly or through classes of the module) and not
    from a Keras `Model`."""
    if keras_model_base(index, names, cls) is not None:
        return False
    return any(
        names.qualified(arg.value) in _LAYER_BASES
        for candidate in [cls, *bases_in_module(index, cls)]
        for arg in candidate.bases
    )


def method_of_layer_only(index: ModuleIndex, names: NameResolver, node: cst.CSTNode) -> bool:
    """``node`` runs in a method of a :func:`keras_layer_only` class of the module."""
    func = index.enclosing_function(node)
    owner = index.method_class(func) if isinstance(func, cst.FunctionDef) else None
    return owner is not None and keras_layer_only(index, names, owner)
