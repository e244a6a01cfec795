"""Keras `Sequential` models made only of layers that create no weights.

Random augmentation layers (`RandomFlip`, `RandomRotation`, ...) and fixed preprocessing layers
(`Rescaling`, `Resizing`, `CenterCrop`) hold no trainable or non-trainable weights: their only
state is a random generator. A `Sequential` of nothing else, made outside `strategy.scope()` and
used in a model built in it, trains under the strategy on both Kerases
(`benchmarks/probe_augmentation_rng_outside_scope.py`), so TFD101 has nothing to move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex
    from fixer.tf.names import NameResolver

# Layer classes whose construction and build make no weights (Keras 3 and tf-keras spellings).
_WEIGHTLESS = frozenset(
    {
        "RandomFlip",
        "RandomRotation",
        "RandomTranslation",
        "RandomContrast",
        "RandomZoom",
        "RandomCrop",
        "RandomBrightness",
        "RandomHeight",
        "RandomWidth",
        "Rescaling",
        "Resizing",
        "CenterCrop",
        "InputLayer",
    }
)
_LAYER_PREFIXES = ("keras.layers.", "keras.layers.experimental.preprocessing.")
_SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})


def weightless_sequential(index: ModuleIndex, names: NameResolver, call: cst.Call, bound: tuple[str, ...]) -> bool:
    """``call`` builds a Keras `Sequential` from a literal list of weightless layers (or
    `keras.Input`) only, and no `.add(...)` on a name it is bound to (``bound``) grows it later."""
    if names.callee(call) not in _SEQUENTIAL or not call.args:
        return False
    layers = call.args[0].value if call.args[0].keyword is None else None
    if not isinstance(layers, (cst.List, cst.Tuple)) or not layers.elements:
        return False
    if not all(_weightless_layer(names, element.value) for element in layers.elements):
        return False
    return not any(
        isinstance(other.func, cst.Attribute)
        and other.func.attr.value == "add"
        and isinstance(other.func.value, cst.Name)
        and other.func.value.value in bound
        for other in index.calls
    )


def _weightless_layer(names: NameResolver, value: cst.BaseExpression) -> bool:
    """``value`` constructs one weightless Keras layer, or is `keras.Input(...)`."""
    if not isinstance(value, cst.Call):
        return False
    qualified = names.callee(value)
    if qualified is None:
        return False
    if qualified in ("keras.Input", "keras.layers.Input"):
        return True
    return any(qualified.startswith(prefix) and qualified[len(prefix) :] in _WEIGHTLESS for prefix in _LAYER_PREFIXES)
