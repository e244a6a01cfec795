"""Regression tests for issue 28 (prec34): ledger13b's classes 2, 3 and 5, in our own words, each
with the control that keeps the finding where it is right.

- Class 2 (TFD108): `.numpy()` on a `strategy.run` result where a replica-count test says there is
  one replica (the `else` of `if count > 1`, the body of `if count == 1`): `run` returns plain
  tensors there (benchmarks/probe_ledger13b_premises.py).
- Class 5 (TFD504): a program that builds a `tf.keras.optimizers.legacy` optimizer runs on Keras 2
  only (Keras 3 raises ImportError there, the same probe): no Keras-3-only finding about its `fit`.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import pytest

from fixer.engine import check_source
from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path


def _lines(text: str, code: str) -> list[int]:
    return [f.start.line for f in check_source("predict.py", textwrap.dedent(text)).findings if f.code == code]


def _line_of(text: str, snippet: str) -> int:
    """The line (from 1) of the first line of ``text`` holding ``snippet``."""
    return next(n for n, line in enumerate(textwrap.dedent(text).splitlines(), 1) if snippet in line)


# -- class 2: TFD108 in the one-replica arm of a replica-count test ---------------------------------

_PREDICT = """
import tensorflow as tf

try:
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
except ValueError:
    resolver = None
if resolver:
    strategy = tf.distribute.TPUStrategy(resolver)
else:
    strategy = tf.distribute.get_strategy()
{count}


def infer(batch):
    return tf.argmax(batch, axis=1)


@tf.function
def sharded_infer(batch):
    return strategy.run(infer, args=(batch,))


for batch in tf.data.Dataset.range(4).batch(2):
    labels = sharded_infer(batch)
    if {test}:
        {several}
    else:
        {single}
"""

_VALUES = "out = labels.values[0].numpy()"
_PLAIN = "out = labels.numpy()"


@pytest.mark.parametrize(
    ("count", "test"),
    [
        ("WORKERS = strategy.num_replicas_in_sync", "WORKERS > 1"),
        ("", "strategy.num_replicas_in_sync > 1"),
        ("", "strategy.num_replicas_in_sync >= 2"),
        ("", "1 < strategy.num_replicas_in_sync"),
        ("WORKERS = strategy.num_replicas_in_sync", "WORKERS != 1"),
    ],
)
def test_numpy_in_the_one_replica_else_is_not_reported(count: str, test: str) -> None:
    text = _PREDICT.format(count=count, test=test, several=_VALUES, single=_PLAIN)
    assert _lines(text, "TFD108") == []


def test_numpy_in_the_several_replica_arm_is_still_reported() -> None:
    # The `if` arm runs with several replicas: `.numpy()` of the run result raises there.
    text = _PREDICT.format(
        count="WORKERS = strategy.num_replicas_in_sync", test="WORKERS > 1", several=_PLAIN, single=_PLAIN
    )
    assert _lines(text, "TFD108") == [_line_of(text, _PLAIN)]


def test_numpy_in_the_body_of_a_one_replica_test_is_not_reported() -> None:
    text = _PREDICT.format(count="", test="strategy.num_replicas_in_sync == 1", several=_PLAIN, single=_VALUES)
    assert _lines(text, "TFD108") == []


def test_unguarded_numpy_and_other_tests_are_still_reported() -> None:
    unguarded = _PREDICT.replace(
        "    if {test}:\n        {several}\n    else:\n        {single}\n", "    out = labels.numpy()\n"
    )
    unguarded = unguarded.format(count="")
    assert _lines(unguarded, "TFD108") == [_line_of(unguarded, _PLAIN)]
    # A test on something else than the replica count says nothing about the run result.
    other = _PREDICT.format(count="STEPS = 3", test="STEPS > 1", several=_VALUES, single=_PLAIN)
    assert _lines(other, "TFD108") == [_line_of(other, _PLAIN)]
    # A name rebound on some path is not known to hold the replica count.
    rebound = _PREDICT.format(
        count="WORKERS = strategy.num_replicas_in_sync\nif resolver is None:\n    WORKERS = 8",
        test="WORKERS > 1",
        several=_VALUES,
        single=_PLAIN,
    )
    assert _lines(rebound, "TFD108") == [_line_of(rebound, _PLAIN)]


# -- class 5: TFD504 in a program that builds a legacy optimizer (Keras 2 only) ---------------------

_WORKERS = """
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(4)])
    net.compile(optimizer={optimizer}, loss="mse")
features = tf.data.Dataset.from_tensor_slices(([[1.0]] * 8, [[2.0]] * 8)).batch(4)
net.fit(features, epochs=2)
"""


def _project_lines(root: Path, text: str, code: str) -> list[int]:
    """``code``'s finding lines in ``text`` checked as a file under ``root``, a folder that pins
    nothing (the target is read from the program itself)."""
    findings = check_source(str(root / "train.py"), textwrap.dedent(text)).findings
    return [f.start.line for f in findings if f.code == code]


def test_fit_in_a_program_with_a_legacy_optimizer_is_not_reported_for_keras3(tmp_path: Path) -> None:
    # Keras 3 raises ImportError building the legacy optimizer: the program runs on tf-keras only.
    assert _project_lines(tmp_path, _WORKERS.format(optimizer="tf.keras.optimizers.legacy.SGD(0.1)"), "TFD504") == []


def test_fit_with_a_current_optimizer_is_still_reported(tmp_path: Path) -> None:
    text = _WORKERS.format(optimizer="tf.keras.optimizers.SGD(0.1)")
    assert _project_lines(tmp_path, text, "TFD504") == [_line_of(text, "net.fit(")]


# -- class 3: TFD503, a chief-only HDF5 save whose suffix comes from a default ---------------------

_CHIEF_SAVE = """
import argparse
import json
import os

