"""TFD401 renames only true aliases: the `tf.compat.v1` strategy classes are TF1 classes of their own.

benchmarks/probe_compat_v1_strategy_classes.py measures on TensorFlow 2.21 that
`tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy` and `.TPUStrategy` are
`StrategyV1` subclasses, not the TF2 classes, while the compat.v1 `CollectiveCommunication` is the
very enum `tf.distribute.experimental.CommunicationImplementation` is.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from fixer.config import Config
from fixer.engine import check_source
from fixer.types import Applicability


def tfd401(tmp_path: Path, source: str):
    """TFD401's findings on ``source`` in a project with no version pin (TF 2.21 assumed)."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    result = check_source(str(tmp_path / "train.py"), dedent(source), Config())
    return [f for f in result.findings if f.code == "TFD401"]


def applied(source: str, finding) -> str:
    """``source`` with the finding's edits made."""
    text = dedent(source)
    for edit in sorted(finding.fix.edits, key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.content + text[edit.end :]
    return text


def test_the_graph_mode_multi_worker_class_is_left_alone(tmp_path):
    source = """\
        import tensorflow as tf

        strategy = tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy()
        config = tf.estimator.RunConfig(train_distribute=strategy)
        """
    assert tfd401(tmp_path, source) == []


def test_the_tf1_tpu_class_reached_through_a_module_alias_is_left_alone(tmp_path):
    source = """\
        import tensorflow as tf

        v1 = tf.compat.v1
        strategy = v1.distribute.experimental.TPUStrategy(resolver)
        """
    assert tfd401(tmp_path, source) == []


def test_a_test_parameter_list_keeps_the_v1_class_and_renames_the_tf2_alias(tmp_path):
    source = """\
        import tensorflow as tf

        STRATEGY_CLASSES = [
            tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy,
            tf.distribute.experimental.MultiWorkerMirroredStrategy,
        ]
        """
    (finding,) = tfd401(tmp_path, source)
    assert finding.start.line == 5
    assert "tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy," in applied(source, finding)
    assert "    tf.distribute.MultiWorkerMirroredStrategy," in applied(source, finding)


def test_the_compat_v1_communication_enum_is_a_true_alias_and_is_renamed(tmp_path):
    source = """\
        import tensorflow as tf

        options = tf.compat.v1.distribute.experimental.CollectiveCommunication.RING
        """
    (finding,) = tfd401(tmp_path, source)
    assert finding.fix is not None and finding.fix.applicability == Applicability.SAFE
    assert "options = tf.distribute.experimental.CommunicationImplementation.RING" in applied(source, finding)
