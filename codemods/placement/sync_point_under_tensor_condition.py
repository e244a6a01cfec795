"""TFD110: an optimizer update under a tensor condition in compiled per-replica code."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import REPLICA_STEP_OR_ACCUMULATION
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.keras_target import keras_major, keras_upgrade_prefix
from fixer.tf.names import dotted_name
from fixer.tf.optimizers import compiled_replica_functions, optimizer_creation, optimizer_state
from fixer.tf.strategies import Membership
from fixer.tf.tensor_tests import is_tensor_test
from fixer.tf.tf_config_sources import literal_value
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_CONDS = frozenset({"tensorflow.cond", "tensorflow.compat.v1.cond"})
_RANGE = "tensorflow.range"
_ALWAYS_UPDATES = frozenset({"apply_gradients", "minimize"})
_ERROR = "`merge_call called while defining a new graph`"
_ADVICE = "decide in the step: `if ...: strategy.run(apply_fn)`"
_FIT_ADVICE = "`fit` has no step of yours to decide in: use a custom loop"


class SyncPointUnderTensorCondition(Rule):
    """
    ## What it does
    In per-replica code that runs compiled, finds an optimizer update (`apply_gradients`,
    `minimize`, Keras 3 `optimizer.apply`, directly or through a helper) under a condition decided
    by a tensor, and a Keras 3 optimizer made with `gradient_accumulation_steps=` greater than 1 in
    a strategy's scope (or given to a `compile` there).

    ## Why is this bad in distributed training?
    An optimizer update is a synchronization point: each replica's update calls `merge_call` to
    aggregate the gradients across replicas. TensorFlow cannot do that inside a branch of a graph
    condition (autograph turns a tensor `if` into `tf.cond`), so tracing the step fails with
    `RuntimeError: merge_call called while defining a new graph or a tf.function. This can often
    happen if the function fn passed to strategy.run() contains a nested @tf.function, and the
    nested @tf.function contains a synchronization point, such as aggregating gradients ... or
    if the function fn uses a control flow statement which contains a synchronization point in
    the body.` This is the usual shape of gradient accumulation (apply every K steps).

    Measured on TensorFlow 2.21, Keras 3.15.1 and tf-keras 2.21, 2 replicas, accumulating 2 steps
    (`benchmarks/probe_sync_point_under_condition.py`): an `if` on a `tf.Variable` step counter,
    `tf.cond`, an `if` on `optimizer.iterations`, a `while` on the counter and a `for` over
    `tf.range` around `apply_gradients` in the replica function all raise that error under both
    Kerases, as does a `train_step` override that wraps
    `apply_gradients` in `tf.cond` under `fit`; Keras 3's `SGD(gradient_accumulation_steps=2)`
    compiled in the scope raises it in `fit` (without a strategy it trains;
    keras-team/keras#20582). The same `tf.cond` step run eagerly, and an `if` on a Python int,
    run. Both alternatives below reach the single-device weights [0.3414, 0.215] on both
    replicas under both Kerases.

    ## Fix safety
    Display-only: the fix moves code across functions. Accumulate the gradients in the replica
    function into ON_READ/SUM variables (`tf.Variable(..., synchronization=ON_READ,
    aggregation=SUM)` made in the scope), then apply them from cross-replica code, where a tensor
    condition holds no synchronization point:

    - in the same `tf.function` step: `strategy.run(accumulate, args=...)`, then
      `if step % K == 0: strategy.run(apply_accumulated)`; or
    - from two compiled steps, with Python deciding: `accumulate_step(x, y)` every step and
      `apply_step()` every K steps (OpenNMT-tf does this).

    For Keras 3's `gradient_accumulation_steps`: drop it and accumulate in a custom loop as
    above (tf-keras optimizers have no such argument).

    ## Known limits
    - Per-replica code that runs compiled is a function given to `strategy.run` from a
      `tf.function` step, or the `train_step` override of a Keras model used under a strategy,
      which `fit` compiles.
    - A condition decided by a tensor is: a branch of `tf.cond`; an `if` or `while` whose test is a
      tensor or variable: a TensorFlow op (`tf.equal(...)`, `tf.math.floormod(...)`), an
      optimizer's `iterations`, or a name holding one (a `tf.Variable` step counter, a tensor given
      to `strategy.run`); the body of a `for` loop over `tf.range(...)`.
    - With `gradient_accumulation_steps=`, Keras applies its accumulated update under exactly such a
      condition.
    - A test on a Python value (a config int) is decided when the step is traced and is not
      reported; nor is a strategy of one replica, nor an eager `strategy.run`.

    ## Runtime evidence
    `distfix validate` shows the first compiled step failing with the `merge_call` error above
    and names this rule.

    ## References
    - https://github.com/tensorflow/tensorflow/issues/27716
    - https://github.com/tensorflow/tensorflow/issues/59487
    - https://github.com/keras-team/keras/issues/20582
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#merge_call
    """

    code = "TFD110"
    name = "sync-point-under-tensor-condition"
    message = "optimizer update under a tensor condition in per-replica code"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("apply_gradients", "minimize", ".apply(", "gradient_accumulation_steps")
    needs = (STRATEGY,)
    facts = (REPLICA_STEP_OR_ACCUMULATION,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.strategies.single_replica:
            return
        replica = ctx.tf.replica
        by_run = set(compiled_replica_functions(ctx.tf))
        # `fit` runs a train_step override: there is no step of the file's own to decide in.
        by_fit = set(replica.reachable(replica.keras_steps)) - by_run
        reported: set[int] = set()
        for funcs, advice in ((by_run, _ADVICE), (by_fit, _FIT_ADVICE)):
            for func in sorted(funcs, key=lambda f: ctx.index.order[f]):
                for call in ctx.tf.replica.calls_in(func):
                    self._check_call(ctx, call, reported, advice)
        self._check_accumulation_steps(ctx)

    def _check_call(self, ctx: RuleContext, call: cst.Call, reported: set[int], advice: str) -> None:
        if id(call) in reported:
            return
        if ctx.tf.names.callee(call) in _CONDS:
            update = _update_in_branches(ctx, call)
            if update is not None:
                reported.add(id(call))
                ctx.report(
                    call,
                    f"`{update}` in a `tf.cond` branch in replica code fails tracing with {_ERROR}; {advice}",
                )
            return
        # The construct first: most calls sit under none, and following a call into the functions
        # it runs costs more than looking at its enclosing blocks.
        construct = _tensor_construct(ctx, call)
        if construct is None:
            return
        update = _update_made_by(ctx, call)
        if update is None:
            return
        reported.add(id(call))
        ctx.report(
            call,
            f"`{update}` under `{construct}` (a tensor) in replica code fails tracing with {_ERROR}; {advice}",
        )

    def _check_accumulation_steps(self, ctx: RuleContext) -> None:
        """Keras 3 optimizers given `gradient_accumulation_steps` > 1 that train under a strategy."""
        for call in ctx.index.calls:
            steps = next(
                (a for a in call.args if a.keyword is not None and a.keyword.value == "gradient_accumulation_steps"),
                None,
            )
            if steps is None or optimizer_state(ctx.tf, call) is None:
                continue
            value = literal_value(ctx.tf, steps.value)
            if not isinstance(value, int) or value <= 1 or not _trains_under_strategy(ctx, call):
                continue
            if keras_major(ctx.tf, call.func) != 3:
                continue  # tf-keras optimizers have no such argument (a TypeError of its own)
            ctx.report(
                steps,
                keras_upgrade_prefix(ctx.tf, call.func)
                + f"Keras 3 accumulation applies under a graph condition: under a strategy `fit` fails with {_ERROR}; "
                "accumulate in a custom loop",
            )


def _tensor_construct(ctx: RuleContext, call: cst.Call) -> str | None:
    """``if <test>`` / ``while <test>`` / ``for <target> in tf.range(...)`` around ``call`` in its
    own function whose test or range is a tensor (autograph makes it `tf.cond`/`tf.while_loop`)."""
    for condition in ctx.tf.semantic.conditions(call):
        # Only the blocks that hold the call: an earlier `if t: return` was not measured.
        if ctx.index.is_within(call, condition.statement) and is_tensor_test(ctx.tf, condition.test):
            keyword = "while" if isinstance(condition.statement, cst.While) else "if"
            return _short(f"{keyword} {ctx.source(condition.test)}")
    scope = ctx.index.enclosing_function(call)
    for node in ctx.index.ancestors(call):
        if node is scope:
            break
        if not (isinstance(node, cst.For) and ctx.index.is_within(call, node.body)):
            continue
        if isinstance(node.iter, cst.Call) and ctx.tf.names.callee(node.iter) == _RANGE:
            return _short(f"for {ctx.source(node.target)} in {ctx.source(node.iter)}")
    return None


def _update_in_branches(ctx: RuleContext, cond: cst.Call) -> str | None:
    """The optimizer update (method name) a `tf.cond` call's branches make, directly or through helpers."""
    replica = ctx.tf.replica
    branches: list[FunctionLike] = []
    for position, keyword in ((1, "true_fn"), (2, "false_fn")):
        branch = _argument(cond, position, keyword)
        if isinstance(branch, cst.Lambda):
            branches.append(branch)
        elif branch is not None:
            branches.extend(replica.resolve_callable(branch, cond))
    for func in replica.reachable(branches):
        for call in replica.calls_in(func):
            if _is_update(ctx, call):
                return cst.ensure_type(call.func, cst.Attribute).attr.value
    return None


