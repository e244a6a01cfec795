"""TFD402 on replica functions compiled through orbit or at run time, and on ones that are eager on
purpose (issue 28, ledger8b class 4). Each case has a control that keeps the finding.

- orbit's `use_tf_function` defaults to true: a value the module does not state (a config field,
  a flag) counts as the default; only a literal false turns the compiled loop off.
- orbit reached as an attribute of an imported module (`trainer_lib.orbit.StandardTrainer`), or as
  the base of a project class of another module (`trainer_lib.AsyncTrainer`).
- `self.train_step = tf.function(self.train_step)` in the loop method, under a flag, before
  `strategy.run(self.train_step, ...)`: a compiled replica function.
- a replica function that calls `.numpy()` cannot be compiled as written: eager on purpose.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from fixer.engine import check_source
from fixer.runner import Job, run

ORBIT = """
import orbit
import tensorflow as tf


class Trainer(orbit.StandardTrainer):
    def __init__(self, strategy, dataset, config):
        self.strategy = strategy
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        self.optimizer = tf.keras.optimizers.SGD(0.1)
        super().__init__(dataset, options=orbit.StandardTrainerOptions(use_tf_function={option}))

    def train_loop_begin(self):
        pass

    def train_step(self, iterator):
        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(self.model(x))
            grads = tape.gradient(loss, self.model.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

        for _ in range(4):
            self.strategy.run(replica_step, args=(next(iterator),))

    def train_loop_end(self):
        return {{}}


def main(config):
    strategy = tf.distribute.MirroredStrategy()
    trainer = Trainer(strategy, None, config)
    for _ in range(10):
        trainer.train(tf.constant(10))
"""


def tfd402(source: str, path: str = "trainer.py") -> list:
    return [f for f in check_source(path, textwrap.dedent(source)).findings if f.code == "TFD402"]


def test_an_unknown_use_tf_function_counts_as_the_default():
    assert tfd402(ORBIT.format(option="config.use_tf_function")) == []
    assert tfd402(ORBIT.format(option="FLAGS.use_tf_function")) == []


def test_a_literal_false_use_tf_function_keeps_the_finding():
    assert len(tfd402(ORBIT.format(option="False"))) == 1


def test_orbit_reached_through_a_project_module_attribute():
    source = (
        ORBIT.format(option="True")
        .replace("import orbit\n", "from official.core import base_trainer as trainer_lib\n")
        .replace("(orbit.StandardTrainer)", "(trainer_lib.orbit.StandardTrainer)")
        .replace(", options=orbit.StandardTrainerOptions(use_tf_function=True)", "")
    )
    assert "trainer_lib.orbit.StandardTrainer" in source
    assert tfd402(source) == []
    # Control: a base of the project that is not orbit's keeps the finding.
    assert len(tfd402(source.replace("trainer_lib.orbit.StandardTrainer", "trainer_lib.Trainer"))) == 1


def test_a_module_wide_unknown_option_does_not_hide_the_default_of_another_trainer():
    other = textwrap.dedent("""

        class EagerDebugTrainer(orbit.StandardTrainer):
            def __init__(self, dataset, use_tf_function):
                super().__init__(dataset, options=orbit.StandardTrainerOptions(use_tf_function=use_tf_function))
        """)
    source = ORBIT.format(option="True").replace(", options=orbit.StandardTrainerOptions(use_tf_function=True)", "")
    assert tfd402(source + other) == []
    assert len(tfd402(source + other.replace("use_tf_function=use_tf_function", "use_tf_function=False"))) == 1


LOOP_METHOD = """
import tensorflow as tf


class Model:
    def __init__(self, strategy, enable_function=True):
        self.strategy = strategy
        self.enable_function = enable_function
        self.net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        self.optimizer = tf.keras.optimizers.SGD(0.1)

    def train_step(self, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(self.net(x))
        grads = tape.gradient(loss, self.net.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.net.trainable_variables))
        return loss

    def train_loop(self, dataset):
{wrap}        for x in dataset:
            self.strategy.run(self.train_step, args=(x,))


def main():
    strategy = tf.distribute.MirroredStrategy()
    model = Model(strategy)
    model.train_loop(strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4)))
"""

WRAP = """\
        if self.enable_function:
            self.train_step = tf.function(self.train_step)
