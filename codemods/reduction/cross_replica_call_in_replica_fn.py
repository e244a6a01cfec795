"""TFD302: a cross-replica `strategy` method called inside a replica function."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import REPLICA_FUNCTION
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.calls import argument
from fixer.tf.dataflow import names_in
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

# `experimental_local_results` is not here: it returns the local values inside a replica function
# (benchmarks/probe_cross_replica_methods_in_replica_fn.py, TensorFlow 2.21).
_CROSS_REPLICA = frozenset({"reduce", "gather", "run", "experimental_run_v2"})


class CrossReplicaCallInReplicaFn(Rule):
    """
    ## What it does
    Finds `strategy.reduce`, `strategy.gather` and nested `strategy.run` calls inside a replica
    function (the function given to `strategy.run`, or a helper it calls, or a Keras model's
    `train_step`/`test_step` override).

    ## Why is this bad in distributed training?
    These methods need cross-replica context. Inside `strategy.run`, TensorFlow 2.21 raises
    `RuntimeError: Method requires being in cross-replica context, use
    get_replica_context().merge_call()` for `reduce` and a nested `run`, and `RuntimeError:
    tf.distribute.Strategy.gather method requires cross-replica context, use
    get_replica_context().all_gather() instead` for `gather`, in eager mode and in `tf.function` alike. Articles that
    "fix" gradient aggregation with `strategy.reduce` inside the step therefore crash.

    ## Fix safety
    Unsafe. `strategy.reduce(op, value, axis=None)` becomes
    `tf.distribute.get_replica_context().all_reduce(op, value)` and `strategy.gather(value, axis)`
    becomes `tf.distribute.get_replica_context().all_gather(value, axis)`: every replica then
    holds the reduced value, which is what code running inside the replica function needs.
    A reduce whose result goes to the optimizer's `apply_gradients` or `minimize` is replaced by
    the per-replica value instead: Keras 3 sums gradients across replicas there (measured), so an
    all-reduce in front of it would apply them N times.
    A `reduce` over an axis and nested `run` calls have no replica-context equivalent: move them
    to the caller, outside `strategy.run`.

    ## Known limits
    - A `train_step`/`test_step` override counts when the file builds or compiles the model in a
      strategy scope: `fit` and `evaluate` run it inside `strategy.run` (measured on TensorFlow
      2.21, Keras 3 and tf-keras: `strategy.reduce`, `tf.distribute.get_strategy().reduce` or the
      model's own `self.distribute_strategy.reduce` in `train_step` raises the `RuntimeError` quoted above).
    - A model class the file only defines (built in another module) is not followed.
    - `strategy.experimental_local_results` is not reported: inside a replica function it returns
      the local values without error (eagerly, in a `tf.function`, and in `call_for_each_replica`
      under a `merge_call`; measured on TensorFlow 2.21).

    ## Runtime evidence
    `distfix validate` shows the original failing check `runs` with the `RuntimeError` above, and
    the fixed script running with identical copies on every replica.

    Measured on TensorFlow 2.21 with 2 replicas, Keras 3 and tf-keras alike
    (`benchmarks/probe_replica_function_calls.py`, output in `docs/probes.md`):
    `strategy.reduce` inside the replica function raises the `RuntimeError` above, eagerly and
    in a `tf.function`. `benchmarks/probe_cross_replica_methods_in_replica_fn.py` (plain TF, two
    replicas) calls each method there: `reduce`, `gather` and a nested `run` raise, eagerly and in a
    `tf.function`; `experimental_local_results` returns the replicas' values (`[1.0, 1.0]`).

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#all_reduce
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#reduce
    """

    code = "TFD302"
    name = "cross-replica-call-in-replica-fn"
    message = "cross-replica call inside a replica function raises"
    fix_title = "Use the replica context's collective instead"
    applicability = Applicability.UNSAFE
    triggers = (".reduce(", ".gather(", ".run(", "experimental_run_v2")
    needs = (STRATEGY,)
    facts = (REPLICA_FUNCTION,)

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        strategies = ctx.tf.strategies
        for call in ctx.index.calls:
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in _CROSS_REPLICA:
                continue
            if not strategies.is_strategy(func.value):
                continue
            if (
                not replica.in_replica_context(call)
                and ctx.index.enclosing_function(call) not in replica.probable_replica_functions
            ):
                continue
            if _guarded_cross_replica(ctx, call):
                continue  # `if tf.distribute.in_cross_replica_context():` runs it only from the caller
            method = func.attr.value
            if method in ("run", "experimental_run_v2"):
                ctx.report(call, "nested `strategy.run` inside a replica function; call it from cross-replica code")
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
        arguments = f"{ctx.source(op.value)}, {ctx.source(value.value)}"
        replacement = f"{tf}.distribute.get_replica_context().all_reduce({arguments})"
        ctx.report(
            call, message + "; use `get_replica_context().all_reduce`", edits=[*edits, ctx.replace(call, replacement)]
        )

    def _gather(self, ctx: RuleContext, call: cst.Call) -> None:
        value, axis = argument(call, 0, "value"), argument(call, 1, "axis")
        message = "`strategy.gather` inside a replica function raises `Method requires being in cross-replica context`"
        if value is None or axis is None:
            ctx.report(call, message + "; gather in the caller instead")
            return
        tf, edits = ctx.import_module("tensorflow", "tf")
        axis_text = ("axis=" if axis.keyword is not None else "") + ctx.source(axis.value)
        replacement = f"{tf}.distribute.get_replica_context().all_gather({ctx.source(value.value)}, {axis_text})"
        ctx.report(
            call, message + "; use `get_replica_context().all_gather`", edits=[*edits, ctx.replace(call, replacement)]
        )


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


def _guarded_cross_replica(ctx: RuleContext, call: cst.Call) -> bool:
    """A branch test at ``call`` says it runs in cross-replica context: under
    `if tf.distribute.in_cross_replica_context():`, or `get_replica_context() is None`, or after an
    `if not in_cross_replica_context(): return` (`semantic.conditions`)."""
    for condition in ctx.tf.semantic.conditions(call):
        if _says_cross_replica(ctx, condition.test, condition.holds):
            return True
    return False


def _says_cross_replica(ctx: RuleContext, test: cst.BaseExpression, holds: bool) -> bool:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _says_cross_replica(ctx, test.expression, not holds)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and holds:
        return _says_cross_replica(ctx, test.left, True) or _says_cross_replica(ctx, test.right, True)
    if isinstance(test, cst.Call):
        return holds and ctx.tf.names.callee(test) == "tensorflow.distribute.in_cross_replica_context"
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Call):
        target = test.comparisons[0]
        is_none = isinstance(target.comparator, cst.Name) and target.comparator.value == "None"
        if is_none and ctx.tf.names.callee(test.left) == "tensorflow.distribute.get_replica_context":
            if isinstance(target.operator, cst.Is):
                return holds
            if isinstance(target.operator, cst.IsNot):
                return not holds
    return False
