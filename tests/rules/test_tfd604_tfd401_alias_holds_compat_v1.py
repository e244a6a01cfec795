"""TFD604 and TFD401 where `tf` may hold `tensorflow.compat.v1` (issue 28, ledger20a class 1).

A PAI-style runner binds its alias to the TF 1 API, by an import tried first or by rebinding the
alias after a version test. Through that alias `tf.distribute.experimental.ParameterServerStrategy()`
is the TF 1 class, which builds with no cluster resolver, and `tf.distribute` has no stable
`MultiWorkerMirroredStrategy`, so the experimental name is not deprecated there
(benchmarks/probe_ledger20a_premises.py). The controls keep both findings where `tf` is only
`import tensorflow as tf`.
"""

from __future__ import annotations

from checked_codes import codes_of

_TRIED_IMPORT = """
import json
import os
try:
    import tensorflow.compat.v1 as tf
except ImportError:
    import tensorflow as tf

def make_config(cluster, task):
    os.environ["TF_CONFIG"] = json.dumps({{"cluster": cluster, "task": task}})
    strategy = tf.distribute.experimental.{cls}()
    return tf.estimator.RunConfig(train_distribute=strategy)
"""

_REBOUND_AFTER_VERSION_TEST = """
import tensorflow as tf
if tf.__version__ >= "2.0":
    tf = tf.compat.v1

def make_config(kind):
    if kind == "ps":
        strategy = tf.distribute.experimental.ParameterServerStrategy()
    else:
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    return tf.estimator.RunConfig(train_distribute=strategy)
"""

_REBOUND = _REBOUND_AFTER_VERSION_TEST.replace('if tf.__version__ >= "2.0":\n    tf', "tf")

_PLAIN = """
import tensorflow as tf

def make_config(kind):
    if kind == "ps":
        strategy = tf.distribute.experimental.ParameterServerStrategy()
    else:
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    return tf.estimator.RunConfig(train_distribute=strategy)
"""


def _codes(source: str) -> list[str]:
    return sorted(c for c in codes_of(source) if c in {"TFD401", "TFD604"})


def test_a_tried_compat_v1_import_is_the_tf1_parameter_server_strategy():
    assert _codes(_TRIED_IMPORT.format(cls="ParameterServerStrategy")) == []


def test_a_tried_compat_v1_import_keeps_the_experimental_multi_worker_name():
    assert _codes(_TRIED_IMPORT.format(cls="MultiWorkerMirroredStrategy")) == []


def test_an_alias_rebound_to_compat_v1_after_a_version_test_is_neither():
    assert _REBOUND != _REBOUND_AFTER_VERSION_TEST
    assert _codes(_REBOUND_AFTER_VERSION_TEST) == []


def test_an_alias_rebound_to_compat_v1_unconditionally_is_neither():
    assert _codes(_REBOUND) == []


def test_control_plain_tensorflow_keeps_both_findings():
    assert _codes(_PLAIN) == ["TFD401", "TFD604"]
