"""Which Keras major version a name runs under, for the rules whose verdict depends on it.

One entry point, :func:`keras_major`, so that the way the Keras in play is told (today the
import, TF_USE_LEGACY_KERAS and a TensorFlow pin below 2.16, through fixer/tf/keras_flavour.py)
can be replaced in one place.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.keras_flavour import keras_flavour, keras_module, legacy_keras
from fixer.tf.project import pinned_below

if TYPE_CHECKING:
    from fixer.context import RuleContext


def keras_major(ctx: RuleContext, name: cst.BaseExpression) -> int | None:
    """2 or 3 for the Keras that ``name`` (a Keras class or module path as written, e.g.
    ``tf.keras.layers.experimental.SyncBatchNormalization``) resolves to; None when it cannot be told."""
    module = keras_module(ctx, name)
    if module == "tf_keras":
        return 2  # no need to read the project's pins
    pinned_keras2 = pinned_below(Path(ctx.path).resolve().parent, (2, 16))
    return keras_flavour(module, legacy_keras(ctx), pinned_keras2)
