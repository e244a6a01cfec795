"""TFD304: gradients clipped on each replica before the optimizer sums them across replicas."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import CLIPPED_ON_REPLICAS
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.keras_target import keras_major, keras_upgrade_prefix
from fixer.tf.pipelines import binding
from fixer.tf.strategies import Membership
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

_CLIPS = frozenset(
    {
        "tensorflow.clip_by_global_norm",
        "tensorflow.clip_by_norm",
        "tensorflow.math.clip_by_norm",
        "keras.ops.clip_by_norm",
    }
)
_GRADIENTS = frozenset({"tensorflow.gradients"})
# Calls that hand their arguments' gradients through unchanged in kind.
_PASS_THROUGH = frozenset({"zip", "list", "tuple"})
_PASS_THROUGH_METHODS = frozenset({"get_unscaled_gradients"})  # a LossScaleOptimizer's unscaling
_COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp)
_OPTIMIZERS = "keras.optimizers."
_NORM_CLIPPING = ("clipnorm", "global_clipnorm")  # measured; `clipvalue` is element-wise


class GradientClippingBeforeAggregation(Rule):
    """
    ## What it does
    Inside a replica function, finds `tf.clip_by_global_norm` or `tf.clip_by_norm` applied to the
    gradients computed on that replica when they are then given to an optimizer's
    `apply_gradients`, which sums them across replicas; also a Keras 3 optimizer made with
    `clipnorm=` or `global_clipnorm=` in the scope of a strategy that can have several replicas.

    ## Why is this bad in distributed training?
    Each replica's gradient is only its share of the global batch's gradient (with the loss
    scaled to the global batch, the shares add up to it). Clipping each share to the threshold
    bounds every share, not the sum: the applied update can be up to N times the threshold, and
    its direction changes because each share is scaled by its own factor. Measured on
    TensorFlow 2.21 with 2 replicas on the ground truth's toy problem (gradient `[67, 80]`, norm
    104.35, shares `[8.5, 12]` and `[58.5, 68]`), SGD 0.01, threshold 10, one step from
    `[1, 1]`: clipping the whole gradient gives `[0.93579, 0.92334]`; clipping on each replica
    (`clip_by_global_norm` or `clip_by_norm`) then `apply_gradients` gives `[0.87698, 0.84259]`,
    a step 1.9 times longer, under Keras 3 and under tf-keras alike. The optimizer's
    `global_clipnorm=10` (or `clipnorm=10`) gives `[0.87698, 0.84259]` under Keras 3 (it clips
    in `apply` before `apply_gradients` all-reduces) and `[0.93579, 0.92334]` under tf-keras
    (which aggregates first). All-reducing the gradients (SUM), clipping, and dividing by
    `num_replicas_in_sync` before `apply_gradients` gives `[0.93579, 0.92334]` under both
    (`benchmarks/probe_gradient_clipping.py`, output in `docs/probes.md`).

    ## Fix safety
    Display-only: whether per-replica clipping was intended cannot be told from the code, and
    the remedy depends on the Keras in use. The message gives the form measured to match
    single-device clipping under both Keras 3 and tf-keras: `grads =
    tf.distribute.get_replica_context().all_reduce("sum", grads)`, clip, then divide each
    gradient by `num_replicas_in_sync` (Keras 3's `apply_gradients` sums the replicas' copies
    again and has no `skip_gradients_aggregation`); with tf-keras,
    `apply_gradients(..., skip_gradients_aggregation=True)` after the clip, or the optimizer's
    `global_clipnorm`, also work.

    ## Known limits
    - A replica function is one passed to `strategy.run`, and what it calls, or a Keras model's
      `train_step` override when the file builds or compiles the model in a strategy scope (`fit`
      runs it on each replica); the gradients are those `tape.gradient` (or `tf.gradients`)
      computed.
    - The gradients are followed through names, comprehensions
      (`[tf.clip_by_norm(g, 5.0) for g in grads]`), `zip` and filtering.
    - Not reported: gradients that were all-reduced first (`get_replica_context().all_reduce(...)`),
      programs whose only strategy is `OneDeviceStrategy`, and an
      `apply_gradients(..., skip_gradients_aggregation=True)` (tf-keras: the caller aggregates).
    - The optimizer case: inside `with strategy.scope():`, or in a function called only there;
      Keras 3 applies that clipping on each replica before `apply_gradients` sums the replicas'
      gradients (measured, see below). The Keras is told as TFD403 tells it; tf-keras, which clips
      after aggregating, is not reported.
    - Not reported (documented instead): `clip_by_value` and `clipvalue=` (element-wise); a Keras
      `Model.train_step` override of a model class the file does not itself build or compile in a
      strategy scope (whether `fit` runs it under a strategy is not visible there).

    ## Runtime evidence
    Not observable by `distfix validate` as a failure: replicas stay consistent with each other;
    the weights differ from single-device training only once clipping is active.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/clip_by_global_norm
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#all_reduce
    - https://keras.io/api/optimizers/#core-optimizer-api
    """

    code = "TFD304"
    name = "gradient-clipping-before-aggregation"
    message = "gradients are clipped on each replica before they are summed across replicas"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("clip_by_global_norm", "clip_by_norm", "clipnorm")
    needs = (STRATEGY,)
    facts = (CLIPPED_ON_REPLICAS,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.strategies.single_replica:
            return
        self._check_optimizer_clipping(ctx)
        replica = ctx.tf.replica
        for call in ctx.index.calls:
            if ctx.tf.names.callee(call) not in _CLIPS or not call.args:
                continue
            if not replica.in_replica_context(call):
                continue
            if not _from_local_gradients(ctx, call.args[0].value, call):
                continue
            if not _applied_after(ctx, call):
                continue
            name = ctx.source(call.func)
            ctx.report(
                call,
                f"`{name}` clips this replica's share of the gradients before `apply_gradients` sums the shares, "
                "not the whole gradient; all-reduce, clip, then divide by the replica count",
            )

    def _check_optimizer_clipping(self, ctx: RuleContext) -> None:
        """Keras 3 optimizers with norm clipping made in a strategy's scope."""
        for call in ctx.index.calls:
            arg = next((a for a in call.args if a.keyword is not None and a.keyword.value in _NORM_CLIPPING), None)
            if arg is None or not (ctx.tf.names.callee(call) or "").startswith(_OPTIMIZERS):
                continue
            if ctx.tf.strategies.membership(call) is not Membership.INSIDE or keras_major(ctx.tf, call.func) != 3:
                continue
            keyword = cst.ensure_type(arg.keyword, cst.Name).value
            ctx.report(
                arg,
                keras_upgrade_prefix(ctx.tf, call.func)
                + f"Keras 3 applies `{keyword}` on each replica before the replicas' gradients are summed "
                "(a longer step); clip in a custom `train_step` after an all-reduce, or use tf-keras",
            )


