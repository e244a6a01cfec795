"""Bindings: one record per place a name is given (or taken away) an object."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from fixer.semantic.scopes import Scope


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
