"""TFD108: the result of `strategy.run` used as a plain tensor (`.numpy()`, `float()`, NumPy, formats)."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.index import FunctionLike, ModuleIndex
from fixer.types import Applicability

_PYTHON_NUMBERS = frozenset({"float", "int"})
# TensorFlow functions that accept a PerReplica (they walk composite values, or are the remedy).
_TF_ACCEPTS_PER_REPLICA = ("tensorflow.nest.", "tensorflow.distribute.", "tensorflow.print", "tensorflow.function")


class PerReplicaValueUsedAsTensor(Rule):
    """
    ## What it does
    Finds the result of `strategy.run` (directly, through a name, or returned by a step that
    returns `strategy.run(...)`) used as if it were one tensor in cross-replica code: `.numpy()`,
    `float()`/`int()`, a NumPy function, an f-string format such as `{loss:.4f}`, or a TensorFlow
    op.

    ## Why is this bad in distributed training?
    With more than one replica, `strategy.run` returns a `PerReplica` value (one tensor per
    replica), not a tensor. Measured on TensorFlow 2.21 with two replicas, under Keras 3 and
    tf-keras alike: `.numpy()` raises `AttributeError: 'PerReplica' object has no attribute
    'numpy'`; `float()` raises `TypeError: float() argument must be a string or a real number, not
    'PerReplica'`; `np.mean` raises `TypeError: unsupported operand type(s) for /: 'PerReplica'
    and 'int'`; `f"{loss:.3f}"` raises `TypeError: unsupported format string passed to
    PerReplica.__format__`; `tf.reduce_sum` raises `ValueError: It looks like you are using a
    PerReplica object while not inside a replica context`. With one replica `strategy.run`
    returns the tensor itself and all of these work, so the script breaks on the day it first runs
    on two GPUs. (`print(result)` and `str(result)` do not raise: they show every replica's value.)

    ## Fix safety
    Display-only: whether the per-replica values should be summed, averaged or looked at one by
    one is the author's choice. Use `strategy.reduce(tf.distribute.ReduceOp.SUM, result,
    axis=None)` (a loss computed with `tf.nn.compute_average_loss`) or `ReduceOp.MEAN`, or
    `strategy.experimental_local_results(result)` for the per-replica tensors.

    ## Runtime evidence
    `distfix validate` with two replicas shows the `runs` check failing with the error above.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#run
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#reduce
    """

    code = "TFD108"
    name = "per-replica-value-used-as-tensor"
    message = "a `strategy.run` result (PerReplica) used as a tensor"
    applicability = Applicability.DISPLAY_ONLY
    triggers = (".run(", "experimental_run_v2")
    needs = (STRATEGY,)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def train_step(x):
                return strategy.run(replica_step, args=(x,))

            for x in dist_dataset:
                loss = train_step(x)
                print("loss", loss.numpy())
            """,
            note="numpy of a step returning run",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            for x in dist_dataset:
                losses = strategy.run(replica_step, args=(x,))
                total += float(losses)
            """,
            note="float of a run result",
        ),
        Invalid(
            """
            import numpy as np
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            history = []
            for x in dist_dataset:
                history.append(np.mean(strategy.run(replica_step, args=(x,))))
            """,
            note="np.mean of run",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def train_step(x):
                per_replica = strategy.run(replica_step, args=(x,))
                return per_replica

            loss = train_step(batch)
            print(f"loss {loss:.4f}")
            """,
            note="formatted, returned through a name",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def train_step(x):
                losses = strategy.run(replica_step, args=(x,))
                return tf.reduce_mean(losses)
            """,
            note="tf op on the run result in the step",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            for x in dist_dataset:
                loss, accuracy = strategy.run(replica_step, args=(x,))
                print(int(accuracy))
            """,
            note="unpacked tuple",
        ),
        Invalid(
            """
            import tensorflow as tf


            class Trainer:
                def __init__(self):
                    self.strategy = tf.distribute.MirroredStrategy()

                @tf.function
                def step(self, x):
                    return self.strategy.run(self.replica_step, args=(x,))

                def train(self, dataset):
                    for x in dataset:
                        self.losses.append(self.step(x).numpy())
            """,
            note="method returning run",
        ),
        Invalid(
            """
            import tensorflow as tf

            def evaluate(strategy: tf.distribute.Strategy, batches):
                for batch in batches:
                    outputs = strategy.run(predict_step, args=(batch,))
                    scores = outputs[0].numpy()
            """,
            note="an element of the result",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def distributed_step(x):
                return strategy.run(replica_step, args=(x,))

            train_step = tf.function(distributed_step)
            for x in dist_dataset:
                print(train_step(x).numpy())
            """,
            note="step compiled by a tf.function call",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def train_step(x):
                per_replica = strategy.run(replica_step, args=(x,))
                return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

            loss = train_step(batch)
            print(f"loss {loss:.4f}", float(loss), loss.numpy())
            """,
            note="reduced in the step",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            for x in dist_dataset:
                losses = strategy.run(replica_step, args=(x,))
                losses = strategy.reduce("SUM", losses, axis=None)
                print(float(losses))
            """,
            note="name rebound to the reduce",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            for x in dist_dataset:
                losses = strategy.run(replica_step, args=(x,))
                print([float(v) for v in strategy.experimental_local_results(losses)])
            """,
            note="local results",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.OneDeviceStrategy("/gpu:0")

            for x in dataset:
                loss = strategy.run(replica_step, args=(x,))
                print(float(loss))
            """,
            note="one replica: run returns the tensor",
        ),
        Valid(
            """
            import ray

            executor = ray.train.Executor()
            result = executor.run(train_fn, args=[config])
            print(float(result))
            """,
            note="not a strategy",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_step(x):
                inner = model(x)
                return float(tf.reduce_sum(inner).numpy())

            for x in dist_dataset:
                losses = strategy.run(replica_step, args=(x,))
                print(losses)
            """,
            note="print shows every replica, numpy inside the replica fn",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def train_step(x):
                return strategy.run(replica_step, args=(x,))

            for x in dist_dataset:
                loss = train_step(x)
                loss = tf.nest.map_structure(lambda t: t, strategy.experimental_local_results(loss))
                tf.print(train_step(x))
            """,
            note="nest and tf.print accept PerReplica",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def train_step(x):
                if fast:
                    return strategy.reduce("SUM", strategy.run(replica_step, args=(x,)), axis=None)
                return strategy.run(replica_step, args=(x,))

            print(float(train_step(x)))
            """,
            note="a step that returns run on one path only",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def train_step(x):
                return strategy.run(replica_step, args=(x,))

            def train_step(x):
                return strategy.reduce("SUM", strategy.run(replica_step, args=(x,)), axis=None)

            print(float(train_step(x)))
            """,
            note="step redefined later (notebook cells) to reduce",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.strategies.single_replica or not ctx.tf.replica.proven_run_calls:
            return
        sources = _PerReplicaSources(ctx)
        for call in ctx.index.calls:
            for value in _tensor_uses(ctx, call):
                if sources.is_per_replica(value) and not ctx.tf.replica.in_proven_replica_context(call):
                    ctx.report(call, _message(ctx, call))
        for fstring in _formatted_expressions(ctx.index):
            if sources.is_per_replica(fstring.expression) and not ctx.tf.replica.in_proven_replica_context(fstring):
                ctx.report(
                    fstring,
                    "a format spec raises on a `strategy.run` result (a PerReplica value with more than one "
                    "replica); reduce it first (`strategy.reduce`) or format its local results",
                )


def _message(ctx: RuleContext, call: cst.Call) -> str:
    what = ctx.source(call.func) if not isinstance(call.func, cst.Attribute) else f".{call.func.attr.value}()"
    return (
        f"`{what}` raises on a `strategy.run` result (a PerReplica value with more than one replica); reduce "
        "it first (`strategy.reduce`) or use `strategy.experimental_local_results(value)`"
    )


def _tensor_uses(ctx: RuleContext, call: cst.Call) -> list[cst.BaseExpression]:
    """The expressions ``call`` uses as one tensor or number: its receiver for ``.numpy()``, the
    argument of ``float``/``int``, the first argument of a NumPy or TensorFlow function."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "numpy" and not call.args:
        return [func.value]
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return []
    first = call.args[0].value
    if isinstance(func, cst.Name) and func.value in _PYTHON_NUMBERS and ctx.tf.names.qualified(func) is None:
        return [first]
    qualified = ctx.tf.names.callee(call) or ""
    if qualified.startswith("numpy."):
        return [first]
    if qualified.startswith("tensorflow.") and not qualified.startswith(_TF_ACCEPTS_PER_REPLICA):
        return [first]
    return []


def _formatted_expressions(index: ModuleIndex) -> list[cst.FormattedStringExpression]:
    """Every ``{value:spec}`` of every f-string (those with a format spec), in source order.

    Read from the index, which holds every node: a second visit of the tree costs more than all
    the rest of the rule on a long file."""
    return [node for node in index.order if type(node) is cst.FormattedStringExpression and node.format_spec]


class _PerReplicaSources:
    """Which expressions hold what a proven `strategy.run` returned (a PerReplica value)."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self.runs = {id(run.call) for run in ctx.tf.replica.proven_run_calls}

    def is_per_replica(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """True when ``node`` evaluates to a `strategy.run` result (or an element of one)."""
        if depth > 4:
            return False
        if isinstance(node, cst.Subscript):
            return self.is_per_replica(node.value, depth + 1)
        if isinstance(node, cst.Call):
            if id(node) in self.runs:
                return True
            # Every def the name may call returns a run result (a notebook may redefine the step).
            callees = self._callees(node)
            return bool(callees) and all(f in self._run_returning for f in callees)
        if isinstance(node, cst.Name):
            value = self._reaching_value(node)
            return value is not None and self.is_per_replica(value, depth + 1)
        return False

    def _callees(self, call: cst.Call) -> list[FunctionLike]:
        """The functions of this module the call may run (``step = tf.function(fn)`` followed)."""
        if self.ctx.tf.names.qualified(call.func) is not None:
            return []
        return self.ctx.tf.replica.resolve_callable(call.func, call)

    @cached_property
    def _run_returning(self) -> frozenset[cst.FunctionDef]:
        """Functions every `return` of which gives back a `strategy.run` result."""
        found = set()
        for func in self.ctx.index.functions:
            returns = [r for r in self.ctx.index.in_function("returns", func)]
            if returns and all(r.value is not None and self._is_run_value(r.value) for r in returns):
                found.add(func)
        return frozenset(found)

    def _is_run_value(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call):
            return id(node) in self.runs
        if isinstance(node, cst.Name):
            value = self._reaching_value(node)
            return isinstance(value, cst.Call) and id(value) in self.runs
        return False

    def _reaching_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The value of the last assignment to ``name`` before it, in the same function; for a name
        unpacked from a tuple assignment (``a, b = value``), ``value`` itself."""
        index = self.ctx.index
        scope = index.enclosing_function(name)
        reaching = None
        for assign in index.in_function("assigns", scope):
            if not index.before(assign, name) or index.is_within(name, assign):
                continue
            if any(_binds(target, name.value) for target in _targets(assign)):
                reaching = assign
        if reaching is None or isinstance(reaching, cst.AugAssign) or reaching.value is None:
            return None
        return reaching.value


def _targets(assign: cst.Assign | cst.AnnAssign | cst.AugAssign) -> list[cst.BaseExpression]:
    if isinstance(assign, cst.Assign):
        return [t.target for t in assign.targets]
    return [assign.target]


def _binds(target: cst.BaseExpression, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(element.value, name) for element in target.elements)
    return False
