"""Regression tests for issue 28, task prec15: version tests held in variables (TFD401),
compiled replica functions part 2 (TFD402) and a decorator's `strategy.run` (TFD103).

Each test is a minimal program in our own words of a shape found in public code, with the
control that keeps the finding where it is right.
"""

from __future__ import annotations

import textwrap

import pytest
from checked_codes import codes_of

from fixer.engine import check_source

# TFD401: the version read once into a name or an attribute, then compared with a release -------

_VERSION_ON_SELF = """
    import tensorflow as tf
    from .helpers import tf_release

    class Trainer:
        def __init__(self, strategy):
            self.strategy = strategy
            self.tf_ver = tf_release()

        def step(self, fn, batch):
            if self.tf_ver {test}:
                return self.strategy.experimental_run_v2(fn, args=(batch,))
            return self.strategy.run(fn, args=(batch,))
    """


@pytest.mark.parametrize("test", ['== "2.0.0"', '< "2.2"', '.startswith("2.0")', 'in ("2.0.0", "2.1.0")'])
def test_an_old_name_under_a_version_stored_on_self_is_not_tfd401(test):
    # The branch exists for the TF 2.0 release that has no `run`: renaming it there makes it raise.
    assert "TFD401" not in codes_of(_VERSION_ON_SELF.replace("{test}", test))


def test_an_old_name_under_a_version_passed_through_two_names_is_not_tfd401():
    source = """
        import tensorflow as tf

        TF = tf.__version__
        current = TF

        def distribute(strategy, dataset_fn):
            if current < "2.4":
                return strategy.experimental_distribute_datasets_from_function(dataset_fn)
            return strategy.distribute_datasets_from_function(dataset_fn)
        """
    assert "TFD401" not in codes_of(source)


@pytest.mark.parametrize(
    "shape",
    [
        # the step defined under the test
        """
        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy
                self.tf_ver = tf_release()

            def build_step(self, fn):
                if self.tf_ver == "2.0.0":
                    def step(batch):
                        return self.strategy.experimental_run_v2(fn, args=(batch,))
                else:
                    def step(batch):
                        return self.strategy.run(fn, args=(batch,))
                return step
        """,
        # the comparison kept as a flag on self
        """
        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy
                self.old_tf = tf_release() == "2.0.0"

            def step(self, fn, batch):
                if self.old_tf:
                    return self.strategy.experimental_run_v2(fn, args=(batch,))
                return self.strategy.run(fn, args=(batch,))
        """,
        # the version the caller passes in
        """
        class Trainer:
            def __init__(self, strategy, tf_ver):
                self.strategy = strategy
                self.tf_ver = tf_ver

            def step(self, fn, batch):
                if self.tf_ver == "2.0.0":
                    return self.strategy.experimental_run_v2(fn, args=(batch,))
                return self.strategy.run(fn, args=(batch,))
        """,
        # an entry of a dict of settings another module fills
        """
        class Trainer:
            def __init__(self, strategy, params):
                self.strategy = strategy
                self.tf_ver = params["tf_ver"]

            def step(self, fn, batch):
                if self.tf_ver == "2.0.0":
                    return self.strategy.experimental_run_v2(fn, args=(batch,))
                return self.strategy.run(fn, args=(batch,))
        """,
        # an attribute a base class of another module sets
        """
        class Trainer(tf_release.Base):
            def step(self, fn, batch):
                if self.tf_ver == "2.0.0":
                    return self.strategy.experimental_run_v2(fn, args=(batch,))
                return self.strategy.run(fn, args=(batch,))
        """,
    ],
    ids=["def-under-test", "flag-on-self", "parameter", "settings-entry", "set-elsewhere"],
)
def test_other_shapes_of_a_stored_version_test_are_not_tfd401(shape):
    header = "import tensorflow as tf\nfrom .helpers import tf_release\n"
    assert "TFD401" not in codes_of(header + textwrap.dedent(shape))


def test_an_attribute_compared_with_a_plain_string_is_still_tfd401():
    # Control: a mode string, not a release, read from the same kind of attribute.
    assert "TFD401" in codes_of(_VERSION_ON_SELF.replace("{test}", '== "mirrored"'))


