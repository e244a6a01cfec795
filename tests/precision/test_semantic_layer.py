"""Unit tests of the semantic layer's answers: which objects are strategies, which paths bind a name."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from fixer.semantic import bound_on_every_path
from fixer.tf.index import ModuleIndex
from fixer.tf.model import TFModel
from fixer.tf.paths import exclusive


def _model(source: str) -> TFModel:
    module = cst.parse_module(textwrap.dedent(source))
    return TFModel(module, ModuleIndex.build(module))


def _expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def _call_named(model: TFModel, name: str) -> cst.Call:
    return next(c for c in model.index.calls if isinstance(c.func, cst.Name) and c.func.value == name)


# Strategy identity -------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("source", "name", "expected"),
    [
        # Objects of known other classes, entered as `with x.scope():`.
        ("tool = tf.compat.v1.keras.utils.DeterministicRandomTestTool()\nwith tool.scope():\n    pass", "tool", False),
        ("layout_map = tf.keras.dtensor.experimental.LayoutMap(mesh)\nwith layout_map.scope():\n    pass", "layout_map", False),
        ("class R:\n    def scope(self): ...\nr = R()\nwith r.scope():\n    pass", "r", False),
        # An unknown parameter entered as a scope: only a strategy-like name says what it is...
        ("def f(tool):\n    with tool.scope():\n        pass", "tool", False),
        ("def f(strategy):\n    with strategy.scope():\n        pass", "strategy", True),
        ("def f(self):\n    with self._dist_strat.scope():\n        pass", "self._dist_strat", True),
        # ...or a call site that passes a strategy to it.
        ("def f(s):\n    with s.scope():\n        pass\nf(tf.distribute.MirroredStrategy())", "s", True),
        # Strategy-only attributes are evidence on their own.
        ("def f(s):\n    n = s.num_replicas_in_sync", "s", True),
        # `.run(fn, args=)` and `.scope()` together.
        ("def f(s, g):\n    with s.scope():\n        pass\n    s.run(g, args=(1,))", "s", True),
    ],
)
def test_what_is_a_strategy(source, name, expected):
    model = _model("import tensorflow as tf\n" + source)
    assert model.strategies.is_strategy(_expr(name)) is expected


def test_run_with_args_in_a_file_without_tensorflow_is_not_a_strategy():
    # Ray, Spark and Horovod executors have the same `run(fn, args=...)` signature.
    model = _model("import ray\nexecutor = make()\nexecutor.run(train_fn, args=[1])\n")
    assert not model.strategies.is_strategy(_expr("executor"))
    assert model.replica.run_calls == []


def test_a_non_strategy_scope_is_not_a_scope_block():
    model = _model(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        tool = tf.compat.v1.keras.utils.DeterministicRandomTestTool()
        with tool.scope():
            v = tf.Variable(1.0)
        with strategy.scope():
            w = tf.Variable(1.0)
        """
    )
    assert [cst.Module([]).code_for_node(s) for _, s in model.strategies.scope_blocks] == ["strategy"]


# Paths -------------------------------------------------------------------------------------

def test_exclusive_arms_of_if_elif_else():
    model = _model(
        """
        if a:
            first()
        elif b:
            second()
        else:
            third()
        after()
        """
    )
    first, second, third, after = (_call_named(model, n) for n in ("first", "second", "third", "after"))
    assert exclusive(model.index, first, second)
    assert exclusive(model.index, second, third)
    assert exclusive(model.index, third, first)
    assert not exclusive(model.index, first, after)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("strategy = make()\nuse()", True),
        ("use()\nstrategy = make()", False),  # bound later: NameError here
        ("if a:\n    strategy = make()\nuse()", False),
        ("if a:\n    strategy = make()\nelse:\n    strategy = other()\nuse()", True),
        ("if a:\n    strategy = make()\nelse:\n    raise SystemExit\nuse()", True),  # the else arm never reaches use
        ("try:\n    strategy = make()\nexcept ValueError:\n    pass\nuse()", False),
        ("try:\n    strategy = make()\nexcept ValueError:\n    strategy = other()\nuse()", True),
        ("for i in x:\n    strategy = make()\nuse()", False),  # zero iterations
        ("with a:\n    strategy = make()\nuse()", True),
        ("strategy = None\nif a:\n    strategy = make()\nuse()", False),  # None-guarded
        ("def f(strategy):\n    use()", True),
        ("def f():\n    use()\nstrategy = make()", True),  # a function runs after the module bound it
        ("def f():\n    use()\n    strategy = 1\nstrategy = make()", False),  # a local, read too early
        ("if a:\n    strategy = make()\n    use()", True),
    ],
)
def test_bound_on_every_path(source, expected):
    model = _model(source)
    assert bound_on_every_path(model.index, "strategy", _call_named(model, "use")) is expected


