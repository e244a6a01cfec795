"""The edits that build a Keras optimizer right after it is created (TFD101, TFD103, TFD109, TFD402).

What to write and where is decided by :func:`fixer.tf.optimizers.plan_build`; this module places it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.optimizer_kinds import State
from fixer.tf.optimizers import BuildPlan, apply_calls, is_built, needs_ready, optimizer_creation, plan_build
from fixer.types import Edit

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike


def build_plan_edits(ctx: RuleContext, plan: BuildPlan) -> list[Edit] | None:
    """The insertion of ``plan``'s lines after its anchor (same indentation), or None when the plan
    cannot be placed."""
    if plan.anchor is None:
        return None
    insert_at = ctx.textmap.line_end(ctx.range(plan.anchor).end.line)
    indent = ctx.indentation(plan.anchor)
    return [Edit(insert_at, insert_at, "".join(f"{indent}{line}{ctx.newline}" for line in plan.lines))]


def ready_for_compiled_step(ctx: RuleContext, functions: Iterable[FunctionLike]) -> list[Edit] | None:
    """Edits that build every stateful Keras optimizer the ``functions`` apply, right after it
    is created: for a step that is (or is about to be) compiled and run through `strategy.run`.

    ``[]`` when nothing is needed; None when a needed build cannot be placed, or it cannot be told
    whether one is needed (an optimizer of unknown kind, a parameter, `model.optimizer`): the
    caller then gives advice.
    """
    tf = ctx.tf
    edits: list[Edit] = []
    for call in apply_calls(tf, functions):
        receiver = call.func.value  # type: ignore[attr-defined]  # apply_calls: `x.method(...)`
        if is_built(tf, receiver):
            continue
        creation = optimizer_creation(tf, receiver)
        if creation is not None and creation.state is State.STATELESS and not needs_ready(tf, call, creation):
            continue
        if creation is None or creation.state is State.UNKNOWN or not isinstance(receiver, cst.Name):
            return None
        placed = build_plan_edits(ctx, plan_build(tf, call, creation))
        if placed is None:
            return None
        edits.extend(e for e in placed if e not in edits)
    return edits
