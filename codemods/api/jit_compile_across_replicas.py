"""TFD404: XLA (`jit_compile=True`) around a whole step that spans the replicas of MirroredStrategy."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import JIT_UNDER_MIRRORED
from fixer.rule import Rule
from fixer.tf.strategies import Membership
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext

_MIRRORED = "tensorflow.distribute.MirroredStrategy"
_TF_FUNCTION = "tensorflow.function"
_JIT_KEYWORDS = ("jit_compile", "experimental_compile")


class JitCompileAcrossReplicas(Rule):
    """
    ## What it does
    Finds XLA compilation requested for a computation that spans every replica of a
    `MirroredStrategy`: `model.compile(..., jit_compile=True)` inside `with strategy.scope():` of
    a `MirroredStrategy` (or in a function called only there), and `tf.function(jit_compile=True)`
    (or the older `experimental_compile=True`), as a decorator or as
    `step = tf.function(step, jit_compile=True)`, on a function that calls `strategy.run` of one.

    ## Why is this bad in distributed training?
    XLA compiles the step into one cluster placed on one device, but the mirrored variables
    live on every replica's device. Measured on TensorFlow 2.21 with 2 replicas
    (`benchmarks/probe_jit_compile_across_replicas.py`), under Keras 3 and tf-keras alike, the
    first step fails with `InvalidArgumentError: Trying to access resource
    .../replica_1/... located in device .../device:CPU:1 from device .../device:CPU:0`. The same
    model without the flag trains ([0.33, 0.2], the single-device step), and so does XLA on the
    per-replica computation only (a `tf.function(jit_compile=True)` called inside the replica
    function, the outer step a plain `tf.function`).

    ## Fix safety
    Safe: the `jit_compile=True` (or `experimental_compile=True`) argument is removed. XLA
    changes speed, not results; the step then runs as an ordinary graph. To keep XLA, move it
    onto the per-replica computation by hand.

    ## Known limits
    - Only an explicit `True` is reported: Keras 3's default `jit_compile="auto"` already turns
      XLA off under a strategy.
    - `MultiWorkerMirroredStrategy` with one device per worker and TPUs (where XLA is the normal
      path) are not reported.
    - Keras 3 itself ignores `jit_compile=True` in `compile` (with the warning `Model doesn't
      support jit_compile=True`) when a layer does not support XLA or op determinism is enabled;
      the finding stays, as the flag then does nothing.

    ## Runtime evidence
    `distfix validate` shows the original failing check `runs` with the error above and the
    fixed script training.

    ## References
    - https://www.tensorflow.org/xla
    - https://keras.io/api/models/model_training_apis/#compile-method
    """

    code = "TFD404"
    name = "jit-compile-across-replicas"
    message = "XLA around a step that spans the replicas of MirroredStrategy"
    fix_title = "Remove jit_compile=True"
    applicability = Applicability.SAFE
    triggers = ("jit_compile", "experimental_compile")
    facts = (JIT_UNDER_MIRRORED,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.target.tf1_program:
            return
        self._check_compile(ctx)
        self._check_outer_steps(ctx)

    def _check_compile(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        for call in ctx.index.calls:
            if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "compile"):
                continue
            arg = _jit_argument(call)
            if arg is None or strategies.membership(call) is not Membership.INSIDE:
                continue
            kinds = strategies.scope_kinds(call)
            if kinds is None:  # inside through the function's call sites: the module's strategies
                kinds = frozenset(kind for _, kind in strategies.constructions)
            if kinds != {_MIRRORED}:
                continue
            ctx.report(
                arg,
                "`compile(jit_compile=True)` under MirroredStrategy fails (`Trying to access resource ... located in "
                "device ...:1 from device ...:0`); remove it",
                edits=[_without_argument(ctx, call, arg)],
            )

    def _check_outer_steps(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        reported: set[cst.CSTNode] = set()
        for run in replica.run_calls:
            if ctx.tf.strategies.kinds(run.strategy) != {_MIRRORED}:
                continue
            step = ctx.index.enclosing_function(run.call)
            if not isinstance(step, cst.FunctionDef):
                continue
            for call in _tf_function_calls(ctx, step):
                arg = _jit_argument(call)
                if arg is None or arg in reported:
                    continue
                reported.add(arg)
                assert arg.keyword is not None  # _jit_argument only returns keyword arguments
                ctx.report(
                    arg,
                    f"`{arg.keyword.value}=True` on `{step.name.value}`, "
                    "which calls `strategy.run` of a MirroredStrategy, "
                    "fails (`Trying to access resource ... from device ...`); remove it or use XLA per replica",
                    edits=[_without_argument(ctx, call, arg)],
                )


def _jit_argument(call: cst.Call) -> cst.Arg | None:
    """The ``jit_compile=True`` (or ``experimental_compile=True``) argument of ``call``."""
    for arg in call.args:
        if (
            arg.keyword is not None
            and arg.keyword.value in _JIT_KEYWORDS
            and isinstance(arg.value, cst.Name)
            and arg.value.value == "True"
        ):
            return arg
    return None


def _tf_function_calls(ctx: RuleContext, step: cst.FunctionDef) -> list[cst.Call]:
    """The `tf.function(...)` calls that compile ``step``: its decorator, or ``tf.function(step, ...)``."""
    found = [
        d.decorator
        for d in step.decorators
        if isinstance(d.decorator, cst.Call) and ctx.tf.names.qualified(d.decorator.func) == _TF_FUNCTION
    ]
    for call in ctx.index.calls:
        if ctx.tf.names.callee(call) != _TF_FUNCTION or not call.args or call.args[0].keyword is not None:
            continue
        first = call.args[0].value
        if isinstance(first, cst.Attribute):
            first = first.attr
        name = first.value if isinstance(first, cst.Name) else None
        if name == step.name.value:
            found.append(call)
    return found


def _without_argument(ctx: RuleContext, call: cst.Call, arg: cst.Arg) -> Edit:
    """Delete ``arg`` from ``call`` as text, keeping the other arguments' layout; a decorator left
    with no argument loses its parentheses."""
    args = list(call.args)
    position = args.index(arg)
    arg_start = ctx.span(cst.ensure_type(arg.keyword, cst.Name))[0]
    if position + 1 < len(args):
        # `jit_compile=True, loss=...`: up to the next argument.
        following = args[position + 1]
        return Edit(arg_start, ctx.span(following.keyword or following.value)[0], "")
    if position > 0:
        # `loss="mse",\n    jit_compile=True,\n)`: from the end of the previous argument; the
        # removed argument's own trailing comma (if any) is kept for the previous one.
        return Edit(ctx.span(args[position - 1].value)[1], ctx.span(arg.value)[1], "")
    if isinstance(ctx.index.parent.get(call), cst.Decorator):
        return ctx.replace(call, ctx.source(call.func))
    return Edit(arg_start, ctx.span(call)[1] - 1, "")
