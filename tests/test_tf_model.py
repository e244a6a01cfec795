"""The TensorFlow semantic model: names through imports, strategies, scopes, replica functions."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from fixer.tf.index import ModuleIndex
from fixer.tf.model import TFModel
from fixer.tf.strategies import Membership


def _model(source: str) -> TFModel:
    module = cst.parse_module(textwrap.dedent(source))
    return TFModel(module, ModuleIndex.build(module))


def _call(model: TFModel, name: str) -> cst.Call:
    return next(c for c in model.index.calls if isinstance(c.func, cst.Name) and c.func.value == name)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import tensorflow as tf\nx = tf.keras.layers.Dense", "keras.layers.Dense"),
        ("from tensorflow import keras\nx = keras.layers.Dense", "keras.layers.Dense"),
        ("import keras\nx = keras.layers.Dense", "keras.layers.Dense"),
        ("from tensorflow.keras import layers as L\nx = L.Dense", "keras.layers.Dense"),
        ("import tensorflow.compat.v2 as tf\nx = tf.distribute.MirroredStrategy", "tensorflow.distribute.MirroredStrategy"),
        ("from tensorflow.distribute import MirroredStrategy as M\nx = M", "tensorflow.distribute.MirroredStrategy"),
        ("import tensorflow\nx = tensorflow.distribute.MirroredStrategy", "tensorflow.distribute.MirroredStrategy"),
        ("import tensorflow as tf\nMS = tf.distribute.MirroredStrategy\nx = MS", "tensorflow.distribute.MirroredStrategy"),
        ("import tf_keras\nx = tf_keras.layers.Dense", "keras.layers.Dense"),
    ],
)
def test_qualified_names_through_every_import_form(source, expected):
    model = _model(source)
    assign = model.index.assigns[-1]
    assert model.names.qualified(assign.value) == expected


def test_unimported_names_do_not_resolve():
    model = _model("x = tf.distribute.MirroredStrategy")
    assert model.names.qualified(model.index.assigns[0].value) is None


def test_strategies_in_variables_parameters_attributes_and_factories():
    model = _model(
        """
        import tensorflow as tf

        def make():
            return tf.distribute.MultiWorkerMirroredStrategy()

        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()

        def train(strat, other):
            with strat.scope():
                pass
            other.run(1)

        s = make()
        """
    )
    strategies = model.strategies
    keys = strategies.strategy_keys
    assert "tensorflow.distribute.MirroredStrategy" in keys["self.strategy"]
    assert "tensorflow.distribute.MultiWorkerMirroredStrategy" in keys["s"]
    assert "strat" in keys and "other" not in keys
    assert strategies.uses_multi_worker


def test_membership_follows_call_sites():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()

        def only_inside():
            return inner()

        def inner():
            return tf.Variable(1.0)

        def both():
            return 1

        def never():
            return 2

        with strategy.scope():
            a = only_inside()
            b = both()
        c = both()
        """
    )
    strategies = model.strategies
    functions = {f.name.value: f for f in model.index.functions}
    assert strategies.function_membership(functions["only_inside"]) is Membership.INSIDE
    assert strategies.function_membership(functions["inner"]) is Membership.INSIDE
    assert strategies.function_membership(functions["both"]) is Membership.OUTSIDE
    assert strategies.function_membership(functions["never"]) is Membership.UNKNOWN
    assert strategies.membership(_call(model, "only_inside")) is Membership.INSIDE


