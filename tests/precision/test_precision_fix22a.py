"""Regression tests for issue 28 (fix22a): ledger20a's classes 2 and 3, in our own words, each with
the control that keeps the finding where it is right (premises: benchmarks/probe_ledger20a_premises.py
and benchmarks/probe_fix22a_premises.py).

- TFD202: a stream-processing framework starts every TensorFlow worker itself, calls an entry of the
  module with a context, and the entry asks an object made from that context for the worker's own
  stream (or hands that stream to a module helper's parameter); with `AutoShardPolicy.OFF` set on
  it, each worker reads only its own records. A dataset the module builds from arrays, read whole by
  two hand-started workers, stays reported.
- TFD401: a TF1-only file (`tf.keras.backend.get_session()` outside any version test) runs on
  TensorFlow 1.x, which has only the experimental MultiWorkerMirroredStrategy; a file written for
  both majors, in a project whose README supports a 1.x and a 2.x line, is judged on the older line.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source
from tests.project_trees import tree

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding


def _findings(text: str, code: str, path: str = "train.py") -> list[Finding]:
    return [f for f in check_source(path, textwrap.dedent(text)).findings if f.code == code]


def _project_findings(root: Path, files: dict[str, str], checked: str, code: str) -> list[Finding]:
    tree(root, {name: textwrap.dedent(text) for name, text in files.items()})
    path = root / checked
    return [f for f in check_source(str(path), path.read_text()).findings if f.code == code]


# -- TFD202: a stream the framework hands each worker ----------------------------------------------

_STREAM_ENTRY = """
import json
import os

import numpy as np
import tensorflow as tf
from streamkit.worker import WorkerSession


def fit_on(make_input):
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd")
    model.fit(make_input(), epochs=3)


def on_worker_start(handle):
    session = WorkerSession(handle)
    os.environ["TF_CONFIG"] = json.dumps(session.cluster_spec())

    def records():
        ds = {root}.map(lambda line: tf.strings.to_number(line)).batch(16)
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        return ds.with_options(options)

    fit_on(records)
"""


def test_a_stream_asked_of_the_framework_context_with_sharding_off_is_quiet() -> None:
    assert _findings(_STREAM_ENTRY.format(root="session.worker_records()"), "TFD202") == []


def test_the_same_entry_over_arrays_it_builds_stays_reported() -> None:
    root = "tf.data.Dataset.from_tensor_slices(np.arange(64.0))"
    found = _findings(_STREAM_ENTRY.format(root=root), "TFD202")
    assert [f.start.line for f in found] == [25]
    assert found[0].fix is not None


def test_an_entry_the_module_calls_itself_stays_reported() -> None:
    # `on_worker_start("job.cfg")`: the module runs it, so the object is no framework's hand-over.
    text = _STREAM_ENTRY.format(root="session.worker_records()") + '\n\non_worker_start("job.cfg")\n'
    assert [f.start.line for f in _findings(text, "TFD202")] == [25]


_HELPER_PARAMETER = """
import tensorflow as tf
from streamkit.worker import WorkerSession


def parse(stream, batch_size):
    ds = stream.batch(batch_size).map(lambda line: tf.strings.to_number(line))
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    return ds.with_options(options)


def on_worker_start(handle):
    session = WorkerSession(handle)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd")
    model.fit(parse({given}, 32), epochs=3)
"""


def test_a_helper_parameter_every_caller_fills_with_the_handed_stream_is_quiet() -> None:
    assert _findings(_HELPER_PARAMETER.format(given="session.worker_records()"), "TFD202") == []


def test_a_helper_parameter_given_a_file_read_stays_reported() -> None:
    found = _findings(_HELPER_PARAMETER.format(given='tf.data.TextLineDataset("train.csv")'), "TFD202")
    assert [f.start.line for f in found] == [9]


# -- TFD401: the TensorFlow 1 line a file runs on -------------------------------------------------------

_SESSION_CALLBACK = """
import tensorflow as tf


class PrintWeights(tf.keras.callbacks.Callback):
    def on_train_end(self, logs=None):
{read}


def train(ds):
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd")
    model.fit(ds, callbacks=[PrintWeights()])
"""
_SESSION_READ = """\
        session = tf.keras.backend.get_session()
        print([session.run(w) for w in self.model.weights])"""
_EITHER_READ = """\
        if tf.executing_eagerly():
            print([w.numpy() for w in self.model.weights])
        else:
            session = tf.keras.backend.get_session()
            print([session.run(w) for w in self.model.weights])"""
_PINNED = {"requirements.txt": "tensorflow==2.4.1\n"}


def test_a_file_reading_weights_through_the_keras_session_gets_no_rename(tmp_path: Path) -> None:
    files = {**_PINNED, "train.py": _SESSION_CALLBACK.format(read=_SESSION_READ)}
    assert _project_findings(tmp_path, files, "train.py", "TFD401") == []


def test_the_keras_session_only_in_the_graph_arm_keeps_the_rename(tmp_path: Path) -> None:
    files = {**_PINNED, "train.py": _SESSION_CALLBACK.format(read=_EITHER_READ)}
    found = _project_findings(tmp_path, files, "train.py", "TFD401")
    assert [f.start.line for f in found] == [15]
    assert found[0].fix is not None


_DUAL = """
import tensorflow as tf

on_tf2 = int(tf.__version__.split(".")[0]) == 2


def train(make_input):
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd")
    model.fit(make_input(), epochs=2 if on_tf2 else 1)
"""
_EAGER_ONLY = """
import tensorflow as tf


def train(make_input):
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(loss="mse", optimizer="sgd")
    model.fit(make_input(), epochs=2)
"""


def _two_lines(readme: str) -> dict[str, str]:
    return {
        "README.md": f"# Streams\n\n## Supported versions\n{readme}\n",
        **_PINNED,
        "dual.py": _DUAL,
        "eager.py": _EAGER_ONLY,
    }


def test_a_file_written_for_both_majors_is_judged_on_the_older_supported_line(tmp_path: Path) -> None:
    files = _two_lines("- TensorFlow: 1.15.x & 2.4.x")
    assert _project_findings(tmp_path, files, "dual.py", "TFD401") == []


def test_other_files_of_such_a_project_keep_the_finding_without_the_edit(tmp_path: Path) -> None:
    found = _project_findings(tmp_path, _two_lines("- TensorFlow: 1.15.x & 2.4.x"), "eager.py", "TFD401")
    assert [f.start.line for f in found] == [6]
    assert found[0].fix is None
    assert "README.md:4 also lists TensorFlow 1.15" in found[0].message


def test_a_readme_stating_one_line_keeps_the_rename_of_a_file_written_for_both(tmp_path: Path) -> None:
    found = _project_findings(tmp_path, _two_lines("- TensorFlow: 2.4.x"), "dual.py", "TFD401")
    assert [f.start.line for f in found] == [8]
    assert found[0].fix is not None
