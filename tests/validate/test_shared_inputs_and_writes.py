"""Workers that read the same examples, or write one path, fail with the evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixer.validate import checks
from fixer.validate.runner import RunSpec, WorkerDump
from fixer.validate.session import validate


def _dump(inputs: list[str], examples: list[str], writes: list[dict] | None = None) -> WorkerDump:
    return WorkerDump("ok", inputs=inputs, examples=examples, writes=writes or [])


def test_overlapping_examples_in_different_batches_fail():
    result = checks.inputs_distinct([_dump(["b1", "b2"], ["e1", "e2", "e3", "e4"]), _dump(["b3", "b4"], ["e5", "e3", "e6", "e1"])])
    assert result.result == "fail"
    assert result.detail.startswith("worker 0 and worker 1 both trained on 2 of the same examples (of 4 and 4 drawn; worker 1's example 2")


def test_disjoint_examples_pass_and_repeating_data_is_not_judged_by_example():
    disjoint = checks.inputs_distinct([_dump(["b1"], ["e1", "e2"]), _dump(["b2"], ["e3", "e4"])])
    assert disjoint.result == "pass" and disjoint.detail == "2 distinct batches across 2 workers, no example shared (2 + 2 examples)"
    repeating = checks.inputs_distinct([_dump(["b1", "b2"], ["e1", "e1"]), _dump(["b3"], ["e1", "e2"])])
    assert repeating.result == "pass" and repeating.detail == "3 distinct batches across 2 workers"


def test_arrays_keras_fit_shuffles_per_worker_are_not_judged_by_example():
    first, second = _dump(["b1"], ["e1", "e2"]), _dump(["b2"], ["e2", "e3"])
    first.fit_arrays = second.fit_arrays = True
    result = checks.inputs_distinct([first, second])
    assert result.result == "pass" and result.detail == "2 distinct batches across 2 workers"


def test_one_path_written_by_two_workers_fails():
    save = {"path": "ckpt/model.h5", "what": "Model.save", "line": 12}
    result = checks.writes_distinct([_dump([], [], [save]), _dump([], [], [save, {"path": "logs/x", "what": "Checkpoint.write", "line": 3}])])
    assert result.result == "fail"
    assert result.detail == "`ckpt/model.h5` is written by 2 workers (worker 0: Model.save (line 12); worker 1: Model.save (line 12)): only the chief may write there"
    apart = checks.writes_distinct([_dump([], [], [save]), _dump([], [], [{**save, "path": "/tmp/worker1/model.h5"}])])
    assert apart.result == "pass" and apart.detail == "2 path(s) written, each by one worker"
    assert checks.writes_distinct([_dump([], []), _dump([], [])]).result == "inconclusive"
    assert checks.writes_distinct([_dump([], [], [save])]).result == "inconclusive"


MWMS = """\
import json
import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
dataset = tf.data.Dataset.range(64).map(lambda i: tf.cast(i, tf.float32))
{dataset}
dist = strategy.experimental_distribute_dataset(dataset.batch(8))
with strategy.scope():
    total = tf.Variable(0.0)
checkpoint = tf.train.Checkpoint(total=total)


@tf.function
def step(batch):
    strategy.run(lambda x: total.assign_add(tf.reduce_sum(x)), args=(batch,))


for batch in dist:
    step(batch)
{save}
"""
UNSHARDED = (
    "options = tf.data.Options()\n"
    "options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF\n"
    "dataset = dataset.shuffle(64, seed=index).with_options(options)"
)
# Both workers write one path, one after the other: written at once, the two writes can collide
# (seen: `ckpt/state_temp/part-00000-of-00001 not found`), and the run would fail before the
# example and write checks could judge it. The lock keeps this test about what it checks.
SHARED_SAVE = "import fcntl; lock = open('write.lock', 'w'); fcntl.flock(lock, fcntl.LOCK_EX); checkpoint.write('ckpt/state')"
OWN_SAVE = "checkpoint.write('ckpt/state' if index == 0 else f'ckpt-worker-{index}/state')"


@pytest.mark.tensorflow
def test_two_workers_reading_the_same_examples_and_writing_one_path_fail(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(MWMS.format(dataset=UNSHARDED, save=SHARED_SAVE))
    report = validate(script, RunSpec(workers=2, device="cpu", max_steps=20, timeout=300), compare=False)
    results = {c.name: c for c in report.variants["original"].checks}
    assert results["runs"].result == "pass", report.table()
    assert results["inputs-distinct"].result == "fail" and "of the same examples" in results["inputs-distinct"].detail, report.table()
    assert results["writes-distinct"].result == "fail", report.table()
    assert results["writes-distinct"].detail.startswith("`ckpt/state` is written by 2 workers (worker 0: Checkpoint.write (line 25)")


@pytest.mark.tensorflow
def test_sharded_input_and_the_chief_writing_pass(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(MWMS.format(dataset="", save=OWN_SAVE))
    report = validate(script, RunSpec(workers=2, device="cpu", max_steps=20, timeout=300), compare=False)
    results = {c.name: c for c in report.variants["original"].checks}
    assert results["inputs-distinct"].result == "pass" and "no example shared" in results["inputs-distinct"].detail, report.table()
    assert results["writes-distinct"].result == "pass", report.table()
