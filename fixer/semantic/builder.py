"""Fills the scopes and bindings of a module from the nodes the index walk already recorded.

No second walk of the tree: the index's pre-order table lists every node once, and each node's
scope is found through the parent table (memoised, so the cost is one step per node).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import libcst as cst

from fixer.semantic.bindings import Binding, BindingKind, Branch, Scope, ScopeKind
from fixer.semantic.targets import target_names, unpacked_value

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_SCOPE_KINDS: dict[type, ScopeKind] = {
    cst.Module: ScopeKind.MODULE,
    cst.ClassDef: ScopeKind.CLASS,
    cst.FunctionDef: ScopeKind.FUNCTION,
    cst.Lambda: ScopeKind.LAMBDA,
    **{kind: ScopeKind.COMPREHENSION for kind in _COMPREHENSIONS},
}
_STATEMENTS = (cst.BaseSmallStatement, cst.BaseCompoundStatement)


class Tree(Protocol):
    """What the semantic model needs of the index walk: each node's parent and pre-order number."""

    @property
    def parent(self) -> Mapping[cst.CSTNode, cst.CSTNode]: ...

    @property
    def order(self) -> Mapping[cst.CSTNode, int]: ...


class ScopeTable:
    """Scopes by opening node, and the scope every node's code runs in."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.scopes: dict[cst.CSTNode, Scope] = {}
        self._of: dict[cst.CSTNode, Scope] = {}

    def open(self, node: cst.CSTNode) -> Scope:
        """The scope ``node`` opens (made on first call)."""
        scope = self.scopes.get(node)
        if scope is None:
            parent = None if isinstance(node, cst.Module) else self.containing(node)
            scope = self.scopes[node] = Scope(_SCOPE_KINDS[type(node)], node, parent)
        return scope

    def containing(self, node: cst.CSTNode) -> Scope:
        """The scope whose code evaluates ``node``.

        A def's decorators, defaults and annotations, a class's bases and a comprehension's
        first iterable run in the scope around them, not in the one they open.
        """
        known = self._of.get(node)
        if known is not None:
            return known
        grandchild: cst.CSTNode | None = None
        child = node
        current = self.tree.parent.get(node)
        while current is not None:
            if type(current) in _SCOPE_KINDS and _runs_inside(current, child, grandchild):
                scope = self.open(current)
                break
            grandchild, child = child, current
            current = self.tree.parent.get(current)
        else:
            scope = self.open(node) if isinstance(node, cst.Module) else self._root(node)
        self._of[node] = scope
        return scope

    def _root(self, node: cst.CSTNode) -> Scope:
        top = node
        while top in self.tree.parent:
            top = self.tree.parent[top]
        return self.open(top)


def _runs_inside(opener: cst.CSTNode, child: cst.CSTNode, grandchild: cst.CSTNode | None) -> bool:
    """True when ``child`` (a direct child of ``opener``, holding ``grandchild``) runs in the
    scope ``opener`` opens."""
    if isinstance(opener, cst.FunctionDef | cst.ClassDef | cst.Lambda):
        return child is opener.body
    if isinstance(opener, _COMPREHENSIONS):
        # The first `for`'s iterable is evaluated before the comprehension's scope exists.
        return not (child is opener.for_in and grandchild is opener.for_in.iter)
    return True


def build(tree: Tree) -> tuple[ScopeTable, list[Binding]]:
    """Every scope and binding of the module ``tree`` indexes, bindings in source order."""
    table = ScopeTable(tree)
    binders: list[cst.CSTNode] = []
    # Declarations first: `global x` moves the bindings of x, wherever in the scope it is written.
    # Dispatch on exact types: isinstance on libcst's ABC-based nodes is slow, and this sees every
    # node; one set test leaves out the nine in ten nodes that neither open a scope nor bind.
    for node in [node for node in tree.order if type(node) in _BUILT_FROM]:
        kind = type(node)
        if kind in _SCOPE_KINDS:
            table.open(node)
        if kind is cst.Global:
            table.containing(node).declared_global.update(n.name.value for n in node.names)  # type: ignore[attr-defined]
        elif kind is cst.Nonlocal:
            table.containing(node).declared_nonlocal.update(n.name.value for n in node.names)  # type: ignore[attr-defined]
        elif kind in _BINDERS:
            binders.append(node)
    found: list[Binding] = []
    for node in binders:
        for binding in _BINDERS[type(node)](table, node):
            binding.scope.add(binding)
            found.append(binding)
    return table, found


def _assign(table: ScopeTable, node: cst.Assign) -> Iterator[Binding]:
    for target in node.targets:
        yield from _targets(table, node, target.target, node.value, BindingKind.ASSIGNMENT)


def _ann_assign(table: ScopeTable, node: cst.AnnAssign) -> Iterator[Binding]:
    if node.value is not None:  # `x: int` alone declares, binds nothing
        yield from _targets(table, node, node.target, node.value, BindingKind.ASSIGNMENT)


def _with_item(table: ScopeTable, node: cst.WithItem) -> Iterator[Binding]:
    if node.asname is not None:
        yield from _targets(table, table.tree.parent[node], node.asname.name, node.item, BindingKind.WITH)


def _handler(table: ScopeTable, node: cst.ExceptHandler | cst.ExceptStarHandler) -> Iterator[Binding]:
    if node.name is not None:
        yield from _targets(table, node, node.name.name, None, BindingKind.EXCEPT)


def _definition(table: ScopeTable, node: cst.FunctionDef | cst.ClassDef) -> Iterator[Binding]:
    kind = BindingKind.FUNCTION if isinstance(node, cst.FunctionDef) else BindingKind.CLASS
    yield _make(table, node, node.name, node.name.value, kind, node)  # type: ignore[arg-type]


def _param(table: ScopeTable, node: cst.Param) -> Iterator[Binding]:
    owner = table.tree.parent[table.tree.parent[node]]  # Param -> Parameters -> def/lambda
    yield _make(table, owner, node, node.name.value, BindingKind.PARAMETER, None, scope=table.open(owner))


def _simple(
    attribute: str, kind: BindingKind, value: str | None = None
) -> Callable[[ScopeTable, Any], Iterator[Binding]]:
    """A binder for a node whose ``attribute`` is the target (and ``value`` the value, if any)."""

    def bind(table: ScopeTable, node: Any) -> Iterator[Binding]:
        given = getattr(node, value) if value is not None else None
        yield from _targets(table, node, getattr(node, attribute), given, kind)

    return bind


_BINDERS: dict[type, Callable[[ScopeTable, Any], Iterator[Binding]]] = {
    cst.Assign: _assign,
    cst.AnnAssign: _ann_assign,
    cst.AugAssign: _simple("target", BindingKind.AUGMENTED),
    cst.For: _simple("target", BindingKind.LOOP),
    cst.CompFor: _simple("target", BindingKind.LOOP),
    cst.WithItem: _with_item,
    cst.ExceptHandler: _handler,
    cst.ExceptStarHandler: _handler,
    cst.Del: _simple("target", BindingKind.DELETION),
    cst.NamedExpr: _simple("target", BindingKind.WALRUS, "value"),
    cst.Import: lambda table, node: _imports(table, node),
    cst.ImportFrom: lambda table, node: _imports(table, node),
    cst.FunctionDef: _definition,
    cst.ClassDef: _definition,
    cst.Param: _param,
}

# The node types build() looks at: scopes, declarations and binders.
_BUILT_FROM = frozenset({*_SCOPE_KINDS, cst.Global, cst.Nonlocal, *_BINDERS})


def _targets(
    table: ScopeTable,
    statement: cst.CSTNode,
    target: cst.BaseExpression,
    value: cst.BaseExpression | None,
    kind: BindingKind,
) -> Iterator[Binding]:
    for name in target_names(target):
        yield _make(table, statement, name, name.value, kind, unpacked_value(target, name, value))


def _imports(table: ScopeTable, node: cst.Import | cst.ImportFrom) -> Iterator[Binding]:
    if isinstance(node, cst.ImportFrom):
        if isinstance(node.names, cst.ImportStar):
            return
        module = "." * len(node.relative) + (_dotted(node.module) if node.module is not None else "")
        for alias in node.names:
            imported = _dotted(alias.name)
            local = alias.evaluated_alias or imported
            yield _make(table, node, alias, local, BindingKind.IMPORT, None, imported=(module, imported))
        return
    for alias in node.names:
        dotted = _dotted(alias.name)
        local = alias.evaluated_alias or dotted.split(".")[0]
        # `import a.b` binds `a` (the package); `import a.b as c` binds c to a.b.
        target = dotted if alias.asname is not None else local
        yield _make(table, node, alias, local, BindingKind.IMPORT, None, imported=(target, ""))


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return node.value if isinstance(node, cst.Name) else ""


def _make(
    table: ScopeTable,
    statement: cst.CSTNode,
    node: cst.CSTNode,
    name: str,
    kind: BindingKind,
    value: cst.BaseExpression | None,
    *,
    scope: Scope | None = None,
    imported: tuple[str, str] | None = None,
) -> Binding:
    lexical = scope or table.containing(node)
    if kind is BindingKind.WALRUS:
        # `(x := v)` in a comprehension binds x in the scope around the comprehension.
        while lexical.kind is ScopeKind.COMPREHENSION and lexical.parent is not None:
            lexical = lexical.parent
    if kind is BindingKind.FUNCTION or kind is BindingKind.CLASS:
        lexical = table.containing(statement)
    target = _declared_scope(lexical, name)
    return Binding(
        name=name,
        scope=target,
        statement=statement,
        node=node,
        kind=kind,
        value=value,
        branch=branches(table.tree, statement, lexical.node),
        imported=imported,
    )


def _declared_scope(scope: Scope, name: str) -> Scope:
    """Where a binding of ``name`` in ``scope`` lands, following `global` and `nonlocal`."""
    if name in scope.declared_global:
        root = scope
        while root.parent is not None:
            root = root.parent
        return root
    if name in scope.declared_nonlocal:
        outer = scope.parent
        while outer is not None:
            if outer.is_function and name in outer.bindings or outer.is_function and outer.parent is None:
                return outer
            if outer.is_function and any(b.name == name for b in _params(outer)):
                return outer
            outer = outer.parent
        # An enclosing function that binds it later in source order: the nearest function scope.
        outer = scope.parent
        while outer is not None and not outer.is_function:
            outer = outer.parent
        return outer or scope
    return scope


def _params(scope: Scope) -> list[Binding]:
    return [b for group in scope.bindings.values() for b in group if b.kind is BindingKind.PARAMETER]


def branches(tree: Tree, node: cst.CSTNode, stop: cst.CSTNode) -> tuple[Branch, ...]:
    """The arms of `if`/`for`/`while`/`try` that hold ``node`` below ``stop``, outermost first."""
    found: list[Branch] = []
    child = node
    current = tree.parent.get(node)
    while current is not None and current is not stop:
        arm = arm_of(current, child)
        if arm is not None:
            found.append(Branch(current, arm))  # type: ignore[arg-type]
        child = current
        current = tree.parent.get(current)
    return tuple(reversed(found))


def arm_of(statement: cst.CSTNode, child: cst.CSTNode) -> str | None:
    """Which arm of a compound ``statement`` its direct child ``child`` is, or None (a header)."""
    if isinstance(statement, cst.If | cst.For | cst.While):
        if child is statement.body:
            return "body"
        if child is statement.orelse:
            return "else"
        return None
    if isinstance(statement, cst.Try | cst.TryStar):
        if child is statement.body:
            return "body"
        if child is statement.orelse:
            return "else"
        if child is statement.finalbody:
            return "finally"
        if isinstance(child, cst.ExceptHandler | cst.ExceptStarHandler):
            return "except"
    return None


def statement_of(tree: Tree, node: cst.CSTNode) -> cst.CSTNode:
    """The innermost small or compound statement holding ``node`` (``node`` itself if one)."""
    current: cst.CSTNode | None = node
    while current is not None and not isinstance(current, _STATEMENTS):
        current = tree.parent.get(current)
    return current if current is not None else node
