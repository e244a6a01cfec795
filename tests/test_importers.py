"""The project-wide view of importers (fixer/tf/importers.py): a helper module is reported for
what the script importing it does with it.

Each test writes a small project of our own to a temporary folder and runs it as `distfix check
FOLDER` would (a job whose project root is the folder), or through the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fixer.runner import Job, run
from fixer.tf.importer_uses import FIT
from fixer.tf.importers import importers_of, project_roots

SHUFFLING_BUILDER = """\
import tensorflow as tf


def make_dataset(batch_size):
    ds = tf.data.Dataset.range(64)
    ds = ds.shuffle(64)
    return ds.batch(batch_size)
"""

MWMS_TRAINER = """\
import tensorflow as tf

from data import make_dataset

strategy = tf.distribute.{strategy}()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
{extra}train = make_dataset(16)
model.fit(train, epochs=1)
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def _findings(project: Path, name: str, code: str, use_cache: bool = False) -> list:
    job = Job(use_cache=use_cache, project_roots=(str(project),))
    results = run(sorted(project.rglob("*.py")), job, jobs=1)
    by_path = {Path(r.path).name: r for r in results}
    return [f for f in by_path[name].findings if f.code == code]


def _trainer(strategy: str = "MultiWorkerMirroredStrategy", extra: str = "") -> str:
    return MWMS_TRAINER.format(strategy=strategy, extra=extra)


def test_a_builder_that_shuffles_before_auto_sharding_is_reported_at_its_shuffle(tmp_path):
    _write(tmp_path, {"data.py": SHUFFLING_BUILDER, "main.py": _trainer()})
    (finding,) = _findings(tmp_path, "data.py", "TFD204")
    assert (finding.start.line, finding.start.column) == (6, 13)
    assert "`main.py` line 9 passes `make_dataset()` to `fit` under MultiWorkerMirroredStrategy" in finding.message
    assert finding.fix is not None  # the same constant seed as in a single file


def test_the_builder_alone_or_under_another_strategy_is_not_reported(tmp_path):
    _write(tmp_path, {"data.py": SHUFFLING_BUILDER})
    assert _findings(tmp_path, "data.py", "TFD204") == []
    _write(tmp_path, {"main.py": _trainer("MirroredStrategy")})
    assert _findings(tmp_path, "data.py", "TFD204") == []


def test_a_seeded_shuffle_or_an_importer_that_sets_the_policy_or_a_seed_is_not_reported(tmp_path):
    _write(tmp_path, {"data.py": SHUFFLING_BUILDER.replace("shuffle(64)", "shuffle(64, seed=7)"), "main.py": _trainer()})
    assert _findings(tmp_path, "data.py", "TFD204") == []
    _write(tmp_path, {"data.py": SHUFFLING_BUILDER, "main.py": _trainer(extra="tf.random.set_seed(1)\n")})
    assert _findings(tmp_path, "data.py", "TFD204") == []
    policy = "options = tf.data.Options()\noptions.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF\n"
    _write(tmp_path, {"main.py": _trainer(extra=policy)})
    assert _findings(tmp_path, "data.py", "TFD204") == []


def test_a_builder_reading_files_is_sharded_by_file_and_not_reported(tmp_path):
    reader = SHUFFLING_BUILDER.replace("tf.data.Dataset.range(64)", 'tf.data.TFRecordDataset(["a", "b"])')
    _write(tmp_path, {"data.py": reader, "main.py": _trainer()})
    assert _findings(tmp_path, "data.py", "TFD204") == []


