"""Regression tests for issue 28 (prec37): ledger14a's classes, in our own words, each with the
control that keeps the finding where it is right.

- Class 1 (TFD101 and its unsafe fix): a per-example buffer the replicas update row by row with
  `scatter_add`, made outside the scope on purpose: right as one copy under MirroredStrategy, its
  replicas' rows lost once moved into the scope (benchmarks/probe_ledger14a_premises.py).
- Class 2 (TFD402): a module-level `train_step` bound into an orbit `StandardTrainer` subclass by a
  class-body assignment (`train_step = train_step`): orbit compiles its loop with `tf.function`.
- Class 3 (TFD201): a generator's batch rebound, before the step, to a value split by hand into one
  slice per replica (`PerReplica(...)`, `experimental_distribute_values_from_function`): the loop's
  element no longer reaches the call (fixer/semantic), so no replica gets the whole batch.
- Wrong fix 2 (TFD401's safe rename): the construction of the experimental TPUStrategy renamed while
  the same file or a project script calling the module tests `isinstance` against the experimental
  class, a sibling of the current one (same probe): advice naming the test, no edit.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from fixer.engine import check_source
from fixer.runner import Job, run

if TYPE_CHECKING:
    from pathlib import Path

    from fixer.types import Finding


def _findings(text: str, code: str, path: str = "train.py") -> list[Finding]:
    return [f for f in check_source(path, textwrap.dedent(text)).findings if f.code == code]


def _line_of(text: str, snippet: str) -> int:
    """The line (from 1) of the first line of ``text`` holding ``snippet``."""
    return next(n for n, line in enumerate(textwrap.dedent(text).splitlines(), 1) if snippet in line)


# -- class 1: TFD101, a per-example buffer updated row by row in the replica function --------------

_BUFFER = """
import tensorflow as tf

strategy = {strategy}
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    sgd = tf.keras.optimizers.SGD()

per_example = tf.Variable(tf.zeros((64, 1)))


