"""Regression tests for issue 28 classes 1, 2, 3 and 8: order, rebinding, branches, runtime
wrapping and fixes, answered on the flow-aware binding model (``ctx.tf.semantic``).

Each test is a minimal program of the kind public code has, in our own words, and says why the
finding (or the fix) was wrong there.
"""

from __future__ import annotations

import textwrap

from checked_codes import codes_of

from fixer.engine import check_source, fix_source
from fixer.notebook import combine_cells


def _fixed(source: str, path: str = "train.py") -> str:
    result = fix_source(path, textwrap.dedent(source), unsafe=True)
    return result.fixed_text or textwrap.dedent(source)


def _notebook_codes(cells: list[str]) -> list[str]:
    notebook = combine_cells(list(enumerate((textwrap.dedent(c) for c in cells), start=1)))
    return [f.code for f in check_source("n.ipynb", notebook.combined).findings]


# Class 1: order and rebinding ------------------------------------------------------------------

_DENSE = "tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])"


def test_a_single_device_baseline_rebuilt_in_the_scope_under_the_same_name_is_not_tfd101():
    # The first `model` trains on one device on purpose; the name is rebuilt in the scope
    # before the distributed `fit`, so no use of the first object is distributed.
    source = f"""
        import tensorflow as tf

        model = {_DENSE}
        model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert "TFD101" not in codes_of(source)


def test_the_baseline_model_itself_compiled_in_the_scope_is_still_tfd101():
    # The control: without the rebuild the scope's `compile` reads the baseline's object.
    source = f"""
        import tensorflow as tf

        model = {_DENSE}
        model.fit(x, y, epochs=1)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert "TFD101" in codes_of(source)


