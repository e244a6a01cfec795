"""Whether a module may call, or annotate with, a class it names: on CPython's tree (pre-filter stage 4).

Several rules start from a call of one class (a ParameterServerStrategy built, a cluster resolver
called, a MirroredStrategy given devices) and ask libcst's name resolution (fixer/tf/names.py)
which class a call's callee is. Their facts (fixer/facts.py) state the necessary condition on
CPython's tree, looser than the resolution: a call's callable is spelled with the class's own last
name (``tf.distribute.ParameterServerStrategy(...)``, ``ParameterServerStrategy(...)``) or with a
name the module binds to it: ``from m import C as A``, ``import m.C as A``, ``A = m.C`` (or ``A = B``
of such a name, to a fixed point). A class named only in an ``isinstance`` test, a message or a
docstring is called by nothing. A class handed on under another name by another module of the
project is not followed (docs/prefilter.md, Known limits).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from fixer.tf.module_summary import dotted

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from fixer.ast_facts import ModuleFacts


def class_names(evidence: Iterable[ast.AST], is_class: Callable[[str], bool]) -> frozenset[str]:
    """The names a call's callable may end in to call a class whose last name ``is_class`` accepts:
    such last names are accepted as they are; this returns the module's other names for them."""
    aliases: set[str] = set()
    renamed: list[tuple[str, str]] = []  # `A = x.B`: ("A", "B")
    for node in evidence:
        kind = type(node)
        if kind is ast.ImportFrom or kind is ast.Import:
            for alias in node.names:  # type: ignore[attr-defined]
                if alias.asname and is_class(alias.name.rsplit(".", 1)[-1]):
                    aliases.add(alias.asname)
        elif kind is ast.Assign and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):  # type: ignore[attr-defined]
            name = dotted(node.value)  # type: ignore[attr-defined]
            if name is not None:
                renamed.append((node.targets[0].id, name.rsplit(".", 1)[-1]))  # type: ignore[attr-defined]
    changed = True
    while changed:
        changed = False
        for target, source in renamed:
            if target not in aliases and (is_class(source) or source in aliases):
                aliases.add(target)
                changed = True
    return frozenset(aliases)


def calls_of(facts: ModuleFacts, classes: frozenset[str]) -> list[ast.Call]:
    """The calls of ``facts``' module that may call one of ``classes`` (last names), by their own
    name or an alias (see the module docstring); none when the code names none of them."""
    if classes.isdisjoint(facts.identifiers):
        return []
    aliases = class_names(facts.evidence, classes.__contains__)
    return [call for call in facts.calls if _calls_one_of(call, classes, aliases)]


def annotated_with(facts: ModuleFacts, is_class: Callable[[str], bool]) -> bool:
    """A parameter of a function of the module is annotated with an expression that names a class
    ``is_class`` accepts (by its last name or an alias), anywhere in the annotation."""
    aliases: frozenset[str] | None = None
    for node in facts.evidence:
        if type(node) is not ast.FunctionDef and type(node) is not ast.AsyncFunctionDef:
            continue
        arguments = node.args
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg):
            if arg is None or arg.annotation is None:
                continue
            if aliases is None:
                aliases = class_names(facts.evidence, is_class)
            if any(_names_class(part, is_class, aliases) for part in ast.walk(arg.annotation)):
                return True
    return False


def _calls_one_of(call: ast.Call, classes: frozenset[str], aliases: frozenset[str]) -> bool:
    name = dotted(call.func)
    if name is None:
        return False
    last = name.rsplit(".", 1)[-1]
    return last in classes or last in aliases


def _names_class(node: ast.AST, is_class: Callable[[str], bool], aliases: frozenset[str]) -> bool:
    if isinstance(node, ast.Name):
        return is_class(node.id) or node.id in aliases
    return isinstance(node, ast.Attribute) and is_class(node.attr)
