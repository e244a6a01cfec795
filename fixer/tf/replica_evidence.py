"""Whether a `strategy.run` can hand back one value per replica, from what its receiver may hold.

`strategy.run` returns a PerReplica value only on a tf.distribute strategy with several replicas.
The strategy model counts a name as a strategy when any assignment in the file gives it a known
class, so `s = VendorStrategy()` in one arm and `s = tf.distribute.get_strategy()` in the other
makes `s` a strategy. What reaches the call decides: a vendor's strategy class (Graphcore's
`IPUStrategy` from the vendor's own TensorFlow build) is not one distfix knows, so it is no
evidence of several tf.distribute replicas; neither is `OneDeviceStrategy` nor the default
strategy (`get_strategy()` run outside every scope).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.strategies import STRATEGY_CLASSES, Membership

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_ONE_DEVICE = "tensorflow.distribute.OneDeviceStrategy"
_GET_STRATEGY = "tensorflow.distribute.get_strategy"
# `V1`/`V2`... after a class name: the versioned variants a vendor build ships next to the plain one.
_VERSION_SUFFIX = re.compile(r"V\d+$")


def may_run_several_replicas(tf: TFModel, strategy: cst.BaseExpression) -> bool:
    """False when every value that can reach ``strategy`` (a `.run` receiver) is known to give no
    PerReplica: a strategy class distfix does not know, `OneDeviceStrategy`, or the default strategy.

    True otherwise, and whenever the values are not all known (a parameter, an attribute, a
    factory's result): the rule keeps what it decided before.
    """
    if isinstance(strategy, cst.Attribute) and strategy.attr.value == "extended":
        strategy = strategy.value
    if not isinstance(strategy, cst.Name):
        return True
    values = [b.value for b in tf.semantic.resolve(strategy)]
    if not values or any(value is None for value in values):
        return True
    return not all(_no_replicas_evidence(tf, value) for value in values if value is not None)


def _no_replicas_evidence(tf: TFModel, value: cst.BaseExpression) -> bool:
    """``value`` constructs a strategy that returns plain values from `run`, or one distfix does not know."""
    if not isinstance(value, cst.Call):
        return False
    callee = tf.names.callee(value)
    if callee is None:
        return False  # a local class or factory: the strategy model may know what it returns
    if callee == _ONE_DEVICE:
        return True
    if callee == _GET_STRATEGY:
        return tf.strategies.membership(value) is Membership.OUTSIDE
    return _vendor_strategy_class(callee)


def _vendor_strategy_class(callee: str) -> bool:
    """``callee`` names a strategy class of another package (or of a vendor's TensorFlow build),
    not a tf.distribute one distfix knows: ``tensorflow.python.ipu.ipu_strategy.IPUStrategy``, also
    with a version suffix (Graphcore's ``IPUStrategyV1``, as tf.distribute's own ``...StrategyV1``)."""
    last = _VERSION_SUFFIX.sub("", callee.rsplit(".", 1)[-1])
    return (
        callee not in STRATEGY_CLASSES
        and not callee.startswith("tensorflow.distribute.")
        and last.endswith("Strategy")
        and last[:1].isupper()
    )
