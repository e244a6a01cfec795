"""Which bindings of a name can reach a use within one scope: a backward walk over the statements.

From the use, the walk visits the statements before it in its block, then leaves the block for
the statement that holds it, up to the scope. A statement that binds the name on every path
(both arms of an `if`, a `try` body and all its handlers, a plain assignment, a `del`) stops the
walk; one that binds it on some path adds its bindings and lets the walk go on. A loop adds the
bindings of its whole body (the previous iteration's), a handler those of its `try` body.
Bindings in a block that always returns or raises after them never reach code after the block.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from fixer.semantic.bindings import Binding, BindingKind, Scope, ScopeKind
from fixer.semantic.builder import Tree, statement_of

_LEAVES = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_ENDS = (cst.Return, cst.Raise)
# Kinds that bind (or unbind) whenever their statement runs to its end.
_NOT_DEFINITE = (BindingKind.WALRUS, BindingKind.PARAMETER)


class Flow:
    """Reaching bindings within one scope, over the parent and order tables of the index."""

    def __init__(self, tree: Tree, lexical: dict[Binding, Scope]) -> None:
        self.tree = tree
        self.lexical = lexical

    def reaching(self, scope: Scope, name: str, use: cst.CSTNode) -> list[Binding]:
        """The bindings of ``name`` written in ``scope`` that some path carries to ``use``, in
        source order (a ``del`` that reaches is left out: there the name holds nothing)."""
        return self.reaching_among(scope, [b for b in scope.of(name) if self.lexical.get(b) is scope], use)

    def reaching_among(self, scope: Scope, candidates: list[Binding], use: cst.CSTNode) -> list[Binding]:
        """The ``candidates`` (bindings of one name or attribute written in ``scope``) that some
        path carries to ``use``, in source order; a ``PARAMETER`` candidate is the value on entry."""
        if not candidates:
            return []
        found: list[Binding] = []
        use_statement = statement_of(self.tree, use)
        order = self.tree.order
        # `(n := f()) and n` in one statement: the walrus before the use reaches it.
        found += [
            b
            for b in candidates
            if b.kind is BindingKind.WALRUS
            and b.statement is not use
            and order[b.node] < order[use]
            and statement_of(self.tree, b.statement) is use_statement
        ]
        child: cst.CSTNode = use
        current = self.tree.parent.get(use)
        while current is not None:
            if self._step(current, child, candidates, found):
                break
            if current is scope.node:
                if scope.kind is ScopeKind.COMPREHENSION:
                    found += candidates
                else:
                    found += [b for b in candidates if b.kind is BindingKind.PARAMETER]
                break
            child, current = current, self.tree.parent.get(current)
        unique = {id(b): b for b in found}.values()
        return sorted((b for b in unique if b.kind is not BindingKind.DELETION), key=lambda b: order[b.node])

    def _step(self, current: cst.CSTNode, child: cst.CSTNode, candidates: list[Binding], found: list[Binding]) -> bool:
        """Adds what reaches ``child`` from inside ``current``; True when nothing older can."""
        # A walrus in the header of a compound statement (`if (m := match(...)):`) reaches its arms.
        found += [
            b for b in candidates if b.kind is BindingKind.WALRUS and statement_of(self.tree, b.statement) is current
        ]
        body = getattr(current, "body", None)
        if isinstance(body, Sequence) and not isinstance(body, str) and child in body:
            before = body[: body.index(child)]
            return self._sequence(before, candidates, found)
        header = [
            b
            for b in candidates
            if b.statement is current and b.kind in (BindingKind.LOOP, BindingKind.WITH, BindingKind.EXCEPT)
        ]
        if isinstance(current, cst.For) and child is current.body and header:
            found += header
            return True
        if isinstance(current, cst.For | cst.While) and child in (current.body, current.orelse):
            found += self._inside(candidates, current.body)  # an earlier iteration
            found += header  # the loop's `else` after at least one iteration
        if (
            isinstance(current, cst.With | cst.ExceptHandler | cst.ExceptStarHandler)
            and child is current.body
            and header
        ):
            found += header
            return True
        if isinstance(current, cst.Try | cst.TryStar):
            if child is current.orelse:
                return self._sequence(list(_statements(current.body)), candidates, found)
            if child is current.finalbody or isinstance(child, cst.ExceptHandler | cst.ExceptStarHandler):
                found += self._inside(candidates, current.body)
            if child is current.finalbody:
                for part in (*current.handlers, current.orelse):
                    if part is not None:
                        found += self._inside(candidates, part)
        return False

    def _sequence(self, before: Sequence[cst.CSTNode], candidates: list[Binding], found: list[Binding]) -> bool:
        """Adds the bindings of ``before`` (statements in order) that reach its end; True when one
        of them binds on every path, so nothing older reaches."""
        for statement in reversed(before):
            found += self._inside(candidates, statement)
            if self.definite(statement, candidates):
                return True
        return False

    def _inside(self, candidates: list[Binding], container: cst.CSTNode) -> list[Binding]:
        """The candidates written inside ``container`` whose value survives to its end."""
        return [
            b
            for b in candidates
            if b.kind is not BindingKind.PARAMETER
            and self.within(b.node, container)
            and not self._ends_after(b, container)
        ]

    def within(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        """``node`` is ``container`` or sits inside it."""
        current: cst.CSTNode | None = node
        while current is not None:
            if current is container:
                return True
            current = self.tree.parent.get(current)
        return False

    def _ends_after(self, binding: Binding, container: cst.CSTNode) -> bool:
        """True when every path from ``binding`` returns or raises before leaving ``container``."""
        ended = False
        child: cst.CSTNode = binding.statement
        current = self.tree.parent.get(child)
        while current is not None and child is not container:
            if isinstance(current, cst.IndentedBlock | cst.SimpleStatementLine | cst.SimpleStatementSuite | cst.Module):
                if any(isinstance(s, _ENDS) for s in _smalls(current)):
                    ended = True
            if isinstance(current, cst.Try | cst.TryStar) and child is current.body:
                ended = False  # a raise may be caught by a handler, which goes on
            child, current = current, self.tree.parent.get(current)
        return ended

    def definite(self, statement: cst.CSTNode, candidates: list[Binding]) -> bool:
        """True when running ``statement`` to its end binds (or deletes) the name on every path."""
        if isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            smalls = set(map(id, statement.body))
            return any(id(b.statement) in smalls and b.kind not in _NOT_DEFINITE for b in candidates)
        if isinstance(statement, cst.BaseSmallStatement):
            return any(b.statement is statement and b.kind not in _NOT_DEFINITE for b in candidates)
        if isinstance(statement, cst.FunctionDef | cst.ClassDef | cst.With):
            if any(
                b.statement is statement and b.kind in (BindingKind.FUNCTION, BindingKind.CLASS, BindingKind.WITH)
                for b in candidates
            ):
                return True
            return isinstance(statement, cst.With) and self._block(statement.body, candidates)
        if isinstance(statement, cst.If):
            other = statement.orelse
            if other is None or not self._block(statement.body, candidates):
                return False
            return (
                self.definite(other, candidates) if isinstance(other, cst.If) else self._block(other.body, candidates)
            )
        if isinstance(statement, cst.Try | cst.TryStar):
            if statement.finalbody is not None and self._block(statement.finalbody.body, candidates):
                return True
            body = self._block(statement.body, candidates) or (
                statement.orelse is not None and self._block(statement.orelse.body, candidates)
            )
            return body and all(self._block(h.body, candidates) for h in statement.handlers)
        return False  # loops may run zero times; `match` arms are not followed

    def _block(self, block: cst.BaseSuite, candidates: list[Binding]) -> bool:
        statements = list(_statements(block))
        if any(isinstance(s, _LEAVES) for s in _smalls(block)):
            return True
        return any(self.definite(s, candidates) for s in statements)


def _statements(block: cst.CSTNode) -> Sequence[cst.CSTNode]:
    if isinstance(block, cst.IndentedBlock | cst.Module):
        return block.body
    return [block]


def _smalls(block: cst.CSTNode) -> list[cst.CSTNode]:
    """The small statements directly in a block (one level: not inside its compound statements)."""
    found: list[cst.CSTNode] = []
    for statement in _statements(block):
        if isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            found.extend(statement.body)
        elif isinstance(statement, cst.BaseSmallStatement):
            found.append(statement)
    return found
