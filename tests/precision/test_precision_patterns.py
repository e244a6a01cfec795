"""Regression tests for the wrong findings and rewrites seen on public TensorFlow code (issue 14).

Each test is a minimal program in the shape real code has, written for this suite, and says
what TensorFlow does with it.
"""

from __future__ import annotations

import textwrap

from fixer.engine import check_source, fix_source


def _findings(source: str, path: str = "train.py"):
    return check_source(path, textwrap.dedent(source)).findings


def _codes(source: str, path: str = "train.py") -> list[str]:
    return [f.code for f in _findings(source, path)]


def _fixed(source: str, path: str = "train.py") -> str:
    result = fix_source(path, textwrap.dedent(source), unsafe=True)
    return result.fixed_text or textwrap.dedent(source)


# 1. Only a strategy's scope() is a strategy scope ------------------------------------------

def test_a_test_tool_scope_is_not_a_strategy_scope():
    # DeterministicRandomTestTool.scope() seeds random ops; nothing is distributed in it, so
    # the model trained in it is a single-device model and there is no strategy to enter.
    source = """
        import tensorflow as tf

        def run(tool, features, labels):
            with tool.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
            model.fit(features, labels)

        run(tf.compat.v1.keras.utils.DeterministicRandomTestTool(), x, y)
        """
    assert _codes(source) == []


def test_a_user_object_with_a_scope_method_is_not_a_strategy():
    source = """
        import tensorflow as tf

        class Recorder:
            def scope(self):
                return open("log.txt", "w")

        recorder = Recorder()
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
        with recorder.scope():
            baseline = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            baseline.compile(optimizer="adam", loss="mse")
            baseline.fit(x, y)
        model.fit(x, y)
        """
    assert _codes(source) == []
    assert "recorder.scope" not in _fixed(source).replace("with recorder.scope():", "")


# 2. Strategy use is per object ---------------------------------------------------------------

def test_a_single_device_baseline_next_to_a_distributed_model_is_not_tfd101():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
        model.fit(x, y)

        # The same network on one device, to compare step times.
        baseline = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        baseline.compile(optimizer="adam", loss="mse")
        baseline.fit(x, y)
        """
    assert _codes(source) == []


def test_a_strategy_built_and_never_entered_still_reports_the_model():
    # The other side of the previous test: the scope was forgotten altogether.
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y)
        """
    assert "TFD101" in _codes(source)


def test_a_mirrored_model_is_not_tfd504_because_of_a_multi_worker_strategy_elsewhere():
    # TFD504 (Keras 3 fit under MultiWorkerMirroredStrategy) is about the model's own strategy.
    source = """
        import tensorflow as tf

        def single_machine(x, y):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(optimizer="adam", loss="mse")
            model.fit(x, y)

        def multi_worker():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            return model
        """
    assert "TFD504" not in _codes(source)


def test_the_multi_worker_model_itself_is_still_tfd504():
    source = """
        import tensorflow as tf

        def multi_worker(x, y):
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(optimizer="adam", loss="mse")
            model.fit(x, y)

        def single_machine():
            strategy = tf.distribute.MirroredStrategy()
            return strategy
        """
    assert _codes(source) == ["TFD504"]


def test_a_model_distributed_by_an_estimator_run_config_is_not_tfd101():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        config = tf.estimator.RunConfig(train_distribute=strategy)

        def model_fn(features, labels, mode):
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            return model(features)

        estimator = tf.estimator.Estimator(model_fn=model_fn, config=config)
        """
    assert _codes(source) == []


def test_a_keras_model_next_to_an_estimator_strategy_is_not_tfd101():
    # The strategy goes to an Estimator through RunConfig; the Keras model is another program.
    source = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y)

        strategy = tf.distribute.MirroredStrategy()
        config = tf.estimator.RunConfig(train_distribute=strategy)
        regressor = tf.estimator.LinearRegressor(feature_columns=columns, config=config)
        """
    assert _codes(source) == []


