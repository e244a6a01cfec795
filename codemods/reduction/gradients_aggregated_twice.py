"""TFD305: gradients all-reduced by hand in a replica function, then summed again by `apply_gradients`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import REPLICA_FUNCTION
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.dataflow import names_in
from fixer.tf.keras_target import keras_major, keras_upgrade_prefix
from fixer.tf.loss_scaling import gradient_calls
from fixer.tf.optimizers import optimizer_creation
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_SKIP_KEYWORDS = {"experimental_aggregate_gradients": "False", "skip_gradients_aggregation": "True"}


class GradientsAggregatedTwice(Rule):
    """
    ## What it does
    In a replica function, finds gradients computed there (`tape.gradient`) that are all-reduced
    with SUM by hand (`get_replica_context().all_reduce(SUM, grads)`, often to clip them by their
    global norm) and then given to `apply_gradients`, which all-reduces them again.

    ## Why is this bad in distributed training?
    The optimizer sums the replicas' gradients in replica context; gradients that are already
    the sum are summed again, so each step is N times too large with N replicas, silently.
    Measured on TensorFlow 2.21 with 2 replicas (`benchmarks/probe_gradients_aggregated_twice.py`):
    all-reduce (SUM), clip, `apply_gradients` gives [-0.34, -0.6] where one device gives
    [0.33, 0.2], under Keras 3 and tf-keras alike. tf-keras with either keyword gives [0.33, 0.2];
    Keras 3 with either keyword raises `TypeError: ... got an unexpected keyword argument`;
    dividing the reduced gradients by `num_replicas_in_sync` before `apply_gradients` gives
    [0.33, 0.2] under both.

    ## Fix safety
    Safe under tf-keras (the optimizer's Keras is told as TFD403 tells it):
    `experimental_aggregate_gradients=False` is added to the `apply_gradients` call, which
    applies the reduced gradients as they are (measured). Under Keras 3, or when the Keras
    cannot be told, display-only: divide the reduced gradients by `num_replicas_in_sync` before
    `apply_gradients` (or drop the manual all-reduce if nothing needs the whole gradient).

    ## Known limits
    - Not reported when the reduced gradients are divided by `num_replicas_in_sync` on the way, or
      when tf-keras is told to skip its own aggregation (`experimental_aggregate_gradients=False`,
      `skip_gradients_aggregation=True`).
    - Under Keras 3 those keywords do not exist: a call that passes one is reported too.

    ## Runtime evidence
    Not a crash: `distfix validate` shows replicas that agree with each other but not with the
    single-device step; the probe above shows the numbers.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#all_reduce
    - https://github.com/tensorflow/models/issues/8433
    """

    code = "TFD305"
    name = "gradients-aggregated-twice"
    message = "gradients all-reduced by hand are summed again by `apply_gradients`"
    fix_title = "Tell the optimizer the gradients are aggregated"
    applicability = Applicability.SAFE
    triggers = ("all_reduce",)
    needs = (STRATEGY,)
    facts = (REPLICA_FUNCTION,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.strategies.single_replica:
            return
        for func in ctx.tf.replica.probable_replica_functions:
            gradients = gradient_calls(ctx.tf, func)
            if not gradients:
                continue
            for reduce in _sum_reductions(ctx, func, gradients):
                self._check_reduction(ctx, func, reduce)

    def _check_reduction(self, ctx: RuleContext, func: FunctionLike, reduce: cst.Call) -> None:
        statement = ctx.index.statement_of(reduce)
        parent = ctx.index.parent.get(reduce)
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1):
            return
        derived = _derived(ctx, func, names_in(parent.targets[0].target))
        for call in ctx.tf.replica.calls_in(func):
            if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "apply_gradients"):
                continue
            if not ctx.index.before(statement, call) or not (derived & names_in(call)):
                continue
            if _divided_between(ctx, statement, call):
                continue
            creation = optimizer_creation(ctx.tf, call.func.value)
            keras = keras_major(ctx.tf, creation.call.func) if creation is not None else None
            skip = next((a for a in call.args if a.keyword is not None and a.keyword.value in _SKIP_KEYWORDS), None)
            if skip is not None:
                if keras == 3 and creation is not None:
                    keyword = cst.ensure_type(skip.keyword, cst.Name).value
                    ctx.report(
                        skip,
                        keras_upgrade_prefix(ctx.tf, creation.call.func)
                        + f"Keras 3's `apply_gradients` has no `{keyword}` (`TypeError`); divide the "
                        "all-reduced gradients by `num_replicas_in_sync` instead",
                    )
                continue
            if keras == 2:
                ctx.report(
                    call,
                    "these gradients are already all-reduced, and `apply_gradients` sums them again (an N times "
                    "larger step); pass `experimental_aggregate_gradients=False`",
                    edits=[_add_keyword(ctx, call)],
                )
                continue
            ctx.report(
                call,
                "these gradients are already all-reduced, and `apply_gradients` sums them again (an N times larger "
                "step); divide them by `num_replicas_in_sync` first",
            )


def _sum_reductions(ctx: RuleContext, func: FunctionLike, gradients: list[cst.Call]) -> list[cst.Call]:
    """``all_reduce(SUM, grads)`` calls in ``func`` that reduce the replica's gradients themselves."""
    bound: set[str] = set()
    for gradient in gradients:
        parent = ctx.index.parent.get(gradient)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            bound |= names_in(parent.targets[0].target)
    grads = _derived(ctx, func, bound)
    found = []
    for call in ctx.tf.replica.calls_in(func):
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "all_reduce" and len(call.args) >= 2):
            continue
        op = ctx.source(call.args[0].value)
        if not (op.endswith("SUM") or op.strip("\"'").lower() == "sum"):
            continue
        value = call.args[1].value
        # The gradients themselves, not something computed from them (a norm to clip by).
        if any(g is value for g in gradients) or (isinstance(value, cst.Name) and value.value in grads):
            found.append(call)
    return found


def _derived(ctx: RuleContext, func: FunctionLike, names: set[str]) -> set[str]:
    """``names`` plus the locals and loop variables of ``func`` computed from them."""
    derived = set(names)
    candidates = [*ctx.index.in_function("fors", func), *ctx.index.in_function("assigns", func)]
    nodes = [n for n in candidates if isinstance(n, (cst.For, cst.Assign))]
    for _ in range(3):
        for node in nodes:
            source = node.iter if isinstance(node, cst.For) else node.value
            if derived & names_in(source):
                targets = [node.target] if isinstance(node, cst.For) else [t.target for t in node.targets]
                for target in targets:
                    derived |= names_in(target)
    return derived


def _divided_between(ctx: RuleContext, first: cst.CSTNode, last: cst.Call) -> bool:
    """The code from ``first`` to ``last`` (included) mentions ``num_replicas_in_sync``: the sum is
    turned back into a mean on the way (the Keras 3 form measured correct)."""
    mentions: list[cst.CSTNode] = [a for a in ctx.index.attributes if a.attr.value == "num_replicas_in_sync"]
    mentions += ctx.index.names.get("num_replicas_in_sync", [])
    return any(
        ctx.index.order[first] <= ctx.index.order[m] and (ctx.index.before(m, last) or ctx.index.is_within(m, last))
        for m in mentions
    )


def _add_keyword(ctx: RuleContext, call: cst.Call) -> Edit:
    """``experimental_aggregate_gradients=False`` after the call's last argument."""
    last = call.args[-1]
    _, end = ctx.span(last.value)
    return Edit(end, end, ", experimental_aggregate_gradients=False")