def _from_local_gradients(ctx: RuleContext, expr: cst.BaseExpression, at: cst.CSTNode, depth: int = 0) -> bool:
    """``expr`` holds gradients computed on this replica (``tape.gradient``, ``tf.gradients``) that
    were not all-reduced on the way: followed through names, comprehensions, ``zip`` and indexing."""
    if depth > 6:
        return False
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "gradient" and expr.args:
            return True
        if ctx.tf.names.callee(expr) in _GRADIENTS:
            return True
        through = isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _PASS_THROUGH_METHODS
        if through or (isinstance(expr.func, cst.Name) and expr.func.value in _PASS_THROUGH):
            return any(_from_local_gradients(ctx, arg.value, at, depth + 1) for arg in expr.args)
        return False
    if isinstance(expr, cst.Subscript):
        return _from_local_gradients(ctx, expr.value, at, depth + 1)
    if isinstance(expr, _COMPREHENSIONS):
        return _from_local_gradients(ctx, expr.for_in.iter, expr, depth + 1)
    if isinstance(expr, cst.Name):
        comprehension = _comprehension_binding(ctx, expr)
        if comprehension is not None:
            return _from_local_gradients(ctx, comprehension.iter, comprehension, depth + 1)
        bound = binding(ctx.tf, expr.value, at)
        return bound is not None and _from_local_gradients(ctx, bound[0], bound[1], depth + 1)
    return False


def _comprehension_binding(ctx: RuleContext, name: cst.Name) -> cst.CompFor | None:
    """The ``for ... in`` clause of a list, set or generator comprehension whose target gives
    ``name`` its value (fixer.semantic: the comprehension's own target, or an enclosing one's)."""
    for bound in ctx.tf.semantic.resolve(name):
        if isinstance(bound.statement, cst.CompFor) and isinstance(bound.scope.node, _COMPREHENSIONS):
            return bound.statement
    return None


def _applied_after(ctx: RuleContext, clip: cst.Call) -> bool:
    """An optimizer's ``apply_gradients`` that aggregates runs in the clip's function after it (or
    takes the clip inline)."""
    func = ctx.index.enclosing_function(clip)
    for call in ctx.tf.replica.calls_in(func):
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "apply_gradients"):
            continue
        if not (ctx.index.before(clip, call) or ctx.index.is_within(clip, call)):
            continue
        if any(_skips_aggregation(arg) for arg in call.args):
            continue
        return True
    return False


def _skips_aggregation(arg: cst.Arg) -> bool:
    """``skip_gradients_aggregation=True`` or ``experimental_aggregate_gradients=False``."""
    if arg.keyword is None or not isinstance(arg.value, cst.Name):
        return False
    keyword, value = arg.keyword.value, arg.value.value
    return (keyword, value) in {("skip_gradients_aggregation", "True"), ("experimental_aggregate_gradients", "False")}
