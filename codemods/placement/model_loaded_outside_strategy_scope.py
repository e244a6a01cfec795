"""TFD113: a saved Keras model loaded outside `strategy.scope()` and then compiled or trained in it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.edits import reindented_statements
from fixer.facts import SCOPE_BLOCK
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.keras_target import keras_major
from fixer.tf.reach import strategy_in_reach
from fixer.tf.strategies import Membership
from fixer.tf.tf1_program import runs_tensorflow_1
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext

_LOADERS = frozenset({"keras.models.load_model", "keras.saving.load_model"})
# What compiling the outside-loaded model in the scope leads to, per Keras (measured, see the docstring).
_AFTER_COMPILE = {
    3: "training it then fails with a bare `AssertionError`",
    2: "compiling it there raises `ValueError: Variable ... was not created in the ... scope`",
}
_USES = ("compile", "fit")


class ModelLoadedOutsideStrategyScope(Rule):
    """
    ## What it does
    Finds a saved Keras model loaded (`keras.models.load_model`, `tf.keras.models.load_model`,
    `keras.saving.load_model`) outside `with strategy.scope():` into a name, when that same model is
    then compiled or trained with `fit` inside the scope.

    ## Why is this bad in distributed training?
    `load_model` creates the model's variables where it runs: outside the scope they are plain
    variables on one device. Measured on TensorFlow 2.21 with 2 logical CPUs
    (`benchmarks/probe_model_loaded_outside_scope.py`): compiling the outside-loaded model in
    the scope raises `ValueError: Variable (...) was not created in the distribution strategy
    scope of (...)` under tf-keras; under Keras 3 the compile passes and `fit` fails with a bare
    `AssertionError`. Keeping the saved compile and calling `fit` in the scope fails with an
    `AssertionError` under both (bare under Keras 3). Loaded inside the scope, the kernel is a `MirroredVariable` and
    the model trains, under both Kerases, compiled again or with its saved compile.

    ## Fix safety
    Safe: the `model = load_model(...)` line is wrapped in `with <strategy>.scope():` where it
    stands, so nothing runs in another order; only where the model's variables are created
    changes, which is the repair (measured: loaded in the scope, it trains under both Kerases,
    with the saved compile or a new one). Display-only when the line holds more than one
    statement or no single strategy is bound on every path to it.

    ## Known limits
    - Where code runs is decided as for TFD101: a function called only inside the scope is inside.
    - Not reported: a model loaded and used outside any scope (it trains on one device, as written),
      a load inside the scope, `tf.saved_model.load` (not a Keras model), and a loaded model used
      only in a replica function (not followed yet).

    ## Runtime evidence
    `distfix validate` names this rule behind the two errors above.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/save_and_load
    - https://www.tensorflow.org/guide/distributed_training#using_tfdistributestrategy_with_keras_modelfit
    """

    code = "TFD113"
    name = "model-loaded-outside-strategy-scope"
    message = "Keras model loaded outside `strategy.scope()` but compiled or trained in it"
    fix_title = "Load the model inside `with strategy.scope():`"
    applicability = Applicability.SAFE
    triggers = ("load_model",)
    needs = (STRATEGY,)
    facts = (SCOPE_BLOCK,)

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if runs_tensorflow_1(ctx.tf.target) or not strategies.scope_blocks:
            return
        loads = [call for call in ctx.index.calls if ctx.tf.names.callee(call) in _LOADERS]
        for load in loads:
            target = _assigned_name(ctx, load)
            if target is None or strategies.membership(load) is Membership.INSIDE:
                continue
            use = _first_use_in_scope(ctx, target)
            if use is None or not _outside_where_used(ctx, load, use):
                continue
            method = use.func.attr.value if isinstance(use.func, cst.Attribute) else "fit"
            if method == "compile":
                why = _AFTER_COMPILE[keras_major(ctx.tf, load.func) or 3]
            else:
                why = "training it there fails with an `AssertionError`"
            edits = _wrap_in_scope(ctx, load)
            ctx.report(
                load,
                f"model loaded outside `strategy.scope()`, then `{method}` in it (line "
                f"{ctx.range(use).start.line}): {why}; load it in the scope",
                edits=edits,
                applicability=None if edits else Applicability.DISPLAY_ONLY,
            )


def _wrap_in_scope(ctx: RuleContext, load: cst.Call) -> list[Edit] | None:
    """Wrap the load's own statement in `with <strategy>.scope():` where it stands, when it is
    alone on its line and the program's one strategy is bound on every path to it."""
    statement = ctx.index.statement_of(load)
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    strategy = strategy_in_reach(ctx.tf, statement)
    if strategy is None:
        return None
    indent = ctx.indentation(statement)
    start, end = ctx.statement_block([statement])
    header = f"{indent}with {strategy}.scope():{ctx.newline}"
    return [Edit(start, end, header + reindented_statements(ctx, [statement], indent + ctx.indent_unit))]


def _assigned_name(ctx: RuleContext, load: cst.Call) -> cst.Name | None:
    """The name ``load``'s result is assigned to (``model = load_model(...)``), else None."""
    assign = ctx.index.parent.get(load)
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
        target = assign.targets[0].target
        if isinstance(target, cst.Name):
            return target
    return None


def _outside_where_used(ctx: RuleContext, load: cst.Call, use: cst.Call) -> bool:
    """``load`` runs outside the scope: everywhere its function is called, or, in a function
    whose callers are unknown, outside the scope block that holds ``use`` in that same function."""
    strategies = ctx.tf.strategies
    if strategies.membership(load) is Membership.OUTSIDE:
        return True
    same_function = ctx.index.enclosing_function(load) is ctx.index.enclosing_function(use)
    return (
        same_function
        and strategies.lexical_scope_block(load) is None
        and strategies.lexical_scope_block(use) is not None
    )


def _first_use_in_scope(ctx: RuleContext, target: cst.Name) -> cst.Call | None:
    """The first ``target.compile(...)`` / ``target.fit(...)`` that runs in a strategy scope and
    that only the binding made at ``target`` reaches."""
    for call in ctx.index.calls:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _USES and isinstance(func.value, cst.Name)):
            continue
        if func.value.value != target.value:
            continue
        binding = ctx.tf.semantic.only_binding(func.value)
        if binding is None or binding.node is not target:
            continue
        strategies = ctx.tf.strategies
        if strategies.membership(call) is Membership.INSIDE or strategies.lexical_scope_block(call) is not None:
            return call
    return None
