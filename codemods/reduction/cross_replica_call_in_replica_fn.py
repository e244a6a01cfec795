"""TFD302: a cross-replica `strategy` method called inside a replica function."""

from __future__ import annotations

import libcst as cst

from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.calls import argument
from fixer.tf.dataflow import names_in
from fixer.types import Applicability

_CROSS_REPLICA = frozenset({"reduce", "gather", "experimental_local_results", "run", "experimental_run_v2"})




class CrossReplicaCallInReplicaFn(Rule):
    """
    ## What it does
    Finds `strategy.reduce`, `strategy.gather`, `strategy.experimental_local_results` and nested
    `strategy.run` calls inside a replica function (the function given to `strategy.run`, or a
    helper it calls).

    ## Why is this bad in distributed training?
    These methods need cross-replica context. Inside `strategy.run`, TensorFlow 2.21 raises
    `RuntimeError: Method requires being in cross-replica context, use
    get_replica_context().merge_call()`, in eager mode and in `tf.function` alike. Articles that
    "fix" gradient aggregation with `strategy.reduce` inside the step therefore crash.

    ## Fix safety
    Unsafe. `strategy.reduce(op, value, axis=None)` becomes
    `tf.distribute.get_replica_context().all_reduce(op, value)` and `strategy.gather(value, axis)`
    becomes `tf.distribute.get_replica_context().all_gather(value, axis)`: every replica then
    holds the reduced value, which is what code running inside the replica function needs.
    A reduce whose result goes to the optimizer's `apply_gradients` or `minimize` is replaced by
    the per-replica value instead: Keras 3 sums gradients across replicas there (measured), so an
    all-reduce in front of it would apply them N times.
    A `reduce` over an axis, `experimental_local_results` and nested `run` calls have no
    replica-context equivalent: move them to the caller, outside `strategy.run`.

    ## Runtime evidence
    `distfix validate` shows the original failing check `runs` with the `RuntimeError` above, and
    the fixed script running with identical copies on every replica.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#all_reduce
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#reduce
    """

    code = "TFD302"
    name = "cross-replica-call-in-replica-fn"
    message = "cross-replica call inside a replica function raises"
    fix_title = "Use the replica context's collective instead"
    applicability = Applicability.UNSAFE
    triggers = (".reduce(", ".gather(", "experimental_local_results", ".run(", "experimental_run_v2")
    needs = (STRATEGY,)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def train_step(data):
                grads = compute(data)
                total = strategy.reduce(tf.distribute.ReduceOp.MEAN, grads, axis=None)
                return total

            strategy.run(train_step, args=(batch,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def train_step(data):
                grads = compute(data)
                total = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grads)
                return total

            strategy.run(train_step, args=(batch,))
            """,
            note="seed 001 reduce of gradients",
        ),
        Invalid(
            """
            import tensorflow as tf

            def build_update(strategy, table):
                def update(keys):
                    counts = strategy.gather(keys, axis=0)
                    table.assign_add(tf.reduce_sum(counts))
                return update

            def run(strategy, table, batches):
                update = build_update(strategy, table)
                for keys in batches:
                    strategy.run(update, args=(keys,))
            """,
            after="""
            import tensorflow as tf

            def build_update(strategy, table):
                def update(keys):
                    counts = tf.distribute.get_replica_context().all_gather(keys, axis=0)
                    table.assign_add(tf.reduce_sum(counts))
                return update

            def run(strategy, table, batches):
                update = build_update(strategy, table)
                for keys in batches:
                    strategy.run(update, args=(keys,))
            """,
            note="replica fn returned by a factory and bound to a name",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(4)])

                def replica_fn(x):
                    return tf.reduce_sum(model(x))

                def distributed_eval(x):
                    per_replica = strategy.run(replica_fn, args=(x,))
                    return strategy.reduce("SUM", per_replica, axis=None)
            """,
            note="a step defined in the scope that calls strategy.run is cross-replica code",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def step(x):
                return strategy.run(lambda v: strategy.reduce("SUM", v, axis=None), args=(x,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def step(x):
                return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v), args=(x,))
            """,
            note="lambda replica fn",
        ),
        Invalid(
            """
            from tensorflow.distribute import MirroredStrategy

            strategy = MirroredStrategy()

            def helper(value):
                return strategy.reduce(reduce_op="SUM", value=value, axis=None)

            def replica_fn(x):
                return helper(x * 2)

            strategy.run(replica_fn, args=(1.0,))
            """,
            after="""
            from tensorflow.distribute import MirroredStrategy
            import tensorflow as tf

            strategy = MirroredStrategy()

            def helper(value):
                return tf.distribute.get_replica_context().all_reduce("SUM", value)

            def replica_fn(x):
                return helper(x * 2)

            strategy.run(replica_fn, args=(1.0,))
            """,
            note="helper of the replica fn without tf import",
        ),
        Invalid(
            """
            import tensorflow as tf


            class Loop:
                def __init__(self, strategy):
                    self.strategy = strategy

                def replica_step(self, x):
                    return self.strategy.gather(x, axis=0)

                def step(self, x):
                    return self.strategy.run(self.replica_step, args=(x,))
            """,
            after="""
            import tensorflow as tf


            class Loop:
                def __init__(self, strategy):
                    self.strategy = strategy

                def replica_step(self, x):
                    return tf.distribute.get_replica_context().all_gather(x, axis=0)

                def step(self, x):
                    return self.strategy.run(self.replica_step, args=(x,))
            """,
            note="gather on self.strategy in a method",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return strategy.reduce(tf.distribute.ReduceOp.SUM, x, axis=0)

            strategy.run(replica_fn, args=(x,))
            """,
            after=None,
            note="reduce over an axis: advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                parts = strategy.experimental_local_results(x)
                return parts[0]

            strategy.run(replica_fn, args=(x,))
            """,
            after=None,
            note="local results in replica fn",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def inner(x):
                return x

            def replica_fn(x):
                return strategy.run(inner, args=(x,))

            strategy.run(replica_fn, args=(x,))
            """,
            after=None,
            note="nested run",
        ),
        Invalid(
            """
            import tensorflow as tf

            def train(strategy, dataset):
                def step_fn(x):
                    loss = tf.reduce_sum(x)
                    return strategy.reduce(tf.distribute.ReduceOp.SUM, loss, None)

                for x in dataset:
                    strategy.run(step_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf

            def train(strategy, dataset):
                def step_fn(x):
                    loss = tf.reduce_sum(x)
                    return tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, loss)

                for x in dataset:
                    strategy.run(step_fn, args=(x,))
            """,
            note="nested replica fn with strategy parameter and positional axis",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            with strategy.scope():
                mirrored_var = tf.Variable(tf.ones([1]))

                def train_step(data):
                    with tf.GradientTape() as tape:
                        loss = compute_loss(mirrored_var, data)
                    gradients = tape.gradient(loss, mirrored_var)
                    aggregated_gradients = strategy.reduce(tf.distribute.ReduceOp.MEAN, gradients, axis=None)
                    mirrored_var.assign_sub(aggregated_gradients)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            with strategy.scope():
                mirrored_var = tf.Variable(tf.ones([1]))

                def train_step(data):
                    with tf.GradientTape() as tape:
                        loss = compute_loss(mirrored_var, data)
                    gradients = tape.gradient(loss, mirrored_var)
                    aggregated_gradients = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, gradients)
                    mirrored_var.assign_sub(aggregated_gradients)
            """,
            note="seed 001 example 3 step written for strategy.run",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            with strategy.scope():
                def summarize(values):
                    return strategy.reduce("SUM", values, axis=None)

            print(summarize(strategy.run(lambda: 1.0)))
            """,
            note="helper defined in the scope but called from cross-replica code",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return x * 2

            @tf.function
            def step(x):
                per_replica = strategy.run(replica_fn, args=(x,))
                return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
            """,
            note="reduce in the caller",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                ctx = tf.distribute.get_replica_context()
                return ctx.all_reduce(tf.distribute.ReduceOp.SUM, x)

            strategy.run(replica_fn, args=(x,))
            """,
            note="all_reduce in replica fn",
        ),
        Valid(
            """
            import functools
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(values):
                return functools.reduce(lambda a, b: a + b, values)

            strategy.run(replica_fn, args=(x,))
            """,
            note="functools.reduce is unrelated",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return tf.reduce_sum(x)

            results = strategy.experimental_local_results(strategy.run(replica_fn, args=(x,)))
            """,
            note="local results outside",
        ),
        Valid(
            """
            import numpy as np

            def step(x):
                return np.add.reduce(x)

            step(np.ones(3))
            """,
            note="no strategy",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def summarize(per_replica):
                return strategy.reduce("SUM", per_replica, axis=None)

            def replica_fn(x):
                return x

            summarize(strategy.run(replica_fn, args=(x,)))
            """,
            note="helper called from cross-replica code",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return strategy.reduce("SUM", x, axis=None)  # distfix: ignore[TFD302]

            strategy.run(replica_fn, args=(x,))
            """,
            note="suppressed",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x, pool):
                return pool.gather(x)

            strategy.run(replica_fn, args=(x, pool))
            """,
            note="gather on another object",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()


            def replica_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                grads = [strategy.reduce(tf.distribute.ReduceOp.SUM, g, axis=None) for g in grads]
                optimizer.apply_gradients(zip(grads, model.trainable_variables))


            @tf.function
            def train_step(x, y):
                strategy.run(replica_step, args=(x, y))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()


            def replica_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                grads = [g for g in grads]
                optimizer.apply_gradients(zip(grads, model.trainable_variables))


            @tf.function
            def train_step(x, y):
                strategy.run(replica_step, args=(x, y))
            """,
            note="reduced gradients given to apply_gradients: the reduce goes, not all_reduce",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        strategies = ctx.tf.strategies
        for call in ctx.index.calls:
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in _CROSS_REPLICA:
                continue
            if not strategies.is_strategy(func.value):
                continue
            if not replica.in_replica_context(call) and ctx.index.enclosing_function(call) not in replica.probable_replica_functions:
                continue
            method = func.attr.value
            if method in ("run", "experimental_run_v2"):
                ctx.report(call, "nested `strategy.run` inside a replica function; call it from cross-replica code")
            elif method == "experimental_local_results":
                ctx.report(call, "`experimental_local_results` needs cross-replica context; move it to the caller of `strategy.run`")
            elif method == "reduce":
                self._reduce(ctx, call)
            else:
                self._gather(ctx, call)

    def _reduce(self, ctx: RuleContext, call: cst.Call) -> None:
        op, value, axis = argument(call, 0, "reduce_op"), argument(call, 1, "value"), argument(call, 2, "axis")
        message = "`strategy.reduce` inside a replica function raises `Method requires being in cross-replica context`"
        has_axis = axis is not None and not (isinstance(axis.value, cst.Name) and axis.value.value == "None")
        if op is None or value is None or has_axis:
            ctx.report(call, message + "; reduce in the caller of `strategy.run` instead")
            return
        if _feeds_apply_gradients(ctx, call):
            ctx.report(
                call,
                message + "; `apply_gradients` already sums across replicas (Keras 3): use the per-replica value",
                edits=[ctx.replace(call, ctx.source(value.value))],
            )
            return
        tf, edits = ctx.import_module("tensorflow", "tf")
        replacement = f"{tf}.distribute.get_replica_context().all_reduce({ctx.source(op.value)}, {ctx.source(value.value)})"
        ctx.report(call, message + "; use `get_replica_context().all_reduce`", edits=[*edits, ctx.replace(call, replacement)])

    def _gather(self, ctx: RuleContext, call: cst.Call) -> None:
        value, axis = argument(call, 0, "value"), argument(call, 1, "axis")
        message = "`strategy.gather` inside a replica function raises `Method requires being in cross-replica context`"
        if value is None or axis is None:
            ctx.report(call, message + "; gather in the caller instead")
            return
        tf, edits = ctx.import_module("tensorflow", "tf")
        axis_text = ("axis=" if axis.keyword is not None else "") + ctx.source(axis.value)
        replacement = f"{tf}.distribute.get_replica_context().all_gather({ctx.source(value.value)}, {axis_text})"
        ctx.report(call, message + "; use `get_replica_context().all_gather`", edits=[*edits, ctx.replace(call, replacement)])


def _feeds_apply_gradients(ctx: RuleContext, call: cst.Call) -> bool:
    """True when what ``call`` computes is assigned to names that the same function then gives to
    an optimizer's ``apply_gradients`` or ``minimize``."""
    try:
        statement = ctx.index.statement_of(call)
    except ValueError:
        return False
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if not isinstance(small, cst.Assign):
        return False
    bound = set().union(*(names_in(t.target) for t in small.targets))
    func = ctx.index.enclosing_function(call)
    return any(
        isinstance(other.func, cst.Attribute)
        and other.func.attr.value in ("apply_gradients", "minimize")
        and bound & names_in(other)
        for other in ctx.tf.replica.calls_in(func)
    )
