"""The TensorFlow semantic model every rule shares: names, strategies, scopes, replica functions."""

from fixer.tf.model import TFModel

__all__ = ["TFModel"]
