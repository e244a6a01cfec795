"""Which strategy expression a fix can write at a given place in the code."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import bound_on_every_path
from fixer.tf.parameters import has_parameter

if TYPE_CHECKING:
    from fixer.tf.model import TFModel


def strategy_in_reach(tf: TFModel, statement: cst.CSTNode) -> str | None:
    """The strategy to enter at ``statement``: the one every scope block uses, bound before it.

    A plain name must be bound on every path to ``statement`` (not only in the `if` arm that
    builds the strategy, and not `None` on the others): a fix must never make a script raise
    `NameError` or `AttributeError` where it ran before.
    """
    strategies = tf.strategies
    keys = {tf.source(s) for _, s in strategies.scope_blocks}
    if not keys:
        keys = {key for key, kinds in strategies.strategy_keys.items() if kinds}
    if len(keys) != 1:
        return None
    key = next(iter(keys))
    if "." not in key and not bound_on_every_path(tf.index, key, statement):
        return None
    if "." not in key and not tf.semantic.reaching(key, statement):
        return None  # deleted before (`del strategy`): no binding of the name reaches here
    offset = tf.span(statement)[0]
    func = tf.index.enclosing_function(statement)
    for assign in tf.index.assigns:
        if not isinstance(assign, cst.Assign) or not any(_written(tf, t.target) == key for t in assign.targets):
            continue
        owner = tf.index.enclosing_function(assign)
        before = tf.span(assign)[1] <= offset
        # A module-level binding is visible in a function body whenever the function runs later.
        if (owner is None and (before or func is not None)) or (owner is func and before):
            return key
    if func is not None and isinstance(func, cst.FunctionDef) and has_parameter(func, key):
        return key
    return None


def _written(tf: TFModel, target: cst.BaseExpression) -> str:
    """The text of an assignment target. A name's range is its identifier alone (libcst leaves
    its parentheses out), so it needs no position: most targets of a long file are names."""
    return target.value if isinstance(target, cst.Name) else tf.source(target)
