"""TFD108 on a strategy class distfix does not know (issue 28, ledger11b fp class 4).

A hardware vendor's own TensorFlow build ships a strategy of its own; a program picks it when the
accelerator is there and the default strategy otherwise. Neither arm gives several tf.distribute
replicas, so `float()` of what `run` returns is a plain tensor: not reported. The controls keep
the finding where a multi-replica tf.distribute class (or an unknown parameter) reaches the run.
"""

from __future__ import annotations

from checked_codes import codes_of

from fixer.tf.replica_evidence import _vendor_strategy_class

_PICKED = """
import tensorflow as tf
try:
    from tensorflow.python import accel
except ImportError:
    pass

def inner_loop(weights):
    return tf.reduce_sum(weights)

def main(use_accel, weights):
    if use_accel:
        strategy = {first}
    else:
        strategy = {second}
    with strategy.scope():
        for turn in range(3):
            total = strategy.run(inner_loop, args=[weights])
            print(turn, float(total))

main(True, tf.ones([2]))
"""

_VENDOR = "accel.accel_strategy.AccelStrategy()"
_DEFAULT = "tf.distribute.get_strategy()"


def _tfd108(first: str, second: str) -> list[str]:
    return [c for c in codes_of(_PICKED.format(first=first, second=second)) if c == "TFD108"]


def test_a_vendor_strategy_or_the_default_one_is_not_tfd108():
    assert _tfd108(_VENDOR, _DEFAULT) == []


def test_a_vendor_strategy_or_one_device_is_not_tfd108():
    assert _tfd108(_VENDOR, 'tf.distribute.OneDeviceStrategy("/cpu:0")') == []


def test_control_a_mirrored_strategy_in_the_other_arm_stays_tfd108():
    assert _tfd108(_VENDOR, "tf.distribute.MirroredStrategy()") == ["TFD108"]


def test_control_a_mirrored_strategy_or_the_default_stays_tfd108():
    assert _tfd108("tf.distribute.MirroredStrategy()", _DEFAULT) == ["TFD108"]


_PARAMETER = """
import tensorflow as tf

def inner_loop(weights):
    return tf.reduce_sum(weights)

def evaluate(strategy, weights):
    print(strategy.num_replicas_in_sync)
    total = strategy.run(inner_loop, args=[weights])
    return float(total)
"""


def test_control_a_strategy_parameter_of_unknown_class_stays_tfd108():
    assert [c for c in codes_of(_PARAMETER) if c == "TFD108"] == ["TFD108"]


# ledger20a fp class 5: a vendor class whose name carries a version suffix after `Strategy`
# (Graphcore's `IPUStrategyV1`), the one strategy of a test, its `run` result read as a tensor.
_VERSIONED = """
import numpy as np
import tensorflow as tf
from tensorflow.python.accel import accel_strategy

def step(x):
    return x * 2.0

def check_device():
    strategy = accel_strategy.{cls}()
    with strategy.scope():
        out = strategy.run(step, args=[tf.ones([4])])
        print(out.device, np.sum(out.numpy()))

def check_input():
    # A tf.distribute method called on the same name elsewhere makes the strategy model take it for one.
    strategy = accel_strategy.{cls}()
    with strategy.scope():
        return strategy.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(4))
"""


def _versioned_tfd108(cls: str) -> list[str]:
    return [c for c in codes_of(_VERSIONED.format(cls=cls)) if c == "TFD108"]


def test_a_vendor_strategy_with_a_version_suffix_is_not_tfd108():
    assert _versioned_tfd108("AccelStrategyV1") == []
    assert _versioned_tfd108("AccelStrategyV2") == []


def test_control_a_mirrored_strategy_in_the_same_shape_stays_tfd108():
    source = _VERSIONED.replace("accel_strategy.{cls}()", "tf.distribute.MirroredStrategy()")
    assert source != _VERSIONED
    assert [c for c in codes_of(source) if c == "TFD108"] == ["TFD108"]


def test_control_a_vendor_class_that_only_ends_in_v1_is_no_strategy_evidence():
    # `AccelRunnerV1` names no strategy: the suffix is dropped only after `Strategy`.
    assert not _vendor_strategy_class("tensorflow.python.accel.accel_strategy.AccelRunnerV1")
    assert _vendor_strategy_class("tensorflow.python.accel.accel_strategy.AccelStrategyV12")
    assert not _vendor_strategy_class("tensorflow.distribute.experimental.SomeStrategyV1")
