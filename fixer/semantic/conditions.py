"""The branch conditions under which a node runs: the `if`/`while` tests around it in its scope."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.semantic.builder import Tree

_LEAVES = (cst.Return, cst.Raise, cst.Continue, cst.Break)


@dataclass(frozen=True)
class Condition:
    """``test`` is known to be ``holds`` (true or false) where the node runs; ``statement`` asks it."""

    test: cst.BaseExpression
    holds: bool
    statement: cst.If | cst.While

    def __repr__(self) -> str:
        return f"Condition({cst.Module([]).code_for_node(self.test)!r} is {self.holds})"


def conditions(tree: Tree, node: cst.CSTNode, stop: cst.CSTNode) -> list[Condition]:
    """The tests known true or false at ``node``, outermost first, below the scope node ``stop``.

    Inside `if t:` the test holds; in its `else:` (or an `elif`) it does not; after an
    `if t: return` (an arm that always leaves) it does not either.
    """
    found: list[Condition] = []
    child = node
    current = tree.parent.get(node)
    while current is not None and current is not stop:
        if isinstance(current, cst.If | cst.While) and child is current.body:
            found.append(Condition(current.test, True, current))
        elif isinstance(current, cst.If) and child is current.orelse:
            found.append(Condition(current.test, False, current))
        body = getattr(current, "body", None)
        if isinstance(current, cst.IndentedBlock | cst.Module) and isinstance(body, tuple | list) and child in body:
            for earlier in reversed(body[: body.index(child)]):
                if isinstance(earlier, cst.If) and earlier.orelse is None and _always_leaves(earlier.body):
                    found.append(Condition(earlier.test, False, earlier))
        child, current = current, tree.parent.get(current)
    return list(reversed(found))


def _always_leaves(block: cst.BaseSuite) -> bool:
    statements = block.body if isinstance(block, cst.IndentedBlock) else [block]
    for statement in statements:
        smalls = statement.body if isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite) else ()
        if any(isinstance(small, _LEAVES) for small in smalls):
            return True
    return False


def never_runs(tree: Tree, node: cst.CSTNode, stop: cst.CSTNode) -> bool:
    """True when ``node`` is dead code within its scope (below ``stop``): after a statement of
    its block that always leaves (`return`, `raise`, `continue`, `break`), or in the body of an
    `if False:` / `if 0:`."""
    child = node
    current = tree.parent.get(node)
    while current is not None and current is not stop:
        if isinstance(current, cst.If) and child is current.body and _constant_false(current.test):
            return True
        body = getattr(current, "body", None)
        if isinstance(current, cst.IndentedBlock | cst.Module) and isinstance(body, tuple | list) and child in body:
            earlier = body[: body.index(child)]
            if any(_always_leaves_line(statement) for statement in earlier):
                return True
        child, current = current, tree.parent.get(current)
    return False


def _always_leaves_line(statement: cst.CSTNode) -> bool:
    smalls = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
    return any(isinstance(small, _LEAVES) for small in smalls)


def _constant_false(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value == "False"
    return isinstance(test, cst.Integer) and test.evaluated_value == 0