def test_an_attribute_set_from_a_literal_is_not_a_version_read():
    # Control: `self.level` is a literal the program set itself, not the TensorFlow it runs.
    source = """
        import tensorflow as tf

        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy
                self.level = "2.0"

            def step(self, fn, batch):
                if self.level == "2.0":
                    return self.strategy.experimental_run_v2(fn, args=(batch,))
                return None
        """
    assert "TFD401" in codes_of(source)


# TFD402: a local name bound to `tf.function(...)` is a compiled replica function ----------------

_BOUND_STEP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()

    def learn(agent, dataset, compile_step):
        {bind}
        for x, y in strategy.experimental_distribute_dataset(dataset):
            strategy.run(step, args=(x, y))
    """


@pytest.mark.parametrize(
    "bind", ["step = tf.function(agent.update)", "step = tf.function(agent.update, jit_compile=False)"]
)
def test_a_name_bound_to_tf_function_is_a_compiled_replica_function(bind):
    # TensorFlow runs a tf.function given to `strategy.run` on every replica in one graph.
    assert "TFD402" not in codes_of(_BOUND_STEP.replace("{bind}", bind))


def test_a_name_bound_to_the_plain_method_is_still_tfd402():
    # Control: the same loop with the eager method runs the replicas one after another.
    assert "TFD402" in codes_of(_BOUND_STEP.replace("{bind}", "step = agent.update"))


def test_a_name_compiled_on_one_path_only_is_still_tfd402():
    # Control: when a flag leaves the step eager, the eager path is what TFD402 reports.
    bind = "step = agent.update\n        if compile_step:\n            step = tf.function(step)"
    assert "TFD402" in codes_of(_BOUND_STEP.replace("{bind}", bind))


# TFD402: orbit's StandardTrainer compiles the loop around `train_step` ---------------------------

_ORBIT_TRAINER = """
    import tensorflow as tf
    {orbit_import}

    class Trainer({base}):
        def __init__(self, strategy, model, optimizer, dataset):
            self.strategy = strategy
            self.model = model
            self.optimizer = optimizer
            super().__init__(train_dataset=dataset{options})

        def train_step(self, iterator):
            def replica_step(inputs):
                x, y = inputs
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(x) - y))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            self.strategy.run(replica_step, args=(next(iterator),))
    """


@pytest.mark.parametrize(
    ("orbit_import", "base"),
    [
        ("import orbit", "orbit.StandardTrainer"),
        ("from third_party.models import orbit", "orbit.StandardTrainer"),
        ("from official.orbit import standard_runner", "standard_runner.StandardTrainer"),
    ],
)
def test_the_train_step_of_an_orbit_trainer_is_compiled(orbit_import, base):
    source = _ORBIT_TRAINER.replace("{orbit_import}", orbit_import).replace("{base}", base)
    assert "TFD402" not in codes_of(source.replace("{options}", ""))


def test_an_orbit_trainer_with_use_tf_function_off_is_still_tfd402():
    # Control: `use_tf_function=False` makes orbit call the step eagerly.
    options = ", options=orbit.StandardTrainerOptions(use_tf_function=False)"
    source = _ORBIT_TRAINER.replace("{orbit_import}", "import orbit").replace("{base}", "orbit.StandardTrainer")
    assert "TFD402" in codes_of(source.replace("{options}", options))


def test_a_train_step_of_another_base_class_is_still_tfd402():
    # Control: a project's own trainer base whose loop nobody compiles.
    source = _ORBIT_TRAINER.replace("{orbit_import}", "from trainers import Base").replace("{base}", "Base")
    assert "TFD402" in codes_of(source.replace("{options}", ""))


# TFD103: a step wrapped by a local decorator whose wrapper calls `strategy.run` ----------------

_DECORATED_STEP = """
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD()

    {decorator}

    @{use}
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    data = tf.data.Dataset.from_tensor_slices(([[1.0] * 4], [[1.0]])).batch(1)
    dataset = strategy.experimental_distribute_dataset(data)
    for x, y in dataset:
        train_step(x, y)
    """

_FACTORY = """
    def distributed(*reduce_flags):
        def decorator(fn):
            @tf.function
            def wrapper(*args, **kwargs):
                outputs = strategy.run(fn, args=args, kwargs=kwargs)
                return strategy.reduce(tf.distribute.ReduceOp.SUM, outputs, axis=None)
            return wrapper
        return decorator
    """

_PLAIN = """
    def distributed(fn):
        @tf.function
        def wrapper(*args, **kwargs):
            return strategy.run(fn, args=args, kwargs=kwargs)
        return wrapper
    """

_ONLY_TIMES = """
    def distributed(fn):
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper
    """


@pytest.mark.parametrize(
    ("decorator", "use"), [(_FACTORY, "distributed(True)"), (_PLAIN, "distributed")], ids=["factory", "plain"]
)
def test_a_step_wrapped_by_a_decorator_that_runs_it_through_strategy_run_is_not_tfd103(decorator, use):
    # A plain call of the decorated step calls the wrapper, which is `strategy.run(fn, ...)`.
    source = _DECORATED_STEP.replace("    {decorator}", textwrap.indent(textwrap.dedent(decorator), "    "))
    assert "TFD103" not in codes_of(source.replace("{use}", use))


def test_a_step_wrapped_by_a_decorator_that_only_calls_it_is_still_tfd103():
    # Control: a wrapper that calls `fn` itself runs the step on one device.
    source = _DECORATED_STEP.replace("    {decorator}", textwrap.indent(textwrap.dedent(_ONLY_TIMES), "    "))
    assert "TFD103" in codes_of(source.replace("{use}", "distributed"))


# TFD401: a module its package imports only under its own "TensorFlow 1" test ------------------

_V1_MODULE = """\
import tensorflow as tf


