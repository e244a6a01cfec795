"""A TensorFlow 1.x program is a target fact: TF 2 names are no advice there (TFD401 stays silent
and offers no rewrite), while TF 2 code keeps every finding and its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.engine import check_source, fix_source

# A TPU program written for TensorFlow 1.x: `tf.contrib` exists only there, and so does no
# `tf.distribute.TPUStrategy` (added in 2.3): the experimental name is its only one.
CONTRIB = """\
import tensorflow as tf

resolver = tf.contrib.cluster_resolver.TPUClusterResolver(tpu="grpc://10.1.2.3:8470")
tf.contrib.distribute.initialize_tpu_system(resolver)
strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""
SESSION = """\
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 4])
strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
with tf.Session() as session:
    session.run(x)
"""
V1_BEHAVIOUR = """\
import tensorflow as tf

tf.compat.v1.disable_v2_behavior()
strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""
COMPAT_IMPORT = """\
import tensorflow.compat.v1 as tf

strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""
TF2 = """\
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="grpc://10.1.2.3:8470")
tf.tpu.experimental.initialize_tpu_system(resolver)
strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""
# Graph mode alone keeps the TF 2 names (tf.distribute.TPUStrategy exists): still TF 2 code.
GRAPH_MODE = """\
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""

# Written for TensorFlow 1 and 2: the 1.x names are the fallback path, the rename is still advice.
BRANCHED = """\
import tensorflow as tf

def first_batch(dataset):
    if tf.executing_eagerly():
        return next(iter(dataset))
    else:
        with tf.Session() as session:
            return session.run(tf.compat.v1.data.make_one_shot_iterator(dataset).get_next())

strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""
EARLY_RETURN = """\
import tensorflow as tf

def first_batch(dataset):
    if tf.executing_eagerly():
        return next(iter(dataset))
    with tf.Session() as session:
        return session.run(tf.compat.v1.data.make_one_shot_iterator(dataset).get_next())

strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""
VERSION_TEST = """\
import tensorflow as tf

IS_TF1 = tf.__version__.startswith("1.")
config = tf.ConfigProto() if IS_TF1 else None
strategy = tf.distribute.experimental.TPUStrategy(resolver)
"""


def _in_repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    return tmp_path / "train.py"


@pytest.mark.parametrize("source", [CONTRIB, SESSION, V1_BEHAVIOUR, COMPAT_IMPORT], ids=["contrib", "session", "v1-behaviour", "compat-import"])
def test_tf1_programs_get_no_tf2_names(tmp_path, source):
    path = str(_in_repo(tmp_path))
    assert [f.code for f in check_source(path, source).findings if f.code == "TFD401"] == []
    assert fix_source(path, source).fixed_text in (None, source)


@pytest.mark.parametrize(
    "source",
    [TF2, GRAPH_MODE, BRANCHED, EARLY_RETURN, VERSION_TEST],
    ids=["tf2", "graph-mode", "branched", "early-return", "version-test"],
)
def test_tf2_code_keeps_its_rename_and_fix(tmp_path, source):
    path = str(_in_repo(tmp_path))
    assert [f.code for f in check_source(path, source).findings if f.code == "TFD401"] == ["TFD401"]
    fixed = fix_source(path, source).fixed_text
    assert fixed is not None and "tf.distribute.experimental.TPUStrategy" not in fixed and "experimental.MultiWorker" not in fixed


def _target(tmp_path: Path, source: str, requirements: str | None = None):
    from fixer.engine import parse_source
    from fixer.tf.model import TFModel

    path = _in_repo(tmp_path)
    if requirements is not None:
        (tmp_path / "requirements.txt").write_text(requirements)
    parsed = parse_source(str(path), source)
    return TFModel(parsed.module, parsed.index, path=str(path), text=source).target


def test_a_name_only_tf1_has_makes_the_file_run_on_1_15(tmp_path):
    target = _target(tmp_path, CONTRIB, "tensorflow==2.4.0\n")
    assert target.tf1_program and target.version == (1, 15) and target.keras == 2
    assert target.tensorflow_from is not None and target.tensorflow_from.line == 3  # the first `tf.contrib` use


def test_the_compat_v1_api_runs_on_the_pinned_tensorflow(tmp_path):
    target = _target(tmp_path, COMPAT_IMPORT, "tensorflow==2.4.0\n")
    assert target.tf1_program and target.version == (2, 4)


@pytest.mark.parametrize("source", [TF2, GRAPH_MODE, BRANCHED, EARLY_RETURN, VERSION_TEST])
def test_tf2_code_is_no_tf1_program(tmp_path, source):
    assert not _target(tmp_path, source).tf1_program