def test_a_function_defined_inside_the_scope_runs_where_it_is_called():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            def build():
                return tf.Variable(1.0)
        v = build()
        """
    )
    build = model.index.functions[0]
    assert model.strategies.function_membership(build) is Membership.OUTSIDE


def test_replica_functions_by_name_lambda_method_partial_and_helpers():
    model = _model(
        """
        import functools
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()

        def helper(x):
            return x

        def step_fn(x):
            return helper(x)

        def scaled(x, k):
            return x * k

        class Loop:
            def replica_step(self, x):
                return x

            @tf.function
            def train(self, x):
                return strategy.run(self.replica_step, args=(x,))

        def not_replica():
            return 0

        @tf.function
        def a(x):
            return strategy.run(step_fn, args=(x,))

        def b(x):
            strategy.run(lambda y: y, args=(x,))
            return strategy.run(functools.partial(scaled, k=2), args=(x,))
        """
    )
    replica = model.replica
    names = {f.name.value for f in replica.replica_functions if isinstance(f, cst.FunctionDef)}
    assert names == {"helper", "step_fn", "scaled", "replica_step"}
    assert any(isinstance(f, cst.Lambda) for f in replica.replica_functions)
    functions = {f.name.value: f for f in model.index.functions}
    assert replica.is_tf_function(functions["a"]) and replica.is_tf_function(functions["train"])
    assert not replica.is_tf_function(functions["b"])
    assert {f.name.value for f in replica.steps()} == {"a", "b", "train"}


def test_tf_function_by_reassignment():
    model = _model(
        """
        import tensorflow as tf
        def step(x):
            return x
        step = tf.function(step)
        """
    )
    assert model.replica.is_tf_function(model.index.functions[0])


def test_replica_functions_through_factories_assignments_and_parameters():
    model = _model(
        """
        import functools
        import tensorflow as tf

        def make_replica_fn(strategy, w):
            def replica_fn(x):
                return strategy.reduce("SUM", x * w, axis=None)
            return replica_fn

        def scaled(x, k):
            return x * k

        def passed_in(x):
            return x

        def drive(strategy, fn, x):
            return strategy.run(fn, args=(x,))

        def main():
            strategy = tf.distribute.MirroredStrategy()
            fn = make_replica_fn(strategy, 2.0)
            partial_fn = functools.partial(scaled, k=3)
            strategy.run(fn, args=(1.0,))
            strategy.run(partial_fn, args=(1.0,))
            drive(strategy, passed_in, 1.0)
        """
    )
    names = {f.name.value for f in model.replica.replica_functions if isinstance(f, cst.FunctionDef)}
    assert names == {"replica_fn", "scaled", "passed_in"}


def test_nested_functions_with_one_name_are_told_apart_by_scope():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()

        def train(ds):
            def step(b):
                return strategy.run(replica_fn, args=(b,))
            for b in ds:
                step(b)

        def evaluate(ds):
            def step(b):
                return b
            for b in ds:
                step(b)
        """
    )
    train_step, eval_step = [f for f in model.index.functions if f.name.value == "step"]
    sites = model.strategies.call_sites(train_step)
    assert len(sites) == 1 and model.index.is_within(sites[0], model.index.functions_by_name["train"][0])
    assert len(model.strategies.call_sites(eval_step)) == 1
    assert model.replica.steps() == [train_step]


def test_a_step_in_the_scope_that_calls_run_is_not_a_probable_replica_function():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            def step_fn(x):
                return x

            def distributed_train_step(x):
                return strategy.run(step_fn, args=(x,))

            def unused_step(x):
                return x
        """
    )
    names = {f.name.value for f in model.replica.probable_replica_functions}
    assert names == {"step_fn", "unused_step"}


@pytest.mark.parametrize(
    ("construction", "single"),
    [
        ('tf.distribute.OneDeviceStrategy("/cpu:0")', True),
        ("tf.distribute.MirroredStrategy()", False),
        ("tf.distribute.get_strategy()", False),
    ],
)
def test_single_replica_only_for_one_device_strategies(construction, single):
    model = _model(
        f"""
        import tensorflow as tf
        strategy = {construction}

        def train(s):
            s.run(fn, args=(1,))
        """
    )
    assert model.strategies.single_replica is single


def test_one_device_next_to_a_mirrored_strategy_is_not_single_replica():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy() if multi else tf.distribute.OneDeviceStrategy("/gpu:0")
        """
    )
    assert not model.strategies.single_replica