def test_a_model_rebuilt_in_a_second_strategys_scope_is_not_mixing_strategies():
    # Each strategy builds and trains its own `model`: measured to work (TFD104's docs).
    source = f"""
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert not {"TFD101", "TFD104"} & set(codes_of(source))


def test_the_first_strategys_model_compiled_in_the_second_scope_is_still_tfd104():
    source = f"""
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = {_DENSE}
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y, epochs=1)
        """
    assert "TFD104" in codes_of(source)


def test_a_notebook_that_creates_its_strategy_in_a_later_cell_and_rebuilds_the_model():
    cells = [
        f"""
        import tensorflow as tf
        model = {_DENSE}
        model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(x, y)
        """,
        """
        strategy = tf.distribute.MirroredStrategy()
        print(strategy.num_replicas_in_sync)
        """,
        f"""
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        """,
        "model.fit(x, y)\n",
    ]
    assert "TFD101" not in _notebook_codes(cells)


# Class 2: branches ----------------------------------------------------------------------------


def test_objects_of_the_single_device_branch_of_if_strategy_is_none_are_not_tfd101():
    # `if strategy is None:` is the path without a strategy; the other arm builds in the scope.
    source = f"""
        import tensorflow as tf

        strategy = None
        if len(tf.config.list_physical_devices("GPU")) > 1:
            strategy = tf.distribute.MirroredStrategy()

        if strategy is None:
            model = {_DENSE}
            optimizer = tf.keras.optimizers.Adam()
            step = tf.Variable(0)
        else:
            with strategy.scope():
                model = {_DENSE}
                optimizer = tf.keras.optimizers.Adam()
                step = tf.Variable(0)

        model.compile(optimizer=optimizer, loss="mse")
        model.fit(x, y)
        """
    assert "TFD101" not in codes_of(source)
    # Nor a fix that wraps the `strategy is None` arm in `with strategy.scope():` (None.scope()).
    assert _fixed(source) == textwrap.dedent(source)


def test_the_else_of_if_strategy_and_a_function_taking_an_optional_strategy():
    source = f"""
        import tensorflow as tf

        def make(strategy):
            if strategy is None:
                model = {_DENSE}
                model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
            else:
                with strategy.scope():
                    model = {_DENSE}
                    model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
            return model

        strategy = tf.distribute.MirroredStrategy() if multi else None
        if strategy:
            with strategy.scope():
                w = tf.Variable(1.0)
        else:
            w = tf.Variable(1.0)
        make(strategy).fit(x, y)
        """
    assert "TFD101" not in codes_of(source)


def test_a_variable_outside_the_scope_on_the_strategy_path_is_still_tfd101():
    source = """
        import tensorflow as tf

        strategy = None
        if multi:
            strategy = tf.distribute.MirroredStrategy()
        w = tf.Variable(1.0)

        @tf.function
        def step():
            strategy.run(lambda: w.assign_add(1.0))
        """
    assert "TFD101" in codes_of(source)
    assert "with strategy.scope()" not in _fixed(source)  # `strategy` may be None there: advice only


_MWMS = f"""
    import os
    import tensorflow as tf

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = {_DENSE}
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y)
    task_type, task_id = strategy.cluster_resolver.task_type, strategy.cluster_resolver.task_id
    """


def test_a_chief_save_whose_else_saves_on_the_other_workers_is_not_tfd503():
    body = """
    if task_type == "chief":
        model.save("/models/final.keras")
    else:
        model.save(os.path.join("/tmp/workertemp_" + str(task_id), "model.keras"))
    """
    assert not {"TFD502", "TFD503"} & set(codes_of(textwrap.dedent(_MWMS) + textwrap.dedent(body)))


def test_a_chief_save_without_an_else_is_still_tfd503():
    body = """
    if task_type == "chief":
        model.save("/models/final.keras")
    """
    assert "TFD503" in codes_of(textwrap.dedent(_MWMS) + textwrap.dedent(body))


_TPU_OR_MWMS = f"""
    import tensorflow as tf

    if FLAGS.tpu:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=FLAGS.tpu)
        strategy = tf.distribute.TPUStrategy(resolver)
    else:
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        model = {_DENSE}
        model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y)
    """


def test_a_save_only_the_tpu_branch_runs_is_not_tfd502():
    # One TPU host process writes it; the multi-worker branch never reaches this save.
    body = """
    if FLAGS.tpu:
        model.save_weights("gs://bucket/ckpt/weights")
    """
    assert "TFD502" not in codes_of(textwrap.dedent(_TPU_OR_MWMS) + textwrap.dedent(body))


def test_a_save_in_the_tpu_arm_itself_is_not_tfd502_but_one_after_both_arms_is():
    source = f"""
        import tensorflow as tf

        if FLAGS.tpu:
            strategy = tf.distribute.TPUStrategy(resolver)
            with strategy.scope():
                model = {_DENSE}
            model.save_weights("gs://bucket/ckpt/tpu")
        else:
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = {_DENSE}
        model.save_weights("/shared/ckpt/weights")
        """
    findings = [f for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == "TFD502"]
    assert [textwrap.dedent(source).splitlines()[f.start.line - 1].strip() for f in findings] == [
        'model.save_weights("/shared/ckpt/weights")'
    ]


# Class 8: fixes -------------------------------------------------------------------------------

_SUBCLASS_STEP = """
    import tensorflow as tf


    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)
    {build}

    strategy = tf.distribute.MirroredStrategy()
    dataset = tf.data.Dataset.from_tensor_slices(({features}, tf.random.normal((64, 1)))).batch(8)
    with strategy.scope():
        model = Net()
        optimizer = tf.keras.optimizers.Adam()


    @tf.function
    def train_step(features, labels):
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2) / strategy.num_replicas_in_sync
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        strategy.run(step, args=(features, labels))
    """


def test_tfd109_builds_a_subclass_without_build_by_calling_it_on_a_batch():
    # Keras 3's `model.build((None, 8))` creates no variables for this class: the optimizer then
    # fails with `ValueError: Unknown variable` (benchmarks/probe_model_built_in_scope.py).
    source = _SUBCLASS_STEP.format(build="", features="tf.random.normal((64, 8))")
    fixed = _fixed(source)
    assert "    model(tf.zeros((1, 8)))\n    optimizer.build(model.trainable_variables)\n" in fixed
    assert "model.build(" not in fixed


def test_tfd109_keeps_model_build_for_a_subclass_with_its_own_build():
    own_build = """
        def build(self, input_shape):
            self.dense.build(input_shape)
            super().build(input_shape)
    """
    source = _SUBCLASS_STEP.format(build=textwrap.indent(textwrap.dedent(own_build), " " * 8), features="tf.random.normal((64, 8))")
    assert "model.build((None, 8))" in _fixed(source)


def test_tfd109_gives_advice_for_a_subclass_whose_input_shape_is_not_in_the_file():
    source = _SUBCLASS_STEP.format(build="", features="load_features()")
    assert _fixed(source) == textwrap.dedent(source)
    messages = [f.message for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == "TFD109"]
    assert messages and "call `model` on one batch of its input" in messages[0]


# Class 3: runtime wrapping and guards ---------------------------------------------------------


def test_a_step_wrapped_in_tf_function_at_run_time_is_not_tfd402():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable(1.0)

        def step(x):
            w.assign_add(x)

        def distributed_step(x):
            strategy.run(step, args=(x,))

        distributed_step = tf.function(distributed_step)
        for x in range(3):
            distributed_step(float(x))
        """
    assert "TFD402" not in codes_of(source)


