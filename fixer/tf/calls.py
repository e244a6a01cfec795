"""Which argument a call passes for a parameter: one lookup for every rule and analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from collections.abc import Collection

    from fixer.tf.index import ModuleIndex


def argument(call: cst.Call, position: int | None, *keywords: str) -> cst.Arg | None:
    """The argument ``call`` passes by one of ``keywords``, else the one at ``position``.

    None when there is none, when ``position`` is None or negative, or when a ``*args`` at or
    before that position hides which argument lands there.
    """
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in keywords:
            return arg
    if position is None or position < 0:
        return None
    positional = [arg for arg in call.args if arg.keyword is None and arg.star != "**"]
    if any(arg.star for arg in positional[: position + 1]):
        return None
    return positional[position] if len(positional) > position else None


def argument_value(call: cst.Call, position: int | None, *keywords: str) -> cst.BaseExpression | None:
    """The expression of :func:`argument`, or None."""
    arg = argument(call, position, *keywords)
    return arg.value if arg is not None else None


def calls_within(node: cst.CSTNode) -> list[cst.Call]:
    """Every call inside ``node`` (``node`` included), in source order."""
    found: list[cst.Call] = []

    class _Collect(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    node.visit(_Collect())
    return found


def in_arguments_of_method(index: ModuleIndex, node: cst.CSTNode, methods: Collection[str]) -> bool:
    """``node`` lies in the arguments of an `x.m(...)` call of its own statement whose method ``m``
    is one of ``methods`` (not in the call's receiver)."""
    for ancestor in index.ancestors(node):
        if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return False
        if (
            isinstance(ancestor, cst.Call)
            and isinstance(ancestor.func, cst.Attribute)
            and ancestor.func.attr.value in methods
            and not index.is_within(node, ancestor.func)
        ):
            return True
    return False