def test_run_target_that_is_a_tf_function():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def compiled(x):
            return x

        def plain(x):
            return x

        def other(x):
            return x

        strategy.run(compiled, args=(1,))
        strategy.run(plain, args=(1,))
        strategy.run(tf.function(other), args=(1,))
        """
    )
    runs = model.replica.run_calls
    assert [model.replica.target_is_tf_function(run) for run in runs] == [True, False, True]


def test_a_scope_entered_through_a_variable_is_a_scope_block():
    model = _model(
        """
        import tensorflow as tf

        def train(strategy):
            ctx = strategy.scope()
            with ctx:
                a = tf.Variable(1.0)
            ctx = open("log.txt")
            with ctx:
                b = tf.Variable(2.0)

        mirrored = tf.distribute.MirroredStrategy()
        scope = mirrored.scope()
        with scope:
            c = tf.Variable(3.0)
        with tf.name_scope("x"):
            d = tf.Variable(4.0)

        class T:
            def __init__(self, s):
                self.scope = s.scope()

            def build(self):
                with self.scope:
                    return tf.Variable(5.0)

        T(mirrored)
        """
    )
    strategies = model.strategies
    entered = {}
    for with_node, strategy in strategies.scope_blocks:
        first = with_node.body.body[0].body[0]
        bound = first.targets[0].target.value if isinstance(first, cst.Assign) else "return"
        entered[bound] = cst.Module([]).code_for_node(strategy)
    # `ctx` rebound to a file and `tf.name_scope(...)` are not scopes; `self.scope` is `s.scope()`.
    assert entered == {"a": "strategy", "c": "mirrored", "return": "s"}
    assert strategies.is_strategy(cst.parse_expression("strategy"))  # a parameter used as one
    variable = next(c for c in model.index.calls if model.names.callee(c) == "tensorflow.Variable")
    assert strategies.membership(variable) is Membership.INSIDE


def test_arguments_of_a_helper_at_its_call_sites():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()

        def helper(value, scale=2):
            return value * scale

        def used_as_value(x):
            return x

        def replica_fn(x):
            helper(x)
            helper(value=table, scale=3)
            return x

        callbacks = [used_as_value]
        used_as_value(1)
        strategy.run(replica_fn, args=(x,))
        """
    )
    functions = {f.name.value: f for f in model.index.functions}
    replica = model.replica
    got = [cst.Module([]).code_for_node(arg) for _, arg in replica.arguments_for(functions["helper"], "value")]
    assert got == ["x", "table"]
    assert [arg is None for _, arg in replica.arguments_for(functions["helper"], "scale")] == [True, False]
    assert replica.arguments_for(functions["replica_fn"], "x") is None  # run by strategy.run
    assert replica.arguments_for(functions["used_as_value"], "x") is None  # also passed as a value


@pytest.mark.parametrize(
    ("source", "proven"),
    [
        ("import tensorflow as tf\ns = tf.distribute.MirroredStrategy()\ns.run(f, args=(1,))", True),
        ("import tensorflow as tf\ndef f(s: tf.distribute.Strategy):\n    s.run(g, args=(1,))", True),
        ("import tensorflow as tf\ndef f(s):\n    with s.scope():\n        pass\n    s.run(g, args=(1,))", True),
        ("import tensorflow as tf\ndef f(s):\n    n = s.num_replicas_in_sync\n    s.run(g, args=(1,))", True),
        ("import ray\nexecutor = ray.train.Executor()\nexecutor.run(train_fn, args=[1])", False),
        ("def f(pool):\n    pool.run(g, args=(1,))", False),
    ],
)
def test_a_strategy_is_proven_by_construction_or_strategy_only_use(source, proven):
    model = _model(source)
    runs = model.replica.run_calls
    # The strategy model already drops run(fn, args=) on objects with no strategy evidence.
    assert len(runs) == int(proven)
    if runs:
        assert model.strategies.is_proven_strategy(runs[0].strategy)
    assert bool(model.replica.proven_run_calls) is proven
    assert bool(model.replica.proven_replica_functions) is False  # g, f-targets are not defined here