def test_a_trainer_that_wraps_its_step_unless_run_eagerly_is_not_tfd402():
    source = """
        import tensorflow as tf

        class Trainer:
            def __init__(self, strategy, run_eagerly=False):
                self.strategy = strategy
                with strategy.scope():
                    self.w = tf.Variable(1.0)
                self.train = self._train if run_eagerly else tf.function(self._train)

            def _step(self, x):
                self.w.assign_add(x)

            def _train(self, x):
                self.strategy.run(self._step, args=(x,))

        Trainer(tf.distribute.MirroredStrategy()).train(1.0)
        """
    assert "TFD402" not in codes_of(source)


_REDUCE_HELPER = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()

    def mean_loss(per_replica):
        {guard}
        return strategy.reduce("MEAN", per_replica, axis=None)

    @tf.function
    def step(x):
        def fn(x):
            return mean_loss(x * 2.0)
        return mean_loss(strategy.run(fn, args=(x,)))
    """


def test_strategy_reduce_guarded_by_in_cross_replica_context_is_not_tfd302():
    for guard in (
        "if not tf.distribute.in_cross_replica_context():\n            return per_replica",
        "if tf.distribute.get_replica_context() is not None:\n            return per_replica",
    ):
        assert "TFD302" not in codes_of(_REDUCE_HELPER.format(guard=guard)), guard


def test_strategy_reduce_in_a_helper_the_replica_function_calls_is_still_tfd302():
    assert "TFD302" in codes_of(_REDUCE_HELPER.format(guard="pass"))


def test_a_path_made_per_worker_through_a_module_level_task_index_is_not_tfd502():
    source = f"""
        import json
        import os
        import tensorflow as tf

        TASK_INDEX = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
        CKPT_DIR = f"/ckpt/worker_{{TASK_INDEX}}"

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = {_DENSE}
            model.compile(optimizer="sgd", loss="mse")
        model.fit(x, y)

        def save():
            model.save_weights(os.path.join(CKPT_DIR, "weights"))

        save()
        """
    assert "TFD502" not in codes_of(source)
    assert "TFD502" in codes_of(source.replace("worker_{TASK_INDEX}", "shared"))


_UNSHARDED = """\
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
{between}
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(100).batch(64)
{dead}
model = build()
for x, y in dataset:
    model.train_on_batch(x, y)
"""


def test_tfd202_never_shards_with_a_strategy_name_deleted_before():
    source = _UNSHARDED.format(between="workers = strategy.num_replicas_in_sync\ndel strategy", dead="")
    assert "TFD202" in codes_of(source)
    assert "_input_shard(strategy)" not in _fixed(source)  # NameError: `strategy` was deleted


def test_tfd202_does_not_edit_a_pipeline_in_dead_code():
    dead = "if False:\n    dataset = tf.data.Dataset.range(10).shuffle(10).batch(2)"
    source = _UNSHARDED.format(between="", dead=dead)
    assert "TFD202" in codes_of(source)
    fixed = _fixed(source)
    assert "range(10).shuffle(10)" in fixed and "range(10).shard" not in fixed


def test_tfd202_skips_a_loop_after_return():
    source = """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def train(model):
            dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(100).batch(64)
            for x, y in dataset:
                model.train_on_batch(x, y)
            return
            old = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(100).batch(64)
            for x, y in old:
                model.train_on_batch(x, y)
        """
    fixed = _fixed(source)
    assert fixed.count(".shard(") == 1 and "old = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle" in fixed


_BUILT_IN_SCOPE = """\
import os
{legacy}
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(10{shape}), tf.keras.layers.Dense(1)])
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model(tf.zeros((1, 4)))
    model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
    model.fit(x, y, epochs=1)
"""


def test_a_tf_keras_model_without_input_shape_first_built_in_the_scope_is_not_tfd101():
    # Measured (benchmarks/probe_model_built_in_scope.py): under tf-keras its variables are
    # MirroredVariables and it trains; under Keras 3 `fit` fails, so the finding stays there.
    legacy = 'os.environ["TF_USE_LEGACY_KERAS"] = "1"'
    assert "TFD101" not in codes_of(_BUILT_IN_SCOPE.format(legacy=legacy, shape=""))
    assert "TFD101" in codes_of(_BUILT_IN_SCOPE.format(legacy="", shape=""))
    assert "TFD101" in codes_of(_BUILT_IN_SCOPE.format(legacy=legacy, shape=", input_shape=(4,)"))


def test_a_nested_step_rebound_to_tf_function_unless_run_eagerly_is_not_tfd402():
    source = """
        import tensorflow as tf

        class Model(tf.keras.Model):
            def _make_function(self, step_function):
                def one_step(data):
                    return self.distribute_strategy.run(step_function, args=(data,))

                if not self.run_eagerly:
                    one_step = tf.function(one_step, reduce_retracing=True)

                def function(iterator):
                    for data in iterator:
                        outputs = one_step(data)
                    return outputs

                return function
        """
    assert "TFD402" not in codes_of(source)
