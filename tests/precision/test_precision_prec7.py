"""Regression tests for issue 28, ledger5 (task prec7): per-role checkpoint paths (TFD502) and
strategy steps that run in graph mode (TFD402).

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

from fixer.engine import check_source

# TFD502: the chief saves to the real directory, every other worker to its own temporary one ------

_TRAINED = """
    import json
    import os
    import shutil
    import tempfile

    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    model.fit(tf.data.Dataset.range(4), epochs=1)
    role = json.loads(os.environ["TF_CONFIG"])["task"]
    """


def test_other_workers_saving_into_their_own_mkdtemp_in_the_else_branch_is_not_tfd502():
    # The chief writes the platform's model folder; each other worker a folder mkdtemp() just
    # created for it (a name no other process gets), then removes it: no two writers share a path.
    source = _TRAINED + """
    if role["type"] == "chief":
        model.save(os.environ["MODEL_DIR"])
    else:
        scratch = tempfile.mkdtemp()
        model.save(os.path.join(scratch, "model.keras"))
        shutil.rmtree(scratch)
    """
    assert "TFD502" not in codes_of(source)


def test_a_path_chosen_per_role_then_saved_once_is_not_tfd502():
    # The path variable is set in both arms of the chief test, one save follows.
    source = _TRAINED + """
    if role["type"] == "chief":
        destination = os.environ["MODEL_DIR"]
    else:
        destination = os.path.join(tempfile.mkdtemp(), "model.keras")
    model.save(destination)
    """
    assert "TFD502" not in codes_of(source)


def test_a_temporary_directory_context_is_a_worker_s_own_path():
    source = _TRAINED + """
    if role["type"] == "chief":
        model.save(os.environ["MODEL_DIR"])
    else:
        with tempfile.TemporaryDirectory() as scratch:
            model.save(scratch + "/model.keras")
    """
    assert "TFD502" not in codes_of(source)


def test_every_worker_saving_to_one_literal_path_is_still_tfd502():
    # The control: no role test, no per-worker part: the writes race.
    assert "TFD502" in codes_of(_TRAINED + """
    model.save("/shared/model.keras")
    """)


def test_the_other_workers_sharing_one_fixed_folder_is_still_tfd502():
    # The else arm runs on every worker but the chief, all into one folder: they still race.
    source = _TRAINED + """
    if role["type"] == "chief":
        model.save(os.environ["MODEL_DIR"])
    else:
        model.save(os.path.join(tempfile.gettempdir(), "model.keras"))
    """
    assert "TFD502" in codes_of(source)


# TFD402: code that runs in graph mode because of its class ---------------------------------------

_HOOK = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()


    class {name}({base}):
        def __init__(self, values):
            self.values = values

        def begin(self):
            self.w = tf.Variable(1.0)
            self.opt = tf.keras.optimizers.SGD()

            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = self.w * x
                self.opt.apply_gradients([(tape.gradient(loss, self.w), self.w)])
                return loss

            self.ops = []
            for x in self.values:
                self.ops.append(strategy.run(replica_step, args=(x,)))
    """


def test_a_session_run_hook_method_builds_graph_ops_and_is_not_tfd402():
    # The Estimator calls `begin` while it builds its graph: `strategy.run` adds ops the session
    # runs later, and `@tf.function` on `begin` would move them into a function graph.
    source = _HOOK.format(name="WarmupHook", base="tf.estimator.SessionRunHook")
    assert "TFD402" not in codes_of(source)


def test_a_hook_subclassing_a_project_hook_in_another_module_is_not_tfd402(tmp_path):
    (tmp_path / "hooks_base.py").write_text("import tensorflow as tf\n\n\nclass BaseHook(tf.compat.v1.train.SessionRunHook):\n    pass\n")
    source = "from hooks_base import BaseHook\n" + textwrap.dedent(_HOOK.format(name="WarmupHook", base="BaseHook"))
    script = tmp_path / "hooks.py"
    script.write_text(source)
    codes = [f.code for f in check_source(str(script), source).findings]
    assert "TFD000" not in codes
    assert "TFD402" not in codes


