"""TFD402: `strategy.run` called eagerly, outside a `tf.function`."""

from __future__ import annotations

import libcst as cst

from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.classes import in_unit_test
from fixer.tf.compat import runs_repeatedly, runs_tf1_graphs
from fixer.tf.optimizers import ready_for_compiled_step
from fixer.types import Applicability, Edit

_PARAMETER_SERVER = "tensorflow.distribute.experimental.ParameterServerStrategy"


class StrategyRunOutsideTfFunction(Rule):
    """
    ## What it does
    Finds `strategy.run(...)` in a function that is not compiled with `tf.function` (and is not
    only called from one), or at module level. Not reported: a `strategy.run` whose replica
    function is itself a `tf.function` (TensorFlow then clones it and runs every replica inside
    that one graph, `mirrored_run.call_for_each_replica`), and programs whose only strategy is
    `OneDeviceStrategy` (one replica: nothing runs one after another).

    ## Why is this bad in distributed training?
    Eager `strategy.run` executes the replicas one after another in Python: TensorFlow warns
    `Using MirroredStrategy eagerly has significant overhead`, and a reported case ran about
    25 times slower. Inside a `tf.function` the replicas run in parallel in one graph.

    ## Fix safety
    Unsafe: `@tf.function` is added to the function that calls `strategy.run`, right above its
    `def` (under any decorator of yours, which then wraps the compiled step). Tracing changes
    Python side effects (a `print` runs once per trace, Python lists are captured), so review
    the step. When the call sits in a Python loop or at module level, the finding only says what
    to do: move the `strategy.run` call into a separate step function decorated with
    `@tf.function` and call that from the loop. A Keras 3 optimizer with state (Adam, RMSprop,
    SGD with momentum...) creates its variables on its first `apply_gradients`, which fails
    inside a compiled step with 2 replicas (measured on TensorFlow 2.21: `You must feed a value
    for placeholder tensor 'cond/else/_1/cond/Placeholder'`; plain SGD fails the same way when
    the step is also what builds the model). The fix therefore makes the optimizer ready as
    TFD109 does (`fixer/tf/optimizers.py`): `optimizer.build(model.trainable_variables)` right
    after the optimizer is created, preceded by `model.build((None, ...))` when the model has no
    weights yet and the file writes its input shape down. Otherwise (the shape is only known at
    run time, an optimizer of unknown kind such as `model.optimizer` after
    `compile(optimizer="adam")`), the finding is advice: building on an empty variable list
    makes `apply_gradients` raise.

    ## Runtime evidence
    None: the results are the same, only slower. `distfix validate` runs both variants.

    ## References
    - https://www.tensorflow.org/guide/distributed_training#using_tfdistributestrategy_with_custom_training_loops
    - https://www.tensorflow.org/guide/function
    """

    code = "TFD402"
    name = "strategy-run-outside-tf-function"
    message = "`strategy.run` outside a `tf.function` runs replicas one after another"
    fix_title = "Compile the step with `@tf.function`"
    applicability = Applicability.UNSAFE
    triggers = (".run(", "experimental_run_v2")
    needs = (STRATEGY,)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def distributed_train_step(dataset_inputs):
                strategy.run(step_fn, args=(dataset_inputs,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def distributed_train_step(dataset_inputs):
                strategy.run(step_fn, args=(dataset_inputs,))
            """,
            note="seed 000 step without tf.function",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @some_decorator
            def train_step(x):
                per_replica = strategy.run(step_fn, args=(x,))
                return strategy.reduce("SUM", per_replica, axis=None)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @some_decorator
            @tf.function
            def train_step(x):
                per_replica = strategy.run(step_fn, args=(x,))
                return strategy.reduce("SUM", per_replica, axis=None)
            """,
            note="other decorator kept outside the compiled step",
        ),
        Invalid(
            """
            from tensorflow.distribute import MirroredStrategy

            strategy = MirroredStrategy()

            def train_step(x):
                return strategy.run(step_fn, args=(x,))
            """,
            after="""
            from tensorflow.distribute import MirroredStrategy
            import tensorflow as tf

            strategy = MirroredStrategy()

            @tf.function
            def train_step(x):
                return strategy.run(step_fn, args=(x,))
            """,
            note="tensorflow import added",
        ),
        Invalid(
            """
            import tensorflow as tf


            class Trainer:
                def __init__(self, strategy):
                    self.strategy = strategy

                def step_fn(self, x):
                    return self.total.assign_add(x)

                def train_step(self, x):
                    return self.strategy.run(self.step_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf


            class Trainer:
                def __init__(self, strategy):
                    self.strategy = strategy

                def step_fn(self, x):
                    return self.total.assign_add(x)

                @tf.function
                def train_step(self, x):
                    return self.strategy.run(self.step_fn, args=(x,))
            """,
            note="method on self.strategy",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            for x in dist_dataset:
                strategy.run(step_fn, args=(x,))
            """,
            after=None,
            note="module-level loop: advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def train(dist_dataset):
                for x in dist_dataset:
                    strategy.run(step_fn, args=(x,))
            """,
            after=None,
            note="loop inside the function: advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            def make_step(strategy):
                def step(x):
                    return strategy.run(replica_fn, args=(x,))
                return step
            """,
            after="""
            import tensorflow as tf

            def make_step(strategy):
                @tf.function
                def step(x):
                    return strategy.run(replica_fn, args=(x,))
                return step
            """,
            note="nested step with strategy parameter",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                return strategy.experimental_run_v2(replica_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def step(x):
                return strategy.experimental_run_v2(replica_fn, args=(x,))
            """,
            note="old run name",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()

            def step_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            def train_step(x, y):
                strategy.run(step_fn, args=(x, y))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()
                optimizer.build(model.trainable_variables)

            def step_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            @tf.function
            def train_step(x, y):
                strategy.run(step_fn, args=(x, y))
            """,
            note="Keras 3 Adam is built before compiling",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow import keras

            mirrored = tf.distribute.MirroredStrategy()
            with mirrored.scope():
                net = keras.Sequential([keras.layers.Dense(16), keras.layers.Dense(4)])
                opt = keras.optimizers.RMSprop()

            def replica_update(batch):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.reduce_sum(tf.square(net(batch)), axis=1))
                opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))

            def update(batch):
                return mirrored.run(replica_update, args=(batch,))
            """,
            after=None,
            note="model without an input shape: its weights do not exist yet, so no optimizer.build edit",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
                model.compile(optimizer="adam", loss="mse")

            def replica_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(x) - y)[:, 0])
                model.optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

            def train_step(x, y):
                strategy.run(replica_fn, args=(x, y))
            """,
            after=None,
            note="optimizer from compile of unknown kind: it may be unbuilt, advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                inputs = tf.keras.Input(shape=(8,))
                model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
                opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)

            def replica_fn(x):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.reduce_sum(model(x), axis=1))
                opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

            class Timer:
                def wrap(self, fn):
                    return fn

            timer = Timer()

            @timer.wrap
            def step(x):
                strategy.run(replica_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                inputs = tf.keras.Input(shape=(8,))
                model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
                opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
                opt.build(model.trainable_variables)

            def replica_fn(x):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.reduce_sum(model(x), axis=1))
                opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

            class Timer:
                def wrap(self, fn):
                    return fn

            timer = Timer()

            @timer.wrap
            @tf.function
            def step(x):
                strategy.run(replica_fn, args=(x,))
            """,
            note="functional model is built; momentum SGD built; decorator goes under the user's",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def train_step(x):
                return strategy.run(step_fn, args=(x,))
            """,
            note="decorated",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def train_step(x):
                return strategy.run(step_fn, args=(x,))

            train_step = tf.function(train_step)
            """,
            note="wrapped by assignment",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def inner(x):
                return strategy.run(step_fn, args=(x,))

            @tf.function
            def outer(x):
                return inner(x)
            """,
            note="only called from a tf.function",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function(jit_compile=True)
            def train_step(x):
                return strategy.run(step_fn, args=(x,))
            """,
            note="decorator with arguments",
        ),
        Valid(
            """
            import subprocess

            def build():
                return subprocess.run(["make"], check=True)
            """,
            note="subprocess.run",
        ),
        Valid(
            """
            import tensorflow as tf

            session = tf.compat.v1.Session()

            def step(op):
                return session.run(op)
            """,
            note="a session's run",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def train_step(x):
                return strategy.run(step_fn, args=(x,))  # distfix: ignore[TFD402]
            """,
            note="suppressed",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return x

            train_step = tf.function(lambda x: strategy.run(replica_fn, args=(x,)))
            """,
            note="tf.function of a lambda",
        ),
        Valid(
            """
            import tensorflow as tf

            mirrored = tf.distribute.MirroredStrategy()

            @tf.function
            def per_replica_norm(v):
                return tf.norm(v)

            for v in mirrored.experimental_distribute_dataset(vectors):
                norms = mirrored.run(per_replica_norm, args=(v,))
            """,
            note="the replica fn is a tf.function: TF runs all replicas in that one graph",
        ),
        Valid(
            """
            import tensorflow as tf

            def replica_fn(x):
                return x * 2.0

            def main():
                single = tf.distribute.OneDeviceStrategy("/cpu:0")
                out = single.run(replica_fn, args=(tf.constant(1.0),))
                return out
            """,
            note="OneDeviceStrategy: one replica",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            dist = strategy.experimental_distribute_dataset(dataset)

            def show(x):
                return 2 * x

            for batch in dist:
                print(strategy.experimental_local_results(strategy.run(show, args=(batch,))))
            """,
            note="an eager loop whose replica function trains nothing (a demo or inference pass)",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if ctx.tf.strategies.single_replica:
            return  # OneDeviceStrategy: one replica, nothing runs "one after another"
        if runs_tf1_graphs(ctx.index, ctx.tf.names):
            return  # TF1 graphs: `strategy.run` adds ops that a session runs, nothing is eager
        seen: set[int] = set()
        for run in replica.run_calls:
            if ctx.tf.strategies.kinds(run.strategy) & {_PARAMETER_SERVER}:
                continue
            if replica.target_is_tf_function(run):
                # TF clones a tf.function given to run and calls every replica inside that one
                # graph (mirrored_run.call_for_each_replica): not replica after replica.
                continue
            func = ctx.index.enclosing_function(run.call)
            if func is not None and (func in replica.replica_functions or id(func) in seen):
                continue
            if func is not None and (replica.is_tf_function(func) or replica.only_called_from_graphs(func)):
                continue
            if in_unit_test(ctx.index, run.call):
                continue  # a unit test checks behaviour once; compiling it would change what it tests
            if not runs_repeatedly(ctx.index, ctx.tf.strategies, run.call):
                continue  # one call (an initialisation): its eager cost is paid once
            if not replica.trains(run):
                continue  # an eager loop that only computes values (a demo, inference) trains nothing
            if func is not None:
                seen.add(id(func))
            self._report(ctx, run.call, func)

    def _report(self, ctx: RuleContext, call: cst.Call, func) -> None:
        in_loop = any(
            isinstance(a, (cst.For, cst.While)) for a in self._ancestors_within(ctx, call, func)
        )
        if func is None or not isinstance(func, cst.FunctionDef) or in_loop:
            ctx.report(
                call,
                "`strategy.run` runs eagerly here, replica after replica; put it in a step function decorated "
                "with `@tf.function` and call that step from the loop",
            )
            return
        message = (
            f"`strategy.run` in `{func.name.value}`, which is not a `tf.function`: replicas run one after "
            "another; compile the step with `@tf.function`"
        )
        builds = ready_for_compiled_step(ctx, ctx.tf.replica.replica_functions)
        if builds is None:
            ctx.report(
                call,
                message + "; build the model and then its Keras optimizer first",
            )
            return
        tf, imports = ctx.import_module("tensorflow", "tf")
        # Closest to the def: other decorators (timers, loggers) then wrap the compiled step.
        def_line = ctx.range(func.name).start.line
        line_start = ctx.textmap.line_starts[def_line - 1]
        indent = ctx.indentation(func.name)
        ctx.report(
            call,
            message,
            edits=[*imports, *builds, Edit(line_start, line_start, f"{indent}@{tf}.function{ctx.newline}")],
        )

    def _ancestors_within(self, ctx: RuleContext, node: cst.CSTNode, func):
        for ancestor in ctx.index.ancestors(node):
            if ancestor is func:
                return
            yield ancestor