"""


# A base class whose subclasses (in other modules) define `train_step`: the module has no def
# of it, so only the assignment in the loop method says it is compiled.
BASE_ONLY = (
    LOOP_METHOD.replace("class Model:", "class BaseModel:")
    .replace("Model(strategy)", "BaseModel(strategy)")
    .replace(
        LOOP_METHOD[LOOP_METHOD.index("    def train_step") : LOOP_METHOD.index("    def train_loop")],
        "",
    )
)


def test_a_step_wrapped_in_tf_function_by_the_loop_method_is_compiled():
    assert tfd402(LOOP_METHOD.format(wrap=WRAP)) == []
    assert "def train_step" not in BASE_ONLY
    assert tfd402(BASE_ONLY.format(wrap=WRAP)) == []


def test_the_loop_method_without_the_wrapping_is_reported():
    assert len(tfd402(LOOP_METHOD.format(wrap=""))) == 1
    assert len(tfd402(BASE_ONLY.format(wrap=""))) == 1


def test_a_replica_function_that_reads_numpy_is_eager_on_purpose():
    numpy_step = LOOP_METHOD.format(wrap="").replace(
        "        return loss\n", "        print(loss.numpy())\n        return loss\n"
    )
    assert "loss.numpy()" in numpy_step
    assert tfd402(numpy_step) == []


def test_a_step_the_loop_method_compiles_before_calling_the_distributed_step():
    # The run sits in its own method; the loop method wraps the replica step, then calls it.
    split = BASE_ONLY.format(wrap=WRAP).replace(
        "        for x in dataset:\n            self.strategy.run(self.train_step, args=(x,))\n",
        "        for x in dataset:\n            self.distributed_step(x)\n\n"
        "    def distributed_step(self, x):\n        return self.strategy.run(self.train_step, args=(x,))\n",
    )
    assert "def distributed_step" in split
    assert tfd402(split) == []
    assert len(tfd402(split.replace(WRAP, ""))) == 1


ASYNC_BASE = """\
import orbit
import tensorflow as tf


class AsyncTrainer(orbit.StandardTrainer, orbit.StandardEvaluator):
    pass
"""

ASYNC_TEST = """\
import tensorflow as tf

from proj import base_trainer as trainer_lib


class StepTrainer(trainer_lib.AsyncTrainer):
    def __init__(self, strategy):
        self.strategy = strategy
        self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        self.optimizer = tf.keras.optimizers.SGD(0.1)

    def train_step(self, iterator):
        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(self.model(x))
            grads = tape.gradient(loss, self.model.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

        self.strategy.run(replica_step, args=(next(iterator),))


def main():
    trainer = StepTrainer(tf.distribute.MirroredStrategy())
    for _ in range(10):
        trainer.train(tf.constant(10))
"""


def _project_tfd402(root: Path, base: str) -> list:
    (root / "proj").mkdir()
    (root / "proj" / "__init__.py").write_text("")
    (root / "proj" / "base_trainer.py").write_text(base)
    (root / "proj" / "step_trainer.py").write_text(ASYNC_TEST)
    job = Job(use_cache=False, project_roots=(str(root),))
    results = run(sorted(root.rglob("*.py")), job, jobs=1)
    (result,) = [r for r in results if Path(r.path).name == "step_trainer.py"]
    return [f for f in result.findings if f.code == "TFD402"]


def test_a_project_base_class_deriving_from_orbit_in_another_module(tmp_path):
    assert _project_tfd402(tmp_path, ASYNC_BASE) == []


def test_a_project_base_class_that_is_not_orbit_keeps_the_finding(tmp_path):
    plain = ASYNC_BASE.replace("(orbit.StandardTrainer, orbit.StandardEvaluator)", "")
    assert len(_project_tfd402(tmp_path, plain)) == 1


def test_tf_taken_from_a_project_module_still_names_tf_function():
    # `tf` re-exported by a project module: the resolver does not follow it, the spelling says it.
    reexported = BASE_ONLY.replace("import tensorflow as tf\n", "import tensorflow\nfrom common import tf\n")
    assert tfd402(reexported.format(wrap=WRAP)) == []
    assert len(tfd402(reexported.format(wrap=""))) == 1