def test_proven_replica_functions_follow_helpers():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        def helper(x):
            return x
        def replica_fn(x):
            return helper(x)
        def unrelated(x):
            return x
        strategy.run(replica_fn, args=(1,))
        """
    )
    names = {f.name.value for f in model.replica.proven_replica_functions}
    assert names == {"replica_fn", "helper"}
    inner = next(c for c in model.index.calls if isinstance(c.func, cst.Name) and c.func.value == "helper")
    assert model.replica.in_proven_replica_context(inner)


@pytest.mark.parametrize(
    ("source", "has_strategy"),
    [
        ("import tensorflow as tf\ns = tf.distribute.MirroredStrategy()", True),
        ("import tensorflow as tf\ndef f(s: tf.distribute.TPUStrategy):\n    pass", True),
        ("import tensorflow as tf\ndef f(s):\n    return s.num_replicas_in_sync", True),
        ("import tensorflow as tf\ndef f(strategy):\n    with strategy.scope():\n        pass", True),
        ("import tensorflow as tf\ntool = tf.compat.v1.keras.utils.DeterministicRandomTestTool()\nwith tool.scope():\n    pass", False),
        ("import ray\nexecutor = ray.train.Executor()\nexecutor.run(train_fn, args=[1])", False),
    ],
)
def test_module_has_strategy_only_with_evidence(source, has_strategy):
    assert _model(source).strategies.module_has_strategy is has_strategy


def test_the_model_knows_where_each_node_is_written():
    text = "import tensorflow as tf\nstrategy = ( tf.distribute.MirroredStrategy() )\nwith strategy.scope():\n    pass\n"
    module = cst.parse_module(text)
    model = TFModel(module, ModuleIndex.build(module), text=text)
    call = model.index.calls[0]
    start, end = model.span(call)
    assert model.source(call) == text[start:end] == "tf.distribute.MirroredStrategy()"  # without its parentheses
    assert model.range(call).start.line == 2


def test_the_text_of_an_expression_is_the_text_at_its_range():
    # One-line expressions are generated (their parentheses left out), others read at their range.
    text = (
        "import tensorflow as tf\n"
        "def f():\n"
        "    with (( strategy )).scope():\n"
        "        model = tf.keras.Sequential(\n"
        "            [tf.keras.layers.Dense(1)]\n"
        "        )\n"
    )
    module = cst.parse_module(text)
    model = TFModel(module, ModuleIndex.build(module), text=text)
    expressions = [node for node in model.index.order if isinstance(node, cst.BaseExpression)]
    assert any("\n" in model.source(node) for node in expressions)
    for node in expressions:
        start, end = model.span(node)
        assert model.source(node) == text[start:end]
    assert {"strategy", "(( strategy )).scope"} <= {model.source(node) for node in expressions}


def test_runs_by_function_follows_targets_and_forwarding_lambdas_once_per_module():
    model = _model(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        class Trainer:
            def _step(self, x):
                return x
            def train(self, x):
                strategy.run(lambda v: self._step(v), args=(x,))
        def step(x):
            return x
        strategy.run(step, args=(1,))
        strategy.run(step, args=(2,))
        """
    )
    table = model.runs_by_function
    by_name = {f.name.value: runs for f, runs in table.items() if isinstance(f, cst.FunctionDef)}
    assert [model.index.order[r.call] for r in by_name["step"]] == sorted(model.index.order[r.call] for r in by_name["step"])
    assert len(by_name["step"]) == 2
    assert len(by_name["_step"]) == 1
    assert model.runs_by_function is table
