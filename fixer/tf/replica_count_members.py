"""Class members of a project module that hold a strategy's replica count, read with CPython's `ast`.

A trainer often asks its settings object for the count (`if self.args.n_replicas > 1:`), where the
settings class, in another module, has `n_replicas` as a property returning
`self._strategy.num_replicas_in_sync`. The names of such members let a replica-count test read
through them, one level deep (fixer/tf/one_replica_branches.py).
"""

from __future__ import annotations

import ast

REPLICA_COUNT = "num_replicas_in_sync"


def replica_count_members(tree: ast.Module) -> frozenset[str]:
    """Names of members of the module's top-level classes that give the replica count: a
    ``@property`` whose only statement (after a docstring) returns ``<x>.num_replicas_in_sync``, or
    ``self.<name> = <x>.num_replicas_in_sync`` in a method."""
    found: set[str] = set()
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for method in cls.body:
            if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if _is_property(method) and _returns_count(method):
                found.add(method.name)
            found.update(_counts_assigned_to_self(method))
    return frozenset(found)


def _is_property(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in method.decorator_list)


def _returns_count(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = method.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return len(body) == 1 and isinstance(body[0], ast.Return) and _is_count(body[0].value)


def _counts_assigned_to_self(method: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """``self.<name>`` attributes the method sets to a replica count, at its top level."""
    found = []
    for statement in method.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and _is_count(value)
        ):
            found.append(target.attr)
    return found


def _is_count(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Attribute) and value.attr == REPLICA_COUNT