# Version fallbacks, TF1 graphs, repeated runs, process starts -------------------------------

from fixer.tf.compat import (
    is_compat_fallback,
    is_type_check_argument,
    runs_repeatedly,
    runs_tf1_graphs,
)
from fixer.tf.processes import shell_start_lines, starts_processes_after


def _attribute(model: TFModel, attr: str) -> cst.Attribute:
    return next(a for a in model.index.attributes if a.attr.value == attr)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("f = getattr(s, 'new', None) or s.old", True),
        ("f = s.old or getattr(s, 'new', None)", False),
        ("try:\n    f = s.new\nexcept AttributeError:\n    f = s.old", True),
        ("try:\n    f = s.old\nexcept (ValueError, AttributeError):\n    pass", True),
        ("try:\n    f = s.old\nexcept ValueError:\n    pass", False),
        ("if tf.__version__ < '2.4':\n    f = s.old", True),
        ("f = s.old if not hasattr(s, 'new') else s.new", True),
        ("if ready:\n    f = s.old", False),
    ],
)
def test_compat_fallbacks(source, expected):
    model = _model("import tensorflow as tf\n" + source)
    assert is_compat_fallback(model.index, _attribute(model, "old")) is expected


def test_type_check_arguments():
    model = _model("import tensorflow as tf\nok = isinstance(s, (tf.A, tf.B))\nx = make(tf.C)\n")
    assert is_type_check_argument(model.index, _attribute(model, "A"))
    assert is_type_check_argument(model.index, _attribute(model, "B"))
    assert not is_type_check_argument(model.index, _attribute(model, "C"))


def test_tf1_graph_programs():
    assert runs_tf1_graphs(*_index_and_names("import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n"))
    assert runs_tf1_graphs(*_index_and_names("import tensorflow.compat.v1 as tf\nwith tf.Session() as s:\n    pass\n"))
    assert not runs_tf1_graphs(*_index_and_names("import tensorflow as tf\ntf.function(f)\n"))


def _index_and_names(source: str):
    model = _model(source)
    return model.index, model.names


def test_runs_repeatedly_follows_loops_and_call_sites():
    model = _model(
        """
        import tensorflow as tf

        def once():
            a()

        def looped():
            b()

        def orphan():
            c()

        once()
        for _ in range(3):
            looped()
        d()
        """
    )
    expected = {"a": False, "b": True, "c": True, "d": False}
    for name, repeated in expected.items():
        assert runs_repeatedly(model.index, model.strategies, _call_named(model, name)) is repeated, name


def test_process_starts_after_a_statement():
    model = _model(
        """
        import os, subprocess
        os.environ["A"] = "1"
        subprocess.Popen(["python", "w.py"])
        os.environ["B"] = "1"
        """
    )
    first, last = (a for a in model.index.assigns)
    assert starts_processes_after(model.index, model.names, first)
    assert not starts_processes_after(model.index, model.names, last)


def test_masked_shell_cells_of_a_notebook_start_processes():
    text = "# distfix-cell 1\n\nx = 1\n# distfix-cell 2\n\n#%bash --bg\n#ython main.py &> job.log\n"
    assert shell_start_lines(text) == [6, 7]
    assert shell_start_lines("#%bash\n") == []  # not a notebook: a comment


# Method resolution ----------------------------------------------------------------------------

from fixer.tf.classes import bases_in_module, resolve_method


def test_super_and_self_methods_resolve_through_the_module_classes():
    model = _model(
        """
        class Base:
            def step(self):
                pass

        class Middle(Base):
            pass

        class Child(Middle):
            def step(self):
                super().step()
                self.step()

        class Other:
            def step(self):
                pass
        """
    )
    index = model.index
    base, middle, child, _ = index.classes
    assert bases_in_module(index, child) == [middle, base]
    calls = [c for c in index.calls if isinstance(c.func, cst.Attribute)]
    super_call, self_call = calls
    base_step, child_step, _ = index.functions_by_name["step"]
    assert resolve_method(index, super_call.func, super_call) == [base_step]
    assert resolve_method(index, self_call.func, self_call) == [child_step]


def test_super_of_a_library_class_resolves_to_nothing_here():
    model = _model("import tensorflow as tf\nclass M(tf.keras.Model):\n    def call(self, x):\n        return super().call(x)\n")
    call = next(c for c in model.index.calls if isinstance(c.func, cst.Attribute))
    assert resolve_method(model.index, call.func, call) == []


# Project facts --------------------------------------------------------------------------------

from fixer.target import target_for


