"""Assignments to attributes (`self.net = build()`), as bindings the flow walk can follow.

Names have scopes and bindings (fixer/semantic/builder.py); an attribute such as `self.net` has
neither, but within one function its assignments are ordered the same way: the assignment the
last path before a use carries is what the attribute holds there, unless some path reaches the
use from the function's start with no assignment (then it may hold anything set elsewhere).
Each `a.b = v` / `a.b: T = v` statement (a plain chain of names, not in a tuple target) becomes a
``Binding`` named by its dotted text, in the scope whose code runs it; the start of that scope is
one more candidate, a ``PARAMETER`` binding on the scope's node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import Binding, BindingKind, Scope

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable


def attribute_text(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for an attribute chain of plain names, else None (a bare name is not one)."""
    parts: list[str] = []
    current = node
    while isinstance(current, cst.Attribute):
        parts.append(current.attr.value)
        current = current.value
    if not parts or not isinstance(current, cst.Name):
        return None
    parts.append(current.value)
    return ".".join(reversed(parts))


def attribute_bindings(
    nodes: Iterable[cst.CSTNode], scope_of: Callable[[cst.CSTNode], Scope]
) -> dict[tuple[int, str], list[Binding]]:
    """The attribute assignments among ``nodes`` (in source order), by (id of their scope, text)."""
    table: dict[tuple[int, str], list[Binding]] = {}
    for node in nodes:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
            value: cst.BaseExpression | None = node.value
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            text = attribute_text(target)
            if text is not None:
                scope = scope_of(target)
                binding = Binding(text, scope, node, target, BindingKind.ASSIGNMENT, value)
                table.setdefault((id(scope), text), []).append(binding)
    return table


def entry(scope: Scope, text: str) -> Binding:
    """The value ``text`` holds when ``scope`` starts running: set elsewhere, unknown here."""
    return Binding(text, scope, scope.node, scope.node, BindingKind.PARAMETER)
