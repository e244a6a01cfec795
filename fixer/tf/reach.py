"""Which strategy expression a fix can write at a given place in the code."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.parameters import has_parameter
from fixer.tf.paths import bound_on_every_path

if TYPE_CHECKING:
    from fixer.context import RuleContext


def strategy_in_reach(ctx: RuleContext, statement: cst.CSTNode) -> str | None:
    """The strategy to enter at ``statement``: the one every scope block uses, bound before it.

    A plain name must be bound on every path to ``statement`` (not only in the `if` arm that
    builds the strategy, and not `None` on the others): a fix must never make a script raise
    `NameError` or `AttributeError` where it ran before.
    """
    strategies = ctx.tf.strategies
    keys = {ctx.source(s) for _, s in strategies.scope_blocks}
    if not keys:
        keys = {key for key, kinds in strategies.strategy_keys.items() if kinds}
    if len(keys) != 1:
        return None
    key = next(iter(keys))
    if "." not in key and not bound_on_every_path(ctx.index, key, statement):
        return None
    if "." not in key and not ctx.tf.semantic.reaching(key, statement):
        return None  # deleted before (`del strategy`): no binding of the name reaches here
    offset = ctx.span(statement)[0]
    func = ctx.index.enclosing_function(statement)
    for assign in ctx.index.assigns:
        if not isinstance(assign, cst.Assign) or not any(_written(ctx, t.target) == key for t in assign.targets):
            continue
        owner = ctx.index.enclosing_function(assign)
        before = ctx.span(assign)[1] <= offset
        # A module-level binding is visible in a function body whenever the function runs later.
        if (owner is None and (before or func is not None)) or (owner is func and before):
            return key
    if func is not None and isinstance(func, cst.FunctionDef) and has_parameter(func, key):
        return key
    return None


def _written(ctx: RuleContext, target: cst.BaseExpression) -> str:
    """The text of an assignment target. A name's range is its identifier alone (libcst leaves
    its parentheses out), so it needs no position: most targets of a long file are names."""
    return target.value if isinstance(target, cst.Name) else ctx.source(target)