@tf.function
def train(ids, x):
    def replica_step(ids, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(net(x) + tf.gather(per_example, ids))
        grads, row_grads = tape.gradient(loss, [net.trainable_variables, per_example])
        sgd.apply_gradients(zip(grads, net.trainable_variables))
        per_example.{write}

    strategy.run(replica_step, args=(ids, x))
"""
_SCATTER = "scatter_add(tf.IndexedSlices(-row_grads.values, row_grads.indices))"
_MIRRORED = "tf.distribute.MirroredStrategy()"


def test_a_row_buffer_under_mirrored_strategy_is_not_reported() -> None:
    assert _findings(_BUFFER.format(strategy=_MIRRORED, write=_SCATTER), "TFD101") == []


def test_a_row_buffer_where_a_tpu_may_run_is_advice_without_the_move() -> None:
    text = _BUFFER.format(strategy="tf.distribute.TPUStrategy(resolver)", write=_SCATTER)
    (finding,) = _findings(text, "TFD101")
    assert finding.start.line == _line_of(text, "per_example = tf.Variable(")
    assert finding.fix is None
    assert "do not move it into the scope" in finding.message


def test_a_buffer_the_replicas_assign_whole_keeps_the_finding_as_advice_without_the_move() -> None:
    # Moved as is, each replica's `assign_add` would stay on its own copy (fix22h,
    # benchmarks/probe_replica_assigned_variable.py): the finding asks for an aggregation instead.
    text = _BUFFER.format(strategy=_MIRRORED, write="assign_add(tf.ones((64, 1)))")
    (finding,) = _findings(text, "TFD101")
    assert finding.start.line == _line_of(text, "per_example = tf.Variable(")
    assert finding.fix is None
    assert "aggregation=" in finding.message


def test_a_scattered_variable_the_optimizer_also_trains_keeps_the_finding() -> None:
    text = _BUFFER.format(strategy=_MIRRORED, write=_SCATTER).replace(
        "zip(grads, net.trainable_variables)", "zip(grads + [row_grads], net.trainable_variables + [per_example])"
    )
    assert [f.start.line for f in _findings(text, "TFD101")] == [_line_of(text, "per_example = tf.Variable(")]


# -- wrong fix 2: TFD401 renames a construction an `isinstance` test elsewhere still names ---------

_MAKE_TPU = """
import tensorflow as tf


def make_strategy(resolver):
    return tf.distribute.experimental.TPUStrategy(resolver)
"""
_TESTS_TPU = """
import tensorflow as tf

import strategies

strategy = strategies.make_strategy(None)
on_tpu = isinstance(strategy, {tested})
"""


def test_a_construction_the_same_file_type_tests_gets_advice_without_the_rename() -> None:
    text = _MAKE_TPU + "\non_tpu = isinstance(make_strategy(None), tf.distribute.experimental.TPUStrategy)\n"
    (finding,) = _findings(text, "TFD401")
    assert finding.fix is None
    assert f"`isinstance` test at line {_line_of(text, 'on_tpu =')}" in finding.message


def _project_tpu_finding(root: Path, tested: str) -> Finding:
    (root / "strategies.py").write_text(textwrap.dedent(_MAKE_TPU))
    (root / "main.py").write_text(textwrap.dedent(_TESTS_TPU.format(tested=tested)))
    job = Job(use_cache=False, project_roots=(str(root),))
    (result,) = list(run([root / "strategies.py"], job, jobs=1))
    (finding,) = [f for f in result.findings if f.code == "TFD401"]
    return finding


def test_a_construction_a_project_script_type_tests_gets_advice_without_the_rename(tmp_path: Path) -> None:
    finding = _project_tpu_finding(tmp_path, "tf.distribute.experimental.TPUStrategy")
    assert finding.fix is None
    assert "`main.py` line 7" in finding.message


def test_a_construction_tested_only_against_the_current_class_keeps_the_safe_rename(tmp_path: Path) -> None:
    assert _project_tpu_finding(tmp_path, "tf.distribute.TPUStrategy").fix is not None


# -- class 2: TFD402, a step function bound into an orbit trainer by class-body assignment ---------

_ORBIT = """
import orbit
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    sgd = tf.keras.optimizers.SGD()


def train_step(self, iterator):
    def replica_step(batch):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(self.model(batch))
        grads = tape.gradient(loss, self.model.trainable_variables)
        sgd.apply_gradients(zip(grads, self.model.trainable_variables))

    self.strategy.run(replica_step, args=(next(iterator),))


class LoopTrainer({base}):
    train_step = {bound}


LoopTrainer(batches).train(tf.constant(100))
"""


def test_a_step_bound_into_an_orbit_trainer_by_assignment_is_not_reported() -> None:
    assert _findings(_ORBIT.format(base="orbit.StandardTrainer", bound="train_step"), "TFD402") == []


def test_a_step_bound_into_a_class_that_is_no_orbit_trainer_is_still_reported() -> None:
    text = _ORBIT.format(base="object", bound="train_step")
    assert [f.start.line for f in _findings(text, "TFD402")] == [_line_of(text, "self.strategy.run(")]


def test_an_orbit_trainer_binding_another_function_leaves_the_step_reported() -> None:
    text = _ORBIT.format(base="orbit.StandardTrainer", bound="staticmethod(print)")
    assert [f.start.line for f in _findings(text, "TFD402")] == [_line_of(text, "self.strategy.run(")]


# -- class 3: TFD201, a generator's batch split by hand into one value per replica ----------------

_SPLIT = """
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    sgd = tf.keras.optimizers.SGD()


def batches():
    for _ in range(10):
        yield np.ones((8, 4), np.float32)


@tf.function
def step(rows):
    def replica_step(rows):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(net(rows))
        sgd.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))

    strategy.run(replica_step, args=(rows,))


for rows in batches():
{rebind}    step(rows)
"""
_BY_HAND = """\
    parts = np.split(rows, strategy.num_replicas_in_sync)
    rows = strategy.experimental_distribute_values_from_function(lambda ctx: parts[ctx.replica_id_in_sync_group])
"""


def test_a_batch_split_by_hand_per_replica_is_not_reported() -> None:
    assert _findings(_SPLIT.format(rebind=_BY_HAND), "TFD201") == []


def test_the_generator_batch_handed_whole_is_still_reported() -> None:
    text = _SPLIT.format(rebind="")
    assert [f.start.line for f in _findings(text, "TFD201")] == [_line_of(text, "    step(rows)")]


def test_the_generator_batch_converted_in_place_is_still_reported() -> None:
    text = _SPLIT.format(rebind="    rows = rows.astype(np.float16)\n")
    assert [f.start.line for f in _findings(text, "TFD201")] == [_line_of(text, "    step(rows)")]
