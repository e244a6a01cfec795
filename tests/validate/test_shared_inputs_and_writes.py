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


def _passed(examples: list[str], *datasets: list[str]) -> WorkerDump:
    dump = _dump(["b-" + "-".join(examples)], examples)
    dump.pass_examples = list(datasets)
    return dump


def test_examples_shared_in_the_data_only_pass_fail_with_the_evidence():
    # the steps drew disjoint examples; the pass over each worker's pipeline reads further and finds one
    result = checks.inputs_distinct([_passed(["e1"], ["e1", "e2", "e3"]), _passed(["e4"], ["e4", "e5", "e3"])])
    assert result.result == "fail"
    assert result.detail == (
        "in a data-only pass over each worker's input pipeline, worker 0 and worker 1 both read 1 of the same examples "
        "(of 3 read by worker 0; worker 1's example 3 is one): the input is not sharded between workers"
    )
    second = checks.inputs_distinct([_passed(["e1"], ["t1", "t2"], ["v1", "v2"]), _passed(["e4"], ["t3", "t4"], ["v3", "v2"])])
    assert second.result == "fail" and " of distributed dataset 2, " in second.detail


def test_a_repeating_pass_is_judged_on_its_first_epoch_and_constant_data_is_not_judged():
    # each worker's part of a .repeat()-ed dataset starts over: one epoch each, disjoint
    repeated = checks.inputs_distinct([_passed(["e1"], ["a", "b", "a", "b", "a"]), _passed(["e4"], ["c", "d", "c", "d", "c"])])
    assert repeated.result == "pass" and repeated.detail.endswith(", none in a data-only pass (2 + 2 examples)")
    unsharded = checks.inputs_distinct([_passed(["e1"], ["a", "b", "a", "b"]), _passed(["e4"], ["b", "a", "b", "a"])])
    assert unsharded.result == "fail" and "both read 2 of the same examples" in unsharded.detail
    constant = checks.inputs_distinct([_passed(["e1"], ["z", "z", "z"]), _passed(["e4"], ["z", "z", "z"])])
    assert constant.result == "pass" and "data-only pass" not in constant.detail
    # duplicate rows that are not a repeat of the start (could be shared by chance): not judged
    duplicates = checks.inputs_distinct([_passed(["e1"], ["a", "b", "a", "q"]), _passed(["e4"], ["a", "c", "d", "e"])])
    assert duplicates.result == "pass" and "data-only pass" not in duplicates.detail


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


LARGE_UNSHARDED = MWMS.replace("range(64)", "range(4096)").format(dataset=UNSHARDED.replace("shuffle(64", "shuffle(4096"), save="")
LARGE_SHARDED_REPEATED = MWMS.replace("range(64)", "range(256)").format(dataset="dataset = dataset.repeat()", save="")


@pytest.mark.tensorflow
def test_the_data_only_pass_sees_unsharded_input_the_steps_missed(tmp_path: Path):
    # 3 steps draw 12 examples per worker out of 4,096 shuffled differently on each worker
    # (expected overlap 0.04 example); the pass reads 2,048 per worker (expected overlap 1,024).
    script = tmp_path / "train.py"
    script.write_text(LARGE_UNSHARDED)
    report = validate(script, RunSpec(workers=2, device="cpu", max_steps=3, timeout=300), compare=False)
    inputs = {c.name: c for c in report.variants["original"].checks}["inputs-distinct"]
    assert inputs.result == "fail" and inputs.detail.startswith("in a data-only pass over each worker's input pipeline, worker 0 and worker 1"), report.table()


@pytest.mark.tensorflow
def test_the_data_only_pass_of_sharded_repeated_input_passes(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(LARGE_SHARDED_REPEATED)
    report = validate(script, RunSpec(workers=2, device="cpu", max_steps=3, timeout=300), compare=False)
    inputs = {c.name: c for c in report.variants["original"].checks}["inputs-distinct"]
    # each worker's part (128 of the 256 examples) starts over: judged on one epoch each
    assert inputs.result == "pass" and inputs.detail.endswith(", none in a data-only pass (128 + 128 examples)"), report.table()


@pytest.mark.tensorflow
def test_sharded_input_and_the_chief_writing_pass(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(MWMS.format(dataset="", save=OWN_SAVE))
    report = validate(script, RunSpec(workers=2, device="cpu", max_steps=20, timeout=300), compare=False)
    results = {c.name: c for c in report.variants["original"].checks}
    assert results["inputs-distinct"].result == "pass" and "no example shared" in results["inputs-distinct"].detail, report.table()
    assert results["writes-distinct"].result == "pass", report.table()
