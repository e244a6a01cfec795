"""Which Keras major version a name runs under, for the rules whose verdict depends on it.

:func:`keras_major` tells it from the import, the script's TF_USE_LEGACY_KERAS and the
project-target model (``tf.target``), through fixer/tf/keras_flavour.py;
:func:`keras_upgrade_prefix` words a finding the pinned version does not have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.tf.keras_flavour import keras_flavour, keras_module, legacy_keras

if TYPE_CHECKING:
    import libcst as cst

    from fixer.target import Target
    from fixer.tf.model import TFModel


def keras_major(tf: TFModel, name: cst.BaseExpression, target: Target | None = None) -> int | None:
    """2 or 3 for the Keras that ``name`` (a Keras class or module path as written, e.g.
    ``tf.keras.layers.experimental.SyncBatchNormalization``) resolves to on ``target`` (default:
    the project's, ``tf.target``); None when it cannot be told."""
    module = keras_module(tf, name)
    if module == "tf_keras":
        return 2  # no need to read the project's pins
    return keras_flavour(module, legacy_keras(tf), target or tf.target)


def keras_upgrade_prefix(tf: TFModel, name: cst.BaseExpression, found_under: int = 3) -> str:
    """ "on upgrade to TF X.Y: " for a finding made because ``name`` is Keras ``found_under`` on
    the requested target while the pinned version runs the other Keras (no finding there)."""
    target = tf.target
    return target.upgrade_prefix(same_at_pin=keras_major(tf, name, target.at_pin()) == found_under)