def make_strategy():
    return tf.distribute.experimental.MultiWorkerMirroredStrategy()
"""


def _package(tmp_path, init):
    package = tmp_path / "distlib"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(init))
    (package / "compat.py").write_text("import tensorflow as tf\n\ndef in_tensorflow2():\n    return True\n")
    for name in ("v1", "v2"):
        (package / f"{name}.py").write_text(_V1_MODULE)
    return package


def _codes_at(path):
    return [f.code for f in check_source(str(path), path.read_text()).findings]


@pytest.mark.parametrize(
    "init",
    [
        """
        from .compat import in_tensorflow2
        if in_tensorflow2():
            from .v2 import make_strategy
        else:
            from .v1 import make_strategy
        """,
        """
        from . import compat
        if not compat.is_tf2():
            from . import v1 as impl
        else:
            from . import v2 as impl
        """,
    ],
    ids=["else-arm", "negated-test"],
)
def test_a_module_imported_only_for_tensorflow_1_is_not_tfd401(tmp_path, init):
    # The package runs `v1` on TensorFlow 1 only, where the experimental class is the only one.
    package = _package(tmp_path, init)
    assert "TFD401" not in _codes_at(package / "v1.py")
    assert "TFD401" in _codes_at(package / "v2.py")  # control: the TensorFlow 2 arm is judged


def test_a_module_imported_unconditionally_is_still_tfd401(tmp_path):
    # Control: a package that imports `v1` on every version runs it on TensorFlow 2 too.
    package = _package(tmp_path, "from . import v1\nfrom .compat import in_tensorflow2\n")
    assert "TFD401" in _codes_at(package / "v1.py")


@pytest.mark.parametrize(
    "tf1_import",
    ["from .core.variable_v1 import make_strategy", "from distlib.core.variable_v1 import make_strategy"],
    ids=["relative", "absolute"],
)
def test_a_submodule_the_top_package_imports_only_for_tensorflow_1_is_not_tfd401(tmp_path, tf1_import):
    package = _package(
        tmp_path,
        f"""
        from .compat import in_tensorflow2
        if in_tensorflow2():
            from .core.variable_v2 import make_strategy
        else:
            {tf1_import}
        """,
    )
    core = package / "core"
    core.mkdir()
    (core / "__init__.py").write_text("")
    for name in ("variable_v1", "variable_v2"):
        (core / f"{name}.py").write_text(_V1_MODULE)
    assert "TFD401" not in _codes_at(core / "variable_v1.py")
    assert "TFD401" in _codes_at(core / "variable_v2.py")  # control: the TensorFlow 2 arm
