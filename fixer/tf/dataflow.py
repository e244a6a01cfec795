"""Coarse name-level data flow: enough to know whether moving statements is safe."""

from __future__ import annotations

from typing import cast

import libcst as cst

from fixer.semantic.targets import assignment_targets
from fixer.tf.index import ModuleIndex, subtree


def names_in(node: cst.CSTNode) -> set[str]:
    """Every plain name mentioned in ``node``."""
    simple = _unpacked_names(node)  # most loop targets: no visitor needed
    if simple is not None:
        return simple
    return {name.value for name in subtree(node) if type(name) is cst.Name}


def value_names(node: cst.CSTNode) -> set[str]:
    """The names ``node`` uses as values: not attribute names, keyword names or called plain functions."""
    found: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

        def visit_Call(self, call: cst.Call) -> bool:
            if not isinstance(call.func, cst.Name):
                call.func.visit(self)
            for arg in call.args:
                arg.visit(self)
            return False

        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    node.visit(_Collect())
    return found


def _unpacked_names(node: cst.CSTNode) -> set[str] | None:
    """The names of a target made only of names and (nested) tuples or lists, else None."""
    if type(node) is cst.Name:
        return {node.value}
    if type(node) not in (cst.Tuple, cst.List):
        return None
    names: set[str] = set()
    for element in cast("cst.Tuple | cst.List", node).elements:
        inner = _unpacked_names(element.value)
        if inner is None:
            return None
        names |= inner
    return names


def written_names(statement: cst.CSTNode) -> set[str]:
    """Names a statement may write (assign, import, define); compound statements count everything
    they mention. A syntactic over-approximation for moving statements, not which binding reaches."""
    bound: set[str] = set()
    simple = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
    for node in simple:
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = assignment_targets(node)
            for target in targets:
                bound |= names_in(target) if isinstance(target, (cst.Name, cst.Tuple, cst.List)) else set()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            bound |= names_in(node)
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        bound.add(statement.name.value)
    if isinstance(statement, (cst.With, cst.For, cst.If, cst.While, cst.Try)):
        bound |= names_in(statement)  # conservative: anything mentioned may be rebound
    return bound


def independent(moved: list[cst.CSTNode], between: list[cst.CSTNode]) -> bool:
    """True when moving ``moved`` across ``between`` cannot change what either sees."""
    moved_names = set().union(*(names_in(s) for s in moved))
    moved_bound = set().union(*(written_names(s) for s in moved))
    between_names = set().union(set(), *(names_in(s) for s in between))
    between_bound = set().union(set(), *(written_names(s) for s in between))
    return not (moved_bound & between_names) and not (moved_names & between_bound)


def result_never_read(index: ModuleIndex, value: cst.BaseExpression) -> bool:
    """True when ``value`` is bound to a name (``ds = value``) that nothing in the module reads.

    A dataset built only to show a setting (a tutorial's `with_options` example) is never
    iterated, fitted or distributed, so what it would do at run time does not happen.
    """
    assign = index.parent.get(value)
    if not isinstance(assign, cst.Assign) or assign.value is not value or len(assign.targets) != 1:
        return False
    target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    return all(isinstance(index.parent.get(name), cst.AssignTarget) for name in index.names.get(target.value, ()))
