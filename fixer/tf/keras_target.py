"""Which Keras major version a name runs under, for the rules whose verdict depends on it.

One entry point, :func:`keras_major`: the import, the script's TF_USE_LEGACY_KERAS and the
project-target model (``ctx.tf.target``), through fixer/tf/keras_flavour.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.keras_flavour import keras_flavour, keras_module, legacy_keras

if TYPE_CHECKING:
    from fixer.context import RuleContext


def keras_major(ctx: RuleContext, name: cst.BaseExpression) -> int | None:
    """2 or 3 for the Keras that ``name`` (a Keras class or module path as written, e.g.
    ``tf.keras.layers.experimental.SyncBatchNormalization``) resolves to; None when it cannot be told."""
    module = keras_module(ctx, name)
    if module == "tf_keras":
        return 2  # no need to read the project's pins
    return keras_flavour(module, legacy_keras(ctx), ctx.tf.target)