# 3. Branches ---------------------------------------------------------------------------------

BRANCHES = """
    import tensorflow as tf

    def build():
        return tf.keras.Sequential([tf.keras.layers.Dense(1)])

    if use_multi_gpu:
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build()
            optimizer = tf.keras.optimizers.Adam()
    else:
        model = build()
        optimizer = tf.keras.optimizers.Adam()
    model.compile(optimizer=optimizer, loss="mse")
    model.fit(x, y)
    """


def test_the_single_device_arm_of_an_if_is_not_flagged():
    lines = [f.start.line for f in _findings(BRANCHES)]
    assert 13 not in lines and 14 not in lines  # the else arm


def test_no_fix_writes_a_strategy_unbound_on_the_single_device_path():
    assert "with strategy.scope()" not in _fixed(BRANCHES).split("else:")[1]
    for finding in _findings(BRANCHES):
        assert finding.fix is None


def test_a_none_guarded_strategy_is_not_written_by_a_fix():
    source = """
        import tensorflow as tf

        strategy = None
        if multi:
            strategy = tf.distribute.MirroredStrategy()
        if strategy:
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()
        model.compile(optimizer=optimizer, loss="mse")
        """
    for finding in _findings(source):
        assert finding.fix is None or "strategy.scope()" not in "".join(e.content for e in finding.fix.edits)


# 4. A reused name is not one object; a fix never uses a name bound later ---------------------

def test_a_fix_never_writes_a_strategy_first_bound_in_a_later_cell():
    # Notebook order: the cell that builds the strategy comes after the loop. Writing
    # `strategy.experimental_distribute_dataset(ds)` into the loop raises NameError there.
    source = """
        import tensorflow as tf

        def step(x):
            return x * 2

        ds = tf.data.Dataset.range(8).batch(4)
        for x in ds:
            strategy.run(step, args=(x,))

        strategy = tf.distribute.MirroredStrategy()
        """
    tfd201 = [f for f in _findings(source) if f.code == "TFD201"]
    assert len(tfd201) == 1 and tfd201[0].fix is None
    assert "`strategy` is not bound on every path" in tfd201[0].message
    assert _fixed(source) == textwrap.dedent(source)


# 6. obj.run(f, args=...) is strategy.run only on a strategy ----------------------------------

def test_an_executor_run_in_a_file_without_tensorflow_is_not_strategy_run():
    source = """
        import ray

        def train_fn(config):
            return config

        executor = ray.train.Executor()
        for epoch in range(10):
            executor.run(train_fn, args=[epoch])
        """
    assert _codes(source) == []
    assert "tensorflow" not in _fixed(source)


def test_a_horovod_style_runner_next_to_tensorflow_is_not_strategy_run():
    source = """
        import tensorflow as tf
        from horovod.runner import run

        class Runner:
            def run(self, fn, args=()):
                return fn(*args)

        def train(lr):
            return tf.constant(lr)

        runner = Runner()
        for lr in (0.1, 0.01):
            runner.run(train, args=(lr,))
        """
    assert _codes(source) == []


# 9. A launcher sets the TF_CONFIG of the workers it starts -----------------------------------

