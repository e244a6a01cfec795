"""Which functions of the module a call may run, and the call graph they make.

A name call follows the bindings that reach it (a def, a class, ``fn = other``, a lambda);
``self.m()`` / ``cls.m()`` in a method is the class's own or inherited ``m`` plus the overrides
of its subclasses in the module; ``super().m()`` is the first base class in the module, in
method-resolution order, that defines ``m``. A call of an imported name gives no function of this
module: :meth:`CallResolver.imported` says what it imports, for a project-wide lookup.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import Binding, BindingKind, Scope, ScopeKind

if TYPE_CHECKING:
    from fixer.semantic.model import SemanticModel

Callable = cst.FunctionDef | cst.Lambda | cst.ClassDef
# How many `f = g` hops a name call follows before it gives up (a chain longer than this is rare).
_ALIAS_HOPS = 8


class CallResolver:
    """Call resolution and the call graph of one module, over its :class:`SemanticModel`."""

    def __init__(self, model: SemanticModel) -> None:
        self.model = model
        self._bases: dict[int, list[cst.ClassDef]] = {}

    # One call -------------------------------------------------------------------------------

    def targets(self, call: cst.Call) -> list[Callable]:
        """The defs, lambdas and classes of this module that ``call`` may run, in source order."""
        return self.callee(call.func)

    def callee(self, func: cst.BaseExpression) -> list[Callable]:
        """What an expression in call position may be: defs, lambdas, classes of this module."""
        if isinstance(func, cst.Name):
            return self._from_bindings(self.model.resolve(func), _ALIAS_HOPS)
        if isinstance(func, cst.Lambda):
            return [func]
        if isinstance(func, cst.Attribute):
            return list(self.methods(func))
        return []

    def imported(self, call: cst.Call) -> list[tuple[str, str]]:
        """``(module, name)`` of each import that may give the name ``call`` calls."""
        if not isinstance(call.func, cst.Name):
            return []
        return [b.imported for b in self.model.resolve(call.func) if b.imported is not None]

    def _from_bindings(self, bindings: list[Binding], hops: int) -> list[Callable]:
        found: list[Callable] = []
        for binding in bindings:
            if binding.kind in (BindingKind.FUNCTION, BindingKind.CLASS):
                found.append(binding.statement)  # type: ignore[arg-type]
            elif binding.kind is BindingKind.ASSIGNMENT and isinstance(binding.value, cst.Lambda):
                found.append(binding.value)
            elif binding.kind is BindingKind.ASSIGNMENT and isinstance(binding.value, cst.Name) and hops > 0:
                found.extend(self._from_bindings(self.model.resolve(binding.value), hops - 1))
        return list({id(f): f for f in found}.values())

    # Methods --------------------------------------------------------------------------------

    def methods(self, attribute: cst.Attribute) -> list[cst.FunctionDef]:
        """The methods ``self.m`` / ``cls.m`` / ``super().m`` may call; [] for other objects."""
        owner = self._method_class(attribute)
        if owner is None:
            return []
        name = attribute.attr.value
        if _is_super(attribute.value):
            for base in self.bases(owner):
                own = self._defined_in(base, name)
                if own:
                    return own
            return []
        found = self._defined_in(owner, name)
        if not found:
            for base in self.bases(owner):
                found = self._defined_in(base, name)
                if found:
                    break
        for sub in self.subclasses(owner):
            found += self._defined_in(sub, name)
        return found

    def _method_class(self, attribute: cst.Attribute) -> cst.ClassDef | None:
        """The class of the method ``attribute`` is read in, when it reads ``self``/``cls``/``super()``."""
        receiver = attribute.value
        if not (_is_super(receiver) or isinstance(receiver, cst.Name)):
            return None
        scope: Scope | None = self.model.scope_of(attribute)
        while scope is not None and scope.kind is not ScopeKind.FUNCTION:
            scope = scope.parent  # a lambda or comprehension inside the method
        if scope is None or scope.parent is None or scope.parent.kind is not ScopeKind.CLASS:
            return None
        func = scope.node
        assert isinstance(func, cst.FunctionDef)
        if isinstance(receiver, cst.Name):
            params = func.params.params
            if not params or params[0].name.value != receiver.value or self.model.only_binding(receiver) is None:
                return None
        return scope.parent.node  # type: ignore[return-value]

    def _defined_in(self, cls: cst.ClassDef, name: str) -> list[cst.FunctionDef]:
        scope = self.model.scope_opened_by(cls)
        return [b.statement for b in scope.of(name) if b.kind is BindingKind.FUNCTION]  # type: ignore[misc]

    def bases(self, cls: cst.ClassDef) -> list[cst.ClassDef]:
        """The base classes of ``cls`` defined in this module, breadth first (near bases first)."""
        known = self._bases.get(id(cls))
        if known is None:
            known = self._bases[id(cls)] = self._find_bases(cls)
        return known

    def _find_bases(self, cls: cst.ClassDef) -> list[cst.ClassDef]:
        found: list[cst.ClassDef] = []
        pending = [cls]
        while pending:
            current = pending.pop(0)
            for base in current.bases:
                if not isinstance(base.value, cst.Name):
                    continue
                for target in self.callee(base.value):
                    if isinstance(target, cst.ClassDef) and target is not cls and target not in found:
                        found.append(target)
                        pending.append(target)
        return found

    def subclasses(self, cls: cst.ClassDef) -> list[cst.ClassDef]:
        """The classes of this module that derive from ``cls``, directly or not."""
        classes = [s.node for s in self.model.scopes if isinstance(s.node, cst.ClassDef)]
        return [other for other in classes if cls in self.bases(other)]

    # The call graph -------------------------------------------------------------------------

    @cached_property
    def _graph(self) -> tuple[dict[int, list[cst.Call]], dict[int, list[Callable]]]:
        calls_of: dict[int, list[cst.Call]] = defaultdict(list)  # callee -> the calls that may run it
        callees: dict[int, list[Callable]] = defaultdict(list)  # caller -> what it may call
        for node in self.model.tree.order:
            if type(node) is not cst.Call:  # exact type: isinstance on libcst's ABCs is slow
                continue
            caller = self.caller_of(node)
            for target in self.targets(node):
                calls_of[id(target)].append(node)
                if all(t is not target for t in callees[id(caller)]):
                    callees[id(caller)].append(target)
        return calls_of, callees

    def caller_of(self, node: cst.CSTNode) -> cst.CSTNode:
        """The def or lambda whose body runs ``node`` (the module for top-level code; a class body
        runs where the class statement does)."""
        scope: Scope | None = self.model.scope_of(node)
        while scope is not None and scope.kind in (ScopeKind.COMPREHENSION, ScopeKind.CLASS):
            scope = scope.parent
        return scope.node if scope is not None else node

    def calls_of(self, target: Callable) -> list[cst.Call]:
        """The calls of this module that may run ``target``, in source order."""
        return list(self._graph[0].get(id(target), []))

    def callees(self, caller: cst.CSTNode) -> list[Callable]:
        """What the body of ``caller`` (a def, a lambda, the module) may call directly."""
        return list(self._graph[1].get(id(caller), []))

    def reachable_from(self, caller: cst.CSTNode) -> list[Callable]:
        """Every def, lambda and class ``caller`` may run, directly or through other calls."""
        seen: dict[int, Callable] = {}
        pending = self.callees(caller)
        while pending:
            current = pending.pop()
            if id(current) not in seen:
                seen[id(current)] = current
                pending.extend(self.callees(current))
        return sorted(seen.values(), key=lambda f: self.model.tree.order[f])


def _is_super(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"
