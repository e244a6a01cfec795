"""Scopes: the module, classes, functions, lambdas and comprehensions, each with its bindings."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from fixer.semantic.bindings import Binding


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
