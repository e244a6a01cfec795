"""Scopes and bindings: the module, classes, functions, lambdas and comprehensions, and one
record per place a name is given (or taken away) an object."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst


class ScopeKind(Enum):
    """What opened a scope."""

    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    LAMBDA = "lambda"
    COMPREHENSION = "comprehension"


@dataclass(eq=False)
class Scope:
    """One scope: the node that opens it, its parent scope and the bindings it holds by name.

    ``declared_global`` / ``declared_nonlocal`` are the names its ``global`` / ``nonlocal``
    statements hand to the module / an enclosing function: their bindings live there.
    """

    kind: ScopeKind
    node: cst.CSTNode
    parent: Scope | None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def __repr__(self) -> str:
        name = getattr(getattr(self.node, "name", None), "value", None)
        return f"Scope({self.kind.value}{' ' + name if name else ''})"

    @property
    def is_function(self) -> bool:
        """A function or lambda: its names are bound anew at each call."""
        return self.kind in (ScopeKind.FUNCTION, ScopeKind.LAMBDA)

    def add(self, binding: Binding) -> None:
        """Record ``binding`` under its name, in source order."""
        self.bindings.setdefault(binding.name, []).append(binding)

    def of(self, name: str) -> list[Binding]:
        """The bindings of ``name`` in this scope, in source order."""
        return self.bindings.get(name, [])


class BindingKind(Enum):
    """The statement form that binds a name."""

    ASSIGNMENT = "assignment"  # a = v, a: T = v, a, b = v
    AUGMENTED = "augmented"  # a += v
    WALRUS = "walrus"  # (a := v)
    LOOP = "loop"  # for a in ..., comprehension targets
    WITH = "with"  # with v as a
    EXCEPT = "except"  # except E as a
    IMPORT = "import"  # import a, from m import a
    PARAMETER = "parameter"  # def f(a), lambda a:
    FUNCTION = "function"  # def a
    CLASS = "class"  # class a
    DELETION = "deletion"  # del a: the name is unbound after it


@dataclass(frozen=True)
class Branch:
    """One arm of a compound statement that holds a node: ``arm`` of ``node``.

    ``arm`` is ``"body"`` or ``"else"`` for `if`/`for`/`while`, and ``"body"``, ``"except"``,
    ``"else"`` or ``"finally"`` for `try`.
    """

    node: cst.If | cst.For | cst.While | cst.Try | cst.TryStar
    arm: str


@dataclass(frozen=True, eq=False)
class Binding:
    """``name`` bound in ``scope`` by ``statement`` (the assignment, ``for``, ``def``, ``import`` ...).

    ``node`` is the binding node itself (the target ``Name``, the ``ImportAlias``, the ``Param``,
    the ``FunctionDef``); ``value`` the expression the name receives when the source says it
    (the right-hand side, the ``with`` item, the part of an unpacked tuple), else None.
    ``branch`` lists the arms, outermost first, that hold the binding within its scope.
    ``imported`` is ``(module, name)`` for an import (``("os.path", "")`` for ``import os.path``,
    a leading dot per relative level).
    """

    name: str
    scope: Scope
    statement: cst.CSTNode
    node: cst.CSTNode
    kind: BindingKind
    value: cst.BaseExpression | None = None
    branch: tuple[Branch, ...] = ()
    imported: tuple[str, str] | None = None

    def __repr__(self) -> str:
        return f"Binding({self.name!r}, {self.kind.value}, {self.scope!r})"

    @property
    def is_conditional(self) -> bool:
        """True when the binding sits in an arm of an `if`, loop or `try` of its scope."""
        return bool(self.branch)
