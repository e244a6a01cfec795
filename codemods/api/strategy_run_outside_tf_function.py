"""TFD402: `strategy.run` called eagerly, outside a `tf.function`."""

from __future__ import annotations

import libcst as cst

from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability, Edit

_PARAMETER_SERVER = "tensorflow.distribute.experimental.ParameterServerStrategy"


class StrategyRunOutsideTfFunction(Rule):
    """
    ## What it does
    Finds `strategy.run(...)` in a function that is not compiled with `tf.function` (and is not
    only called from one), or at module level.

    ## Why is this bad in distributed training?
    Eager `strategy.run` executes the replicas one after another in Python: TensorFlow warns
    `Using MirroredStrategy eagerly has significant overhead`, and a reported case ran about
    25 times slower. Inside a `tf.function` the replicas run in parallel in one graph.

    ## Fix safety
    Unsafe: `@tf.function` is added to the function that calls `strategy.run`. Tracing changes
    Python side effects (a `print` runs once per trace, Python lists are captured), so review
    the step. When the call sits in a Python loop or at module level, the finding only says what
    to do: move the `strategy.run` call into a separate step function decorated with
    `@tf.function` and call that from the loop.

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

            @tf.function
            @some_decorator
            def train_step(x):
                per_replica = strategy.run(step_fn, args=(x,))
                return strategy.reduce("SUM", per_replica, axis=None)
            """,
            note="other decorator kept",
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
                    return x

                def train_step(self, x):
                    return self.strategy.run(self.step_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf


            class Trainer:
                def __init__(self, strategy):
                    self.strategy = strategy

                def step_fn(self, x):
                    return x

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
    )

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        seen: set[int] = set()
        for run in replica.run_calls:
            if ctx.tf.strategies.kinds(run.strategy) & {_PARAMETER_SERVER}:
                continue
            func = ctx.index.enclosing_function(run.call)
            if func is not None and (func in replica.replica_functions or id(func) in seen):
                continue
            if func is not None and (replica.is_tf_function(func) or self._only_called_from_graphs(ctx, func)):
                continue
            if func is not None:
                seen.add(id(func))
            self._report(ctx, run.call, func)

    def _only_called_from_graphs(self, ctx: RuleContext, func) -> bool:
        sites = ctx.tf.strategies.call_sites(func)
        if not sites:
            return False
        for site in sites:
            caller = ctx.index.enclosing_function(site)
            if caller is None or not (ctx.tf.replica.is_tf_function(caller) or caller is func):
                return False
        return True

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
        tf, imports = ctx.import_module("tensorflow", "tf")
        first = func.decorators[0] if func.decorators else func
        line_start = ctx.textmap.line_starts[ctx.range(first).start.line - 1]
        indent = ctx.indentation(first)
        ctx.report(
            call,
            f"`strategy.run` in `{func.name.value}`, which is not a `tf.function`: replicas run one after "
            "another; compile the step with `@tf.function`",
            edits=[*imports, Edit(line_start, line_start, f"{indent}@{tf}.function{ctx.newline}")],
        )

    def _ancestors_within(self, ctx: RuleContext, node: cst.CSTNode, func):
        for ancestor in ctx.index.ancestors(node):
            if ancestor is func:
                return
            yield ancestor