def test_a_script_that_starts_its_workers_with_popen_is_a_launcher():
    source = """
        import json
        import os
        import subprocess

        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps(
            {"cluster": {"worker": ["localhost:1", "localhost:2"]}, "task": {"type": "worker", "index": 0}}
        )
        first = subprocess.Popen(["python", "worker.py"])
        os.environ["TF_CONFIG"] = json.dumps(
            {"cluster": {"worker": ["localhost:1", "localhost:2"]}, "task": {"type": "worker", "index": 1}}
        )
        subprocess.run(["python", "worker.py"], check=True)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert "TFD601" not in _codes(source)
    assert 'os.environ["TF_CONFIG"]' in _fixed(source)


def test_a_script_that_forks_workers_with_multiprocessing_is_a_launcher():
    source = """
        import json
        import multiprocessing
        import os

        import tensorflow as tf

        def worker():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

        os.environ["TF_CONFIG"] = json.dumps(
            {"cluster": {"worker": ["localhost:1", "localhost:2"]}, "task": {"type": "worker", "index": 0}}
        )
        multiprocessing.Process(target=worker).start()
        """
    assert "TFD601" not in _codes(source)


def test_a_notebook_that_starts_workers_from_a_bash_cell_is_a_launcher():
    from fixer.notebook import combine_cells

    notebook = combine_cells(
        [
            (1, "import json, os\nimport tensorflow as tf\n"),
            (
                2,
                (
                    'os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["localhost:1", "localhost:2"]},'
                    ' "task": {"type": "worker", "index": 0}})\n'
                ),
            ),
            (3, "%%bash --bg\npython main.py &> job_0.log\n"),
            (4, "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"),
        ]
    )
    assert "TFD601" not in [f.code for f in check_source("tutorial.ipynb", notebook.combined).findings]


def test_a_worker_that_hard_codes_its_tf_config_is_still_tfd601():
    source = """
        import json
        import os

        import tensorflow as tf

        os.environ["TF_CONFIG"] = json.dumps(
            {"cluster": {"worker": ["host1:2222", "host2:2222"]}, "task": {"type": "worker", "index": 0}}
        )
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert _codes(source) == ["TFD601"]


# 7. TF1 graph code gets no eager-mode findings ------------------------------------------------

def test_strategy_run_in_a_tf1_session_program_is_not_tfd402():
    source = """
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
        strategy = tf.distribute.MirroredStrategy()

        def step(x):
            return x * 2.0

        with tf.compat.v1.Session() as session:
            for _ in range(10):
                session.run(strategy.run(step, args=(1.0,)))
        """
    assert "TFD402" not in _codes(source)


# 10. Versions ---------------------------------------------------------------------------------

def test_experimental_run_v2_is_reported_as_removed():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(x):
            return strategy.experimental_run_v2(lambda v: v * 2.0, args=(x,))
        """
    (finding,) = _findings(source)
    assert finding.code == "TFD401"
    assert "removed" in finding.message and "AttributeError" in finding.message


def test_a_type_test_against_both_tpu_strategy_classes_is_left_alone():
    # Two different classes in TensorFlow 2.21: renaming one would test the same class twice
    # and stop matching objects of the experimental class.
    source = """
        import tensorflow as tf

        def on_tpu(strategy):
            return isinstance(strategy, (tf.distribute.experimental.TPUStrategy, tf.distribute.TPUStrategy))
        """
    assert _codes(source) == []
    assert _fixed(source) == textwrap.dedent(source)


# 11. Noise ------------------------------------------------------------------------------------

def test_a_getattr_fallback_for_old_tensorflow_is_not_tfd401():
    source = """
        import tensorflow as tf

        def distribute(strategy, dataset_fn):
            fn = getattr(strategy, "distribute_datasets_from_function", None) or (
                strategy.experimental_distribute_datasets_from_function
            )
            return fn(dataset_fn)
        """
    assert _codes(source) == []


def test_a_try_except_attribute_error_fallback_is_not_tfd401():
    source = """
        import tensorflow as tf

        def distribute(strategy, dataset_fn):
            try:
                return strategy.distribute_datasets_from_function(dataset_fn)
            except AttributeError:
                return strategy.experimental_distribute_datasets_from_function(dataset_fn)
        """
    assert _codes(source) == []


def test_a_version_checked_fallback_is_not_tfd401():
    source = """
        import tensorflow as tf

        def distribute(strategy, dataset_fn):
            if tf.__version__ < "2.4":
                return strategy.experimental_distribute_datasets_from_function(dataset_fn)
            return strategy.distribute_datasets_from_function(dataset_fn)
        """
    assert _codes(source) == []


def test_the_deprecated_name_used_plainly_is_still_tfd401():
    source = """
        import tensorflow as tf

        def distribute(strategy, dataset_fn):
            return strategy.experimental_distribute_datasets_from_function(dataset_fn)
        """
    assert _codes(source) == ["TFD401"]


def test_a_one_shot_eager_strategy_run_is_not_tfd402():
    # Initialising per-replica state once costs one eager call: not a slow training step.
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def init_replica():
            return tf.zeros([4])

        def setup():
            return strategy.run(init_replica, args=())

        state = setup()
        """
    assert "TFD402" not in _codes(source)