def test_a_class_deriving_from_a_project_class_that_is_no_hook_is_still_tfd402(tmp_path):
    # The control: the project base class derives from `object`, not from a hook.
    (tmp_path / "hooks_base.py").write_text("class BaseHook:\n    pass\n")
    source = "from hooks_base import BaseHook\n" + textwrap.dedent(_HOOK.format(name="WarmupHook", base="BaseHook"))
    script = tmp_path / "hooks.py"
    script.write_text(source)
    assert "TFD402" in [f.code for f in check_source(str(script), source).findings]


def test_the_same_method_in_a_class_that_is_no_hook_is_still_tfd402():
    # The control: a class of its own with a `begin` method is eager code.
    source = _HOOK.format(name="Warmup", base="object")
    assert "TFD402" in codes_of(source)


_BASE_TRAINER = """\
import tensorflow as tf


class Trainer:
    \"\"\"Runs the subclass's step, compiled unless asked to run eagerly.\"\"\"

    def __init__(self, strategy, compile_step=True):
        self.strategy = strategy
        self.train_fn = tf.function(self.{compiled}) if compile_step else self.train_step

    def fit(self, dataset, steps):
        iterator = iter(dataset)
        for _ in range(steps):
            self.train_fn(next(iterator))
"""

_SUBCLASS = """\
import tensorflow as tf

from base_trainer import Trainer


class Classifier(Trainer):
    def __init__(self, strategy):
        super().__init__(strategy)
        with strategy.scope():
            self.w = tf.Variable(1.0)
            self.opt = tf.keras.optimizers.SGD()

    def replica_step(self, x):
        with tf.GradientTape() as tape:
            loss = self.w * x
        self.opt.apply_gradients([(tape.gradient(loss, self.w), self.w)])
        return loss

    def train_step(self, batch):
        return self.strategy.run(self.replica_step, args=(batch,))


strategy = tf.distribute.MirroredStrategy()
trainer = Classifier(strategy)
batches = tf.data.Dataset.range(64).batch(8).map(lambda b: tf.cast(b, tf.float32))
for epoch in range(3):
    trainer.fit(strategy.experimental_distribute_dataset(batches), 8)
"""


# The same base class wrapping the step through a local name, under its flag.
_BASE_TRAINER_ALIAS = """\
import tensorflow as tf


class Trainer:
    def __init__(self, strategy, eager=False):
        self.strategy = strategy
        step = self.{compiled}
        if not eager:
            step = tf.function(step)
        self.train_fn = step

    def fit(self, dataset, steps):
        iterator = iter(dataset)
        for _ in range(steps):
            self.train_fn(next(iterator))
"""


def _subclass_codes(tmp_path, compiled: str, base: str = _BASE_TRAINER) -> list[str]:
    (tmp_path / "base_trainer.py").write_text(base.format(compiled=compiled))
    script = tmp_path / "train.py"
    script.write_text(_SUBCLASS)
    return [f.code for f in check_source(str(script), _SUBCLASS).findings]


def test_a_step_the_base_class_of_another_module_compiles_is_not_tfd402(tmp_path):
    # `self.train_fn = tf.function(self.train_step)` in the base class: the subclass's step runs
    # as a tf.function (the flag that turns it off defaults to on).
    assert "TFD402" not in _subclass_codes(tmp_path, "train_step")


def test_a_step_the_base_class_does_not_compile_is_still_tfd402(tmp_path):
    # The control: the base class compiles another method; `train_step` runs eagerly.
    assert "TFD402" in _subclass_codes(tmp_path, "eval_step")


def test_a_step_the_base_class_compiles_through_a_local_name_is_not_tfd402(tmp_path):
    assert "TFD402" not in _subclass_codes(tmp_path, "train_step", _BASE_TRAINER_ALIAS)


def test_a_local_name_bound_to_another_method_is_still_tfd402(tmp_path):
    # The control: the name the base class compiles holds another method.
    assert "TFD402" in _subclass_codes(tmp_path, "eval_step", _BASE_TRAINER_ALIAS)