@pytest.mark.parametrize(
    ("files", "declares", "keras2", "tf_keras"),
    [
        ({}, False, False, False),
        ({"requirements.txt": "tensorflow==2.2.0\n"}, True, True, False),
        ({"requirements.txt": "tensorflow>=2.16\ntf-keras\n"}, True, False, True),
        ({"pyproject.toml": '[project]\ndependencies = ["tensorflow~=2.15.0", "tf_keras==2.15.1"]\n'}, True, True, True),
        ({"environment.yml": "dependencies:\n  - tensorflow=2.17\n  # - tf-keras\n"}, True, False, False),
    ],
)
def test_project_facts(tmp_path, files, declares, keras2, tf_keras):
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    target = target_for(tmp_path)
    assert (not target.assumed, target.version < (2, 16), target.declares_tf_keras) == (declares, keras2, tf_keras)


# Keras step overrides -------------------------------------------------------------------------


def test_keras_steps_are_the_overrides_of_models_used_under_a_strategy():
    model = _model(
        """
        import tensorflow as tf
        import tf_keras

        class Scoped(tf.keras.Model):
            def train_step(self, data):
                return {}

            def test_step(self, data):
                return {}

            def predict_step(self, data):
                return data

        class Child(Scoped):
            pass

        class CompiledInScope(tf_keras.Model):
            def train_step(self, data):
                return {}

        class Unscoped(tf.keras.Model):
            def train_step(self, data):
                return {}

        class NotKeras:
            def train_step(self, data):
                return {}

        def build():
            return Child()

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build()
            helper = NotKeras()
        legacy = CompiledInScope()
        with strategy.scope():
            legacy.compile(optimizer="sgd")
        baseline = Unscoped()
        """
    )
    steps = {(model.index.method_class(f).name.value, f.name.value) for f in model.replica.keras_steps}
    assert steps == {("Scoped", "train_step"), ("Scoped", "test_step"), ("CompiledInScope", "train_step")}
    assert {f.name.value for f in model.replica.keras_steps} <= {f.name.value for f in model.replica.replica_functions}


def test_keras_steps_need_a_strategy_scope():
    model = _model(
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def train_step(self, data):
                return {}

        model = Net()
        model.compile(optimizer="sgd")
        """
    )
    assert model.replica.keras_steps == frozenset()


def test_a_keras_models_distribute_strategy_is_a_strategy():
    model = _model(
        """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def train_step(self, data):
                return self.distribute_strategy.reduce("SUM", data, axis=None)
        """
    )
    assert model.strategies.is_strategy(_expr("self.distribute_strategy"))
    assert model.strategies.is_strategy(_expr("model.distribute_strategy"))
    assert not model.strategies.is_strategy(_expr("self.strategy_name"))


# Where a function runs -----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("callers", "expected"),
    [
        # The recursive call inside `walk` runs wherever the outer one does: the graph of `step`.
        ("@tf.function\ndef step():\n    walk(3)\n", True),
        ("def step():\n    walk(3)\n\nstep = tf.function(step)\n", True),
        ("@tf.function\ndef step():\n    walk(3)\n\nwalk(1)\n", False),  # also called eagerly
        ("def eager():\n    walk(3)\n", False),
        ("", False),  # only called by itself: where it runs is not known here
    ],
)
def test_only_called_from_graphs_ignores_recursive_calls(callers, expected):
    source = "import tensorflow as tf\n\ndef walk(n):\n    if n:\n        walk(n - 1)\n\n" + callers
    model = _model(source)
    walk = model.index.functions_by_name["walk"][0]
    assert model.replica.only_called_from_graphs(walk) is expected


# Tensor tests (fixer/tf/tensor_tests.py) ------------------------------------------------------

_TENSOR_TEST_PRELUDE = """\
import tensorflow as tf
strategy = tf.distribute.MirroredStrategy()
step = tf.Variable(0)
limit = 4
count = tf.cast(step, tf.float32)

def replica_step(x, flag, every):
    if TEST:
        pass

strategy.run(replica_step, args=(x, tf.equal(step, 0), 4))
"""


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("step % 4 == 0", True),  # a tf.Variable
        ("count > 2.0", True),  # bound to a TensorFlow op
        ("tf.equal(step, 0)", True),
        ("optimizer.iterations < 10", True),  # a Keras optimizer's counter
        ("not flag", True),  # a tensor given to strategy.run
        ("every == 4", False),  # a Python int given to strategy.run
        ("limit == 4", False),  # a Python constant
        ("step is None", False),  # Python's own answer
        ("tf.executing_eagerly()", False),
        ("tf.distribute.has_strategy()", False),
    ],
)
def test_tensor_tests(test, expected):
    from fixer.tf.tensor_tests import is_tensor_test

    model = _model(_TENSOR_TEST_PRELUDE.replace("TEST", test))
    [statement] = [n for n in model.index.order if isinstance(n, cst.If)]
    assert is_tensor_test(model, statement.test) is expected