def test_an_eager_strategy_run_in_a_training_loop_is_still_tfd402():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            total = tf.Variable(0.0)

        def replica_step(x):
            return total.assign_add(x * 2.0)

        def train_step(x):
            return strategy.run(replica_step, args=(x,))

        for x in range(10):
            train_step(x)
        """
    assert "TFD402" in _codes(source)


# 8. What starts the runtime (TFD105) ----------------------------------------------------------

def test_calls_that_do_not_configure_the_runtime_are_not_tfd105():
    # Measured: a MultiWorkerMirroredStrategy created after each of these works.
    source = """
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
        tf.debugging.disable_traceback_filtering()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert _codes(source) == []


def test_a_reset_context_clears_what_ran_before_it_and_is_never_jumped_over():
    source = """
        import tensorflow as tf
        from tensorflow.python.eager import context

        warmup = tf.constant(1.0)
        context._reset_context()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert _codes(source) == []
    assert _fixed(source) == textwrap.dedent(source)


def test_ops_after_the_reset_still_count():
    source = """
        import tensorflow as tf
        from tensorflow.python.eager import context

        context._reset_context()
        warmup = tf.constant(1.0)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert _codes(source) == ["TFD105"]
    fixed = _fixed(source)
    assert fixed.index("_reset_context()") < fixed.index("MultiWorkerMirroredStrategy()") < fixed.index("tf.constant")


# 5. super().m resolves by the class bases ----------------------------------------------------

def test_super_method_run_on_replicas_is_not_the_overriding_method():
    # `super()._forward` is Base._forward: Child._forward (which calls strategy.run and then
    # strategy.reduce in cross-replica context) is not a replica function.
    source = """
        import tensorflow as tf

        class Base:
            def _forward(self, x):
                return x * 2.0

        class Child(Base):
            def __init__(self):
                self._strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def _forward(self, x):
                per_replica = self._strategy.run(super()._forward, args=(x,))
                return self._strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
        """
    assert _codes(source) == []


# 12. Parse failures that are not errors --------------------------------------------------------

NOT_SCALED = """\
import tensorflow as tf
strategy = tf.distribute.MirroredStrategy()
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
with strategy.scope():
    model.compile(optimizer="adam", loss="mse")
"""


def _notebook_codes(cells: list[str]) -> list[str]:
    from fixer.notebook import cell_errors, combine_cells

    notebook = combine_cells(list(enumerate(cells, start=1)))
    findings = cell_errors(notebook, "n.ipynb") + check_source("n.ipynb", notebook.combined).findings
    return [f.code for f in findings]


def test_a_cell_with_leading_indentation_parses_as_ipython_runs_it():
    assert _notebook_codes(["  import os\n  x = 1\n", NOT_SCALED]) == ["TFD101"]


def test_a_shell_line_continued_with_a_backslash_is_masked_whole():
    assert _notebook_codes(["!pip install tensorflow \\\n    tf-keras\n", NOT_SCALED]) == ["TFD101"]


def test_a_block_whose_body_is_only_a_shell_line_parses():
    assert _notebook_codes(["import sys\nif 'google.colab' in sys.modules:\n    !pip install tf-keras\n", NOT_SCALED]) == [
        "TFD101"
    ]


def test_one_broken_cell_does_not_silence_the_others():
    codes = _notebook_codes(["def broken(:\n    pass\n", NOT_SCALED])
    assert sorted(codes) == ["TFD000", "TFD101"]