import tensorflow as tf

WEIGHTS = "final.h5"
strategy = tf.distribute.MultiWorkerMirroredStrategy()


def train(options, target={target}):
    with strategy.scope():
        net = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
        net.compile(optimizer="sgd", loss="mse")
    net.fit(tf.data.Dataset.from_tensor_slices(([[1.0]] * 8, [[0.5]] * 8)).batch(4), epochs=2)
    if json.loads(os.environ["TF_CONFIG"])["task"]["index"] == 0:
        net.{method}({path})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out-file", default={flag})
    train(parser.parse_args())
"""


def _chief_save(path: str, flag: str = '"weights.h5"', target: str = '"last.h5"', method: str = "save_weights") -> str:
    return _CHIEF_SAVE.format(path=path, flag=flag, target=target, method=method)


@pytest.mark.parametrize("path", ["os.path.join('/tmp', WEIGHTS)", "target"])
def test_a_chief_only_hdf5_save_through_a_default_is_not_reported(path: str) -> None:
    # The suffix is a module constant, a parameter's default nothing passes.
    assert _lines(_chief_save(path), "TFD503") == []


_FLAG_PATH = '"/tmp/" + options.out_file'
_JOB = """
spec:
  containers:
  - command: ["python", "train.py"]
    args:
    - "--out-file={value}"
"""


def _project_saves(root: Path, flag: str, job: str | None) -> list[int]:
    """TFD503's lines in train.py checked with ``root`` as the project (``job``: a launcher)."""
    text = textwrap.dedent(_chief_save(_FLAG_PATH, flag=flag))
    (root / "train.py").write_text(text)
    if job is not None:
        (root / "job.yaml").write_text(job)
    (result,) = list(run([root / "train.py"], Job(use_cache=False, project_roots=(str(root),)), jobs=1))
    return [f.start.line for f in result.findings if f.code == "TFD503"]


@pytest.mark.parametrize(
    ("flag", "job"),
    [('"weights.h5"', None), ("None", _JOB.format(value="final.h5")), ('"w.keras"', _JOB.format(value="final.h5"))],
)
def test_a_flag_the_launchers_leave_or_pass_as_hdf5_is_read(tmp_path: Path, flag: str, job: str | None) -> None:
    # The default when no launcher passes the flag; the launcher's one value when it does.
    assert _project_saves(tmp_path, flag, job) == []


@pytest.mark.parametrize(
    ("flag", "job"),
    [('"weights.h5"', _JOB.format(value="final.keras")), ("None", None)],
)
def test_a_flag_not_known_to_be_hdf5_keeps_the_finding(tmp_path: Path, flag: str, job: str | None) -> None:
    assert _project_saves(tmp_path, flag, job) == [_line_of(_chief_save(_FLAG_PATH), '["index"] == 0')]


def test_a_flag_default_outside_a_project_is_not_read() -> None:
    # No project root: what launches the script is unknown, so the default may be overridden.
    text = _chief_save(_FLAG_PATH)
    assert _lines(text, "TFD503") == [_line_of(text, '["index"] == 0')]


def test_a_chief_only_hdf5_model_save_is_not_reported() -> None:
    assert _lines(_chief_save('"/tmp/net.h5"', method="save"), "TFD503") == []


@pytest.mark.parametrize(
    ("path", "flag", "target"),
    [
        ("os.path.join('/tmp', WEIGHTS.replace('.h5', '.keras'))", '"weights.h5"', '"last.h5"'),  # unknown
        ("target", '"weights.h5"', '"ckpt"'),  # a TF-format checkpoint prefix
    ],
)
def test_other_chief_only_saves_are_still_reported(path: str, flag: str, target: str) -> None:
    text = _chief_save(path, flag, target)
    assert _lines(text, "TFD503") == [_line_of(text, '["index"] == 0')]


def test_a_parameter_default_a_call_overrides_is_not_read() -> None:
    text = _chief_save("target").replace("train(parser.parse_args())", 'train(parser.parse_args(), "out")')
    assert _lines(text, "TFD503") == [_line_of(text, '["index"] == 0')]


def test_a_model_with_batch_normalisation_is_still_reported() -> None:
    # Measured: a chief-only HDF5 save of BatchNormalization's statistics meets the others' all-reduce.
    text = _chief_save('"/tmp/net.h5"').replace("tf.keras.layers.Dense(3)", "tf.keras.layers.BatchNormalization()")
    assert _lines(text, "TFD503") == [_line_of(text, '["index"] == 0')]