def _update_made_by(ctx: RuleContext, call: cst.Call) -> str | None:
    """The optimizer update ``call`` makes: itself, or one in a function of the file it runs."""
    if _is_update(ctx, call):
        return cst.ensure_type(call.func, cst.Attribute).attr.value
    replica = ctx.tf.replica
    for func in replica.reachable(replica.resolve_callable(call.func, call)):
        for inner in replica.calls_in(func):
            if _is_update(ctx, inner):
                return cst.ensure_type(inner.func, cst.Attribute).attr.value
    return None


def _is_update(ctx: RuleContext, call: cst.Call) -> bool:
    """``opt.apply_gradients(...)``, ``opt.minimize(...)``, or Keras 3 ``opt.apply(...)`` on an optimizer."""
    if not isinstance(call.func, cst.Attribute):
        return False
    method = call.func.attr.value
    if method in _ALWAYS_UPDATES:
        return True
    if method != "apply":
        return False
    receiver = call.func.value
    if optimizer_creation(ctx.tf, receiver) is not None:
        return True
    last = (dotted_name(receiver) or "").rsplit(".", 1)[-1].lower()
    return last.endswith(("optimizer", "opt", "optim"))


def _argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
        if arg.keyword is None and index == position:
            return arg.value
    return None


def _trains_under_strategy(ctx: RuleContext, creation: cst.Call) -> bool:
    """The optimizer is made in a strategy scope, or bound to a name a `compile` in one is given."""
    strategies = ctx.tf.strategies
    if strategies.membership(creation) is Membership.INSIDE:
        return True
    assign = ctx.index.parent.get(creation)
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return False
    key = dotted_name(assign.targets[0].target)
    for call in ctx.index.calls:
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "compile"):
            continue
        given = _argument(call, 0, "optimizer")
        if (
            given is not None
            and key is not None
            and dotted_name(given) == key
            and strategies.membership(call) is Membership.INSIDE
        ):
            return True
    return False


def _short(source: str) -> str:
    """The construct's own text on one line, cut to keep the message short."""
    text = " ".join(source.split())
    return text if len(text) <= 26 else text[:23] + "..."