def test_a_cached_helper_result_is_dropped_when_its_importer_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("DISTFIX_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    _write(project, {"data.py": SHUFFLING_BUILDER, "main.py": _trainer()})
    old = 1_700_000_000  # well in the past: the stat index may keep the result
    for name in ("data.py", "main.py"):
        os.utime(project / name, (old, old))
    assert len(_findings(project, "data.py", "TFD204", use_cache=True)) == 1
    (project / "main.py").write_text(_trainer("MirroredStrategy"))
    os.utime(project / "main.py", (old + 10, old + 10))
    assert _findings(project, "data.py", "TFD204", use_cache=True) == []


def test_the_view_reads_an_importer_again_when_it_changes(tmp_path):
    """Live (the language server): each analysis (a `project_roots` block) lists and stats the
    project once, so its questions see one state of the files and the next analysis sees edits."""
    _write(tmp_path, {"data.py": SHUFFLING_BUILDER, "main.py": _trainer()})
    with project_roots((str(tmp_path),), live=True):
        uses = importers_of(str(tmp_path / "data.py"))
        assert uses is not None
        (use,) = uses.uses("make_dataset")
        assert (use.line, use.feeds, use.strategies) == (9, frozenset({FIT}), frozenset({"MultiWorkerMirroredStrategy"}))
        (tmp_path / "main.py").write_text("import tensorflow as tf\nfrom data import make_dataset\n\nmodel.fit(make_dataset(8))\n")
        os.utime(tmp_path / "main.py", (1_700_000_000, 1_700_000_000))
        assert importers_of(str(tmp_path / "data.py")).uses("make_dataset") == [use]
    with project_roots((str(tmp_path),), live=True):
        assert importers_of(str(tmp_path / "data.py")).uses("make_dataset") == []


def test_check_of_the_folder_reports_the_helper_and_check_of_the_helper_alone_does_not(tmp_path):
    _write(tmp_path, {"data.py": SHUFFLING_BUILDER, "main.py": _trainer()})
    env = {**os.environ, "DISTFIX_CACHE_DIR": str(tmp_path / "cache")}

    def check(target: str) -> str:
        return subprocess.run(
            [sys.executable, "-m", "fixer", "check", "--select", "TFD204", target],
            capture_output=True, text=True, env=env, cwd=os.getcwd(), check=False,
        ).stdout

    assert "data.py:6:13: TFD204" in check(str(tmp_path))
    assert "TFD204" not in check(str(tmp_path / "data.py"))


MODEL_MODULE = """\
import tensorflow as tf

train_acc = tf.keras.metrics.SparseCategoricalAccuracy()


class Trainer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(10)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=logits)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        train_acc.update_state(y, logits)
        return {"accuracy": train_acc.result()}
"""

MODEL_TRAINER = """\
import numpy as np
import tensorflow as tf

from model import Trainer

strategy = tf.distribute.MirroredStrategy()
{construct}
model.fit(np.zeros((64, 4)), np.zeros((64,)), batch_size=16, epochs=1)
"""

IN_SCOPE = "with strategy.scope():\n    model = Trainer()\n    model.compile(optimizer='adam', loss='mse')"


def test_a_metric_of_the_module_read_by_train_step_of_a_model_fit_under_a_strategy_is_reported(tmp_path):
    _write(tmp_path, {"model.py": MODEL_MODULE, "main.py": MODEL_TRAINER.format(construct=IN_SCOPE)})
    (finding,) = _findings(tmp_path, "model.py", "TFD101")
    assert finding.start.line == 3
    assert "`Trainer.train_step` reads it, and `main.py` line 8 constructs `Trainer` in a strategy scope" in finding.message


def test_a_model_class_not_built_in_a_scope_or_a_metric_made_in_init_is_not_reported(tmp_path):
    outside = "model = Trainer()\nmodel.compile(optimizer='adam', loss='mse')"
    _write(tmp_path, {"model.py": MODEL_MODULE, "main.py": MODEL_TRAINER.format(construct=outside)})
    assert _findings(tmp_path, "model.py", "TFD101") == []
    in_init = MODEL_MODULE.replace("train_acc = tf.keras.metrics.SparseCategoricalAccuracy()\n", "").replace(
        "        self.dense = tf.keras.layers.Dense(10)\n",
        "        self.dense = tf.keras.layers.Dense(10)\n        self.acc = tf.keras.metrics.SparseCategoricalAccuracy()\n",
    ).replace("train_acc.", "self.acc.")
    _write(tmp_path, {"model.py": in_init, "main.py": MODEL_TRAINER.format(construct=IN_SCOPE)})
    assert _findings(tmp_path, "model.py", "TFD101") == []


PLAIN_BUILDER = """\
import tensorflow as tf


def make_dataset(batch_size):
    ds = tf.data.Dataset.from_tensor_slices(list(range(64)))
    return ds.batch(batch_size)
"""

LOOP_TRAINER = """\
import tensorflow as tf

from data import make_dataset

strategy = tf.distribute.{strategy}()
with strategy.scope():
    w = tf.Variable(1.0)


@tf.function
def distributed_step(batch):
    return strategy.run(lambda x: x * w, args=(batch,))


train = {source}
for step, batch in enumerate(train):
    {feed}
"""


def _loop_trainer(
    strategy: str = "MirroredStrategy", source: str = "make_dataset(16)", feed: str = "distributed_step(batch)"
) -> str:
    return LOOP_TRAINER.format(strategy=strategy, source=source, feed=feed)


def test_a_plain_pipeline_the_importer_iterates_into_strategy_run_is_reported_at_the_helper(tmp_path):
    _write(tmp_path, {"data.py": PLAIN_BUILDER, "main.py": _loop_trainer()})
    (finding,) = _findings(tmp_path, "data.py", "TFD201")
    assert (finding.start.line, finding.start.column) == (6, 12)
    assert "`main.py` line 15 iterates `make_dataset()` and hands its batches to `strategy.run`" in finding.message
    assert finding.fix is None  # the importer is where the dataset gets distributed
    # Directly to the strategy's `run` in the loop, and with the loop over the call itself.
    direct = "strategy.run(lambda x: x * w, args=(batch,))"
    _write(tmp_path, {"main.py": _loop_trainer(feed=direct)})
    assert len(_findings(tmp_path, "data.py", "TFD201")) == 1
    looped = _loop_trainer(feed=direct).replace(
        "train = make_dataset(16)\nfor step, batch in enumerate(train):", "for batch in make_dataset(16):"
    )
    assert "for batch in make_dataset(16):" in looped
    _write(tmp_path, {"main.py": looped})
    assert len(_findings(tmp_path, "data.py", "TFD201")) == 1


def test_a_helper_with_a_session_run_of_its_own_is_still_reported(tmp_path):
    # Its `session.run` passes the text stages of TFD201 and fails its fact (no `strategy.run` here):
    # the finding comes from the importer's loop, so the fact must not drop the rule.
    helper = PLAIN_BUILDER + (
        "\n\ndef initialise(session, op):\n    session.run(op)\n"
        "\n\ndef replicas(strategy):\n    return strategy.num_replicas_in_sync\n"
    )
    _write(tmp_path, {"data.py": helper, "main.py": _loop_trainer()})
    (finding,) = _findings(tmp_path, "data.py", "TFD201")
    assert (finding.start.line, finding.start.column) == (6, 12)


def test_a_distributed_or_single_replica_or_unrun_pipeline_is_not_reported_at_the_helper(tmp_path):
    _write(tmp_path, {"data.py": PLAIN_BUILDER})
    assert _findings(tmp_path, "data.py", "TFD201") == []  # no importer
    for trainer in (
        _loop_trainer(source="strategy.experimental_distribute_dataset(make_dataset(16))"),
        _loop_trainer(strategy="OneDeviceStrategy"),
        _loop_trainer(feed="print(batch)"),  # the batches never reach the replicas
        _loop_trainer(feed="session.run(batch)"),  # a `run` that is not the strategy's
    ):
        _write(tmp_path, {"main.py": trainer.replace("OneDeviceStrategy()", 'OneDeviceStrategy("/cpu:0")')})
        assert _findings(tmp_path, "data.py", "TFD201") == [], trainer


UNSHARDED_BUILDER = """\
import tensorflow as tf


def make_dataset(batch_size):
    ds = tf.data.Dataset.from_tensor_slices(list(range(64))).batch(batch_size)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    return ds.with_options(options)
"""


def test_a_builder_that_turns_auto_sharding_off_is_reported_at_its_policy(tmp_path):
    _write(tmp_path, {"data.py": UNSHARDED_BUILDER, "main.py": _trainer()})
    (finding,) = _findings(tmp_path, "data.py", "TFD202")
    assert (finding.start.line, finding.start.column) == (7, 57)
    assert "`main.py` line 9 hands `make_dataset()` to the workers of a MultiWorkerMirroredStrategy" in finding.message
    assert finding.fix is None


def test_an_off_policy_builder_sharded_or_not_under_multi_worker_is_not_reported(tmp_path):
    _write(tmp_path, {"data.py": UNSHARDED_BUILDER})
    assert _findings(tmp_path, "data.py", "TFD202") == []  # no importer
    _write(tmp_path, {"main.py": _trainer("MirroredStrategy")})
    assert _findings(tmp_path, "data.py", "TFD202") == []  # one worker
    sharded = UNSHARDED_BUILDER.replace(".batch(batch_size)", ".shard(2, 0).batch(batch_size)")
    _write(tmp_path, {"data.py": sharded, "main.py": _trainer()})
    assert _findings(tmp_path, "data.py", "TFD202") == []  # sharded by hand
