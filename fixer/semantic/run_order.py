"""When does code in a function run? At the module-level calls that lead to it, in order.

A read of a module-level name inside a function sees the binding that holds when the function
runs, not the one that holds where it is defined. In a notebook (cells joined in order) a step
defined and run in early cells, before the cell that creates the strategy, never meets it:
``unbound_whenever_run`` answers that on the module's own calls, and says nothing (False) when a
function on the way may run from elsewhere (handed to another function, a method, never called
here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import ScopeKind

if TYPE_CHECKING:
    from fixer.semantic.calls import CallResolver
    from fixer.semantic.model import SemanticModel

# How many functions the walk from a node up to the module's calls visits before it gives up.
_MAX_FUNCTIONS = 32


def _only_called(model: SemanticModel, func: cst.FunctionDef) -> bool:
    """Every mention of ``func``'s name in the module is the callee of a call (or the def itself):
    it is not handed to something that may run it at another time."""
    name = func.name.value
    parent = model.tree.parent
    for node in model.tree.order:
        if type(node) is not cst.Name or node.value != name or node is func.name:
            continue
        above = parent.get(node)
        if isinstance(above, cst.Call) and above.func is node:
            continue
        if isinstance(above, cst.Attribute) and above.attr is node:
            continue  # `obj.train_step`: another object's attribute
        if isinstance(above, cst.Arg) and above.keyword is node:
            continue  # a keyword label
        return False
    return True


def module_run_points(model: SemanticModel, resolver: CallResolver, node: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The module-level nodes whose execution runs ``node``: ``node`` itself at module level, else
    the module-level calls that lead (through the module's functions) to the function holding it.
    None when some function on the way is a method or lambda, is never called in the module, or
    is handed around (it may run at any time)."""
    module = model.module_scope.node
    first = resolver.caller_of(node)
    if first is module:
        return [node]
    points: list[cst.CSTNode] = []
    pending = [first]
    seen: set[int] = set()
    while pending:
        caller = pending.pop()
        if id(caller) in seen:
            continue
        seen.add(id(caller))
        if len(seen) > _MAX_FUNCTIONS or not isinstance(caller, cst.FunctionDef):
            return None
        if model.scope_of(caller).kind not in (ScopeKind.MODULE, ScopeKind.FUNCTION):
            return None  # a method: whatever holds the object may call it
        calls = resolver.calls_of(caller)
        if not calls or not _only_called(model, caller):
            return None
        for call in calls:
            above = resolver.caller_of(call)
            if above is module:
                points.append(call)
            else:
                pending.append(above)
    return points


def unbound_whenever_run(model: SemanticModel, resolver: CallResolver, names: set[str], node: cst.CSTNode) -> bool:
    """True when none of ``names`` is bound at any of the module-level points where ``node`` runs
    (:func:`module_run_points`): a step run only in cells before the one that creates the
    strategy. False when those points are not known."""
    points = module_run_points(model, resolver, node)
    if not points:
        return False
    return all(not model.reaching(name, point) for point in points for name in names)


def unbound_at_some_run(model: SemanticModel, resolver: CallResolver, name: str, node: cst.CSTNode) -> bool:
    """True when ``name`` is unbound at one of the known module-level points where ``node`` runs:
    a fix that writes ``name`` there would raise NameError on that run (a notebook's loop called
    once before the strategy's cell and once after). False when the points are not known."""
    points = module_run_points(model, resolver, node) or []
    return any(not model.reaching(name, point) for point in points)