def test_a_notebook_fix_leaves_the_indented_cell_and_its_magic_as_they_were(tmp_path):
    import json

    from fixer.config import Config
    from fixer.notebook import analyse_notebook

    first = ["  import os\n", "  !pip install tf-keras"]
    cells = [
        {"cell_type": "code", "metadata": {}, "source": first, "outputs": [], "execution_count": None},
        {
            "cell_type": "code",
            "metadata": {},
            "source": NOT_SCALED.splitlines(keepends=True),
            "outputs": [],
            "execution_count": None,
        },
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    result = analyse_notebook(str(tmp_path / "n.ipynb"), text, Config(), fix=True, unsafe=True)
    assert result.error is None
    assert result.fixed_text is not None
    fixed = json.loads(result.fixed_text)["cells"]
    assert fixed[0]["source"] == first
    assert "with strategy.scope():" in "".join(fixed[1]["source"])


# 10. Versions: the Keras the project runs -------------------------------------------------------

OPTIMIZER_OUTSIDE = """\
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
optimizer = tf.keras.optimizers.Adagrad()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=optimizer, loss="mse")
model.fit(x, y)
"""


def test_tf_keras_takes_an_optimizer_created_outside_the_scope():
    # Measured: with tf-keras this trains; Keras 3 raises `Mixing different tf.distribute.Strategy objects`.
    assert "TFD101" not in [f.code for f in check_source("train.py", OPTIMIZER_OUTSIDE).findings]


def test_keras_3_still_reports_the_optimizer_created_outside_the_scope():
    source = OPTIMIZER_OUTSIDE.replace('os.environ["TF_USE_LEGACY_KERAS"] = "1"\n', "")
    assert "TFD101" in [f.code for f in check_source("train.py", source).findings]


def test_a_project_pinned_below_2_16_takes_the_optimizer_outside_the_scope(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("tensorflow==2.2.0\n")
    source = OPTIMIZER_OUTSIDE.replace('os.environ["TF_USE_LEGACY_KERAS"] = "1"\n', "")
    assert "TFD101" not in [f.code for f in check_source(str(tmp_path / "train.py"), source).findings]


MULTI_WORKER_FIT = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
model.fit(x, y)
"""


def test_tfd504_does_not_switch_to_tf_keras_in_a_project_without_it(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.16\nnumpy\n")
    (finding,) = check_source(str(tmp_path / "train.py"), MULTI_WORKER_FIT).findings
    assert finding.code == "TFD504" and finding.fix is None
    assert "add `tf-keras~=2.21.0` to requirements.txt" in finding.message


def test_tfd504_switches_to_tf_keras_when_the_project_lists_it(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.16\ntf-keras>=2.16\n")
    (finding,) = check_source(str(tmp_path / "train.py"), MULTI_WORKER_FIT).findings
    assert finding.fix is not None and "TF_USE_LEGACY_KERAS" in finding.fix.edits[0].content


def test_a_step_redefined_in_a_later_cell_is_another_function():
    # The loop runs the first `step` on every replica; the later cell's `step` is called
    # directly, in cross-replica context, where `strategy.reduce` belongs.
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step(x):
            return x * 2.0

        for x in batches:
            per_replica = strategy.run(step, args=(x,))

        def step(values):
            return strategy.reduce(tf.distribute.ReduceOp.SUM, values, axis=None)

        total = step(per_replica)
        """
    assert "TFD302" not in _codes(source)


def test_tabs_and_spaces_mixed_the_way_cpython_accepts_are_not_tfd000():
    # CPython counts a tab to the next multiple of 8: `\t    pass` is deeper than `    if y:`.
    source = (
        "import tensorflow as tf\n"
        "strategy = tf.distribute.MirroredStrategy()\n"
        "if train:\n"
        "    if y:\n"
        "\t    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"
        "\t    model.compile(optimizer='adam', loss='mse')\n"
        "\t    model.fit(x, y)\n"
    )
    compile(source, "train.py", "exec")  # CPython accepts it
    findings = check_source("train.py", source).findings
    assert "TFD000" not in [f.code for f in findings]
    assert "TFD101" in [f.code for f in findings]
    assert all(f.fix is None for f in findings)  # positions come from the expanded text: advice only
    assert fix_source("train.py", source, unsafe=True).fixed_text is None


# Wild precision, second pass (issue 14) -------------------------------------------------------

def test_a_method_of_an_object_held_on_self_is_not_the_class_own_method():
    # `self._agent.loss` is the agent's loss; the Learner's own `loss` (which calls a compiled
    # `strategy.run`) is not what the replicas run, so nothing is nested in a replica function.
    source = """
        import tensorflow as tf

        class Learner(tf.Module):
            def __init__(self, agent, strategy):
                self._agent = agent
                self.strategy = strategy

            def loss(self, batch):
                return self._loss(batch)

            @tf.function
            def _loss(self, batch):
                per_replica = self.strategy.run(self._agent.loss, args=(batch,))
                return self.strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
        """
    assert "TFD302" not in _codes(source)


def test_a_library_tf_function_wrapper_compiles_the_step():
    # TF-Agents' `common.function` is tf.function with defaults: the step is already a graph.
    source = """
        import tensorflow as tf
        from tf_agents.utils import common

        class Learner(tf.Module):
            def __init__(self, agent, strategy):
                self._agent = agent
                self.strategy = strategy

            @common.function(autograph=True)
            def _train(self, batch):
                return self.strategy.run(self._agent.train, args=(batch,))

            def run(self, batches):
                for batch in batches:
                    self._train(batch)
        """
    assert "TFD402" not in _codes(source)
    assert _fixed(source) == textwrap.dedent(source)


def test_a_unit_test_method_is_not_a_training_loop_to_compile():
    # A test calls strategy.run to check what it returns; adding @tf.function to the test method
    # would change what it exercises (eager execution, mocks, assertions).
    source = """
        import tensorflow as tf

        class StepTest(tf.test.TestCase):
            def test_step_runs(self):
                strategy = tf.distribute.MirroredStrategy()
                for _ in range(3):
                    out = strategy.run(lambda: tf.constant(1.0))
                self.assertIsNotNone(out)
        """
    assert "TFD402" not in _codes(source, "step_test.py")
    assert _fixed(source, "step_test.py") == textwrap.dedent(source)


def test_a_tf1_program_gets_no_tf2_class_names():
    # tf.compat.v1.distribute has only the experimental TPUStrategy: "use tf.distribute.TPUStrategy"
    # would be an AttributeError under the alias the file uses.
    source = """
        import tensorflow.compat.v1 as tf

        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        strategy = tf.distribute.experimental.TPUStrategy(resolver)
        """
    assert "TFD401" not in _codes(source)


def test_a_contrib_program_keeps_collective_communication():
    # CommunicationImplementation appeared in TF 2.4; a tensorflow.contrib program runs on 1.x.
    source = """
        import tensorflow as tf
        from tensorflow.contrib import cluster_resolver

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(
            communication=tf.distribute.experimental.CollectiveCommunication.NCCL)
        """
    assert "TFD401" not in _codes(source)


def test_an_annotation_or_a_monkey_patch_of_the_old_class_is_not_a_use():
    source = """
        import tensorflow as tf

        from typing import Union

        def make(resolver) -> Union[tf.distribute.MirroredStrategy, tf.distribute.experimental.TPUStrategy]:
            return tf.distribute.TPUStrategy(resolver)

        def patch(cls):
            cls.original_iterator = cls.make_dataset_iterator

        tf.distribute.experimental.TPUStrategy.extended_input = None
        patch(tf.distribute.experimental.MultiWorkerMirroredStrategy)
        """
    assert "TFD401" not in _codes(source)


def test_a_multi_worker_strategy_after_deleting_tf_config_is_single_worker():
    # Without TF_CONFIG the strategy is a single local worker: TensorFlow creates it after other
    # ops (measured on 2.21), so nothing needs moving.
    source = """
        import os
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy()
        os.environ.pop("TF_CONFIG", None)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert "TFD105" not in _codes(source)
    assert "TFD105" not in _codes(source.replace('os.environ.pop("TF_CONFIG", None)', 'del os.environ["TF_CONFIG"]'))


def test_a_worker_script_that_never_sets_tf_config_keeps_the_finding():
    # A launcher may give this script its TF_CONFIG: then the late strategy raises.
    source = """
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy()
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    assert "TFD105" in _codes(source)


def test_listing_local_devices_does_not_start_the_runtime():
    # device_lib.list_local_devices() leaves the eager context uninitialised (measured).
    source = """
        import json, os
        import tensorflow as tf
        from tensorflow.python.client import device_lib

        gpus = [d.name for d in device_lib.list_local_devices() if d.device_type == "GPU"]
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        """
    assert "TFD105" not in _codes(source)


def test_auto_shard_off_on_a_dataset_nothing_reads_is_not_a_finding():
    # The tutorial shows how to switch auto-sharding off; the dataset it builds is never iterated,
    # fitted or distributed, so no worker reads anything twice.
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        dataset = tf.data.Dataset.range(64).batch(8)
        dataset_no_auto_shard = dataset.with_options(options)
        """
    assert "TFD202" not in _codes(source)
    assert "TFD202" in _codes(source + "model.fit(dataset_no_auto_shard)\n")


def test_a_contrib_program_has_no_eager_context_to_configure_first():
    source = """
        import tensorflow.compat.v1 as tf
        from tensorflow.contrib import tpu as contrib_tpu

        def main(port):
            tf.Session.reset("grpc://10.0.0.1:8470")
            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        """
    assert "TFD105" not in _codes(source)


def test_fit_before_a_later_cell_rebinds_the_model_under_multi_worker_is_not_multi_worker():
    # The first model trains under ParameterServerStrategy; the MultiWorkerMirroredStrategy and
    # the model built in its scope come later and are other objects.
    source = """
        import os
        import tensorflow as tf

        ps = tf.distribute.experimental.ParameterServerStrategy(resolver)
        with ps.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile("adam", "mse")
        model.fit(dataset, epochs=1, steps_per_epoch=2)

        mwms = tf.distribute.MultiWorkerMirroredStrategy()
        with mwms.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile("adam", "mse")
        model.fit(dataset, epochs=1, steps_per_epoch=2)
        """
    findings = [f for f in _findings(source) if f.code == "TFD504"]
    # Each fit is judged by its own model's strategy: Keras 3 has no parameter-server `fit` either.
    assert [(f.start.line, "ParameterServerStrategy" in f.message) for f in findings] == [(9, True), (15, False)]


def test_a_model_loaded_outside_any_scope_is_not_trained_under_multi_worker():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile("adam", "mse")
        model.fit(dataset, epochs=1)
        model.save(path)
        restored = tf.keras.models.load_model(path)
        restored.fit(dataset, epochs=1)
        """
    findings = [f for f in _findings(source) if f.code == "TFD504"]
    assert [f.start.line for f in findings] == [8]


def test_a_tfrs_program_runs_tf_keras_so_an_optimizer_outside_the_scope_is_fine():
    # tensorflow_recommenders refuses to import under Keras 3, so the notebook runs tf-keras,
    # which accepts an optimizer created outside the scope and compiled inside it (measured).
    source = """
        import tensorflow as tf
        import tensorflow_recommenders as tfrs

        strategy = tf.distribute.MirroredStrategy()
        optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.1)
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer=optimizer, loss="mse")
        """
    assert "TFD101" not in _codes(source)
    assert "TFD101" in _codes(source.replace("import tensorflow_recommenders as tfrs\n", ""))


def test_a_strategy_name_rebound_in_a_later_cell_does_not_change_an_earlier_scope():
    # Cell order: the scope and fit run under ParameterServerStrategy; `strategy` becomes a
    # MultiWorkerMirroredStrategy only afterwards.
    source = """
        import os
        import tensorflow as tf

        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile("adam", "mse")
        model.fit(dataset, epochs=1, steps_per_epoch=2)
        model.evaluate(eval_dataset, steps=2)

        del os.environ["TF_CONFIG"]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """
    findings = [f for f in _findings(source) if f.code == "TFD504"]
    # Reported as what they are, Keras 3 `fit`/`evaluate` under ParameterServerStrategy, never
    # as the later MultiWorkerMirroredStrategy's.
    assert [f.start.line for f in findings] == [9, 10]
    assert all("ParameterServerStrategy" in f.message for f in findings)


def test_a_coordinator_metric_redefined_in_a_later_scope_is_not_the_distributed_one():
    # The first metric is updated eagerly on the coordinator; the replica function uses the
    # metric the later cell creates in the scope (the name is rebound before it runs).
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        eval_accuracy = tf.keras.metrics.Accuracy()
        for features, labels in eval_dataset:
            eval_accuracy.update_state(labels, model(features))

        with strategy.scope():
            eval_accuracy = tf.keras.metrics.Accuracy()

        @tf.function
        def eval_step(features, labels):
            def replica_fn(features, labels):
                eval_accuracy.update_state(labels, model(features))
            strategy.run(replica_fn, args=(features, labels))
        """
    assert "TFD101" not in _codes(source)


def test_a_fix_does_not_move_a_creation_into_an_earlier_notebook_cell():
    from fixer.notebook import combine_cells

    # Moving `eval_scale = ...` up into cell 2's scope would leave cell 4 without the variable it
    # creates (re-running it no longer resets it); the fix wraps it in place instead. (A variable:
    # a Keras metric of a custom loop made outside the scope is right, not a finding.)
    notebook = combine_cells(
        [
            (1, "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n"),
            (2, "with strategy.scope():\n    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"),
            (3, "print(model)\n"),
            (4, "eval_scale = tf.Variable(1.0)\n"),
            (
                5,
                (
                    "@tf.function\ndef step(x):\n    def replica_fn(x):\n"
                    "        return model(x) * eval_scale\n"
                    "    strategy.run(replica_fn, args=(x,))\n"
                ),
            ),
        ]
    )
    fixed = fix_source("n.ipynb", notebook.combined, unsafe=True).fixed_text or notebook.combined
    cell2 = fixed.split("# distfix-cell 2")[1].split("# distfix-cell 3")[0]
    cell4 = fixed.split("# distfix-cell 4")[1].split("# distfix-cell 5")[0]
    assert "eval_scale" not in cell2
    assert "with strategy.scope():\n    eval_scale = tf.Variable(1.0)" in cell4


def test_a_notebook_that_never_names_tf_config_shows_a_single_worker_strategy():
    # A guide's kernel is not started by a cluster launcher: with no TF_CONFIG the strategy is one
    # local worker, which TensorFlow creates after other ops (measured on 2.21).
    from fixer.notebook import combine_cells

    cells = [
        (1, "import tensorflow as tf\nmirrored = tf.distribute.MirroredStrategy()\n"),
        (2, "strategy = tf.distribute.MultiWorkerMirroredStrategy()\n"),
    ]
    assert "TFD105" not in [f.code for f in check_source("guide.ipynb", combine_cells(cells).combined).findings]
    with_config = [(0, "import os\nos.environ['TF_CONFIG'] = config\n"), *cells]
    assert "TFD105" in [f.code for f in check_source("guide.ipynb", combine_cells(with_config).combined).findings]


def test_compile_in_a_factory_called_in_the_scope_and_again_for_a_cpu_copy_is_not_tfd101():
    """The factory's own local model is what it compiles: the in-scope call compiles inside the
    scope, and the second call makes a deliberately single-device copy (for export)."""
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def make_model():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="mse")
            return model

        with strategy.scope():
            model = make_model()

        model.fit(ds, epochs=2)
        restored = make_model()
        restored.set_weights(model.get_weights())
        """
    assert "TFD101" not in _codes(source)
