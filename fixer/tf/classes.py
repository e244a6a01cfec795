"""Method resolution by the classes of the module: `self.m` and `super().m` are not every `m`.

Inside `Child._forward`, `super()._forward` is `Base._forward` (the bases, in order, as the
module defines them), never `Child._forward` itself; `self.m` is a method of the class, of one
of its bases, or of a subclass that overrides it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex


def bases_in_module(index: ModuleIndex, cls: cst.ClassDef) -> list[cst.ClassDef]:
    """The base classes of ``cls`` the module defines, nearest first (depth-first, as an MRO would)."""
    return index.class_bases.get(cls, [])


def subclasses_in_module(index: ModuleIndex, cls: cst.ClassDef) -> list[cst.ClassDef]:
    """The classes of the module that derive from ``cls``, directly or not."""
    return [other for other in index.classes if cls in bases_in_module(index, other)]


def enclosing_class(index: ModuleIndex, node: cst.CSTNode) -> cst.ClassDef | None:
    """The class whose method (directly, or through nested functions) holds ``node``."""
    func = index.enclosing_function(node)
    while func is not None:
        if isinstance(func, cst.FunctionDef):
            owner = index.method_class(func)
            if owner is not None:
                return owner
        func = index.enclosing_function(func)
    return None


def is_super_call(node: cst.BaseExpression) -> bool:
    """``super()`` or ``super(Class, self)``."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def _methods_named(index: ModuleIndex, cls: cst.ClassDef, name: str) -> list[cst.FunctionDef]:
    return [f for f in index.functions_by_name.get(name, []) if index.method_class(f) is cls]


def resolve_method(index: ModuleIndex, attribute: cst.Attribute, near: cst.CSTNode) -> list[cst.FunctionDef] | None:
    """The methods ``attribute`` (``super().m``, ``self.m``) may call, or None when it cannot be told.

    ``super().m``: the first base (in the module) that defines ``m``; [] when no base here does
    (it is a library's method). ``self.m``: the class's own or inherited ``m`` plus overrides in
    subclasses. Other receivers: None (the caller decides).
    """
    owner = enclosing_class(index, near)
    if owner is None:
        return None
    name = attribute.attr.value
    if is_super_call(attribute.value):
        for base in bases_in_module(index, owner):
            methods = _methods_named(index, base, name)
            if methods:
                return methods
        return []
    if isinstance(attribute.value, cst.Name) and attribute.value.value in ("self", "cls"):
        found: list[cst.FunctionDef] = []
        for cls in [owner, *bases_in_module(index, owner)]:
            found = _methods_named(index, cls, name)
            if found:
                break
        for sub in subclasses_in_module(index, owner):
            found += [f for f in _methods_named(index, sub, name) if f not in found]
        return found or None
    return None


def _rooted_at_self(node: cst.BaseExpression) -> bool:
    """``self.x``, ``self.x.y`` (an object held on self), not ``self`` itself."""
    if not isinstance(node, cst.Attribute):
        return False
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name) and node.value in ("self", "cls")


def methods_of_other_objects(
    index: ModuleIndex, attribute: cst.Attribute, near: cst.CSTNode | None
) -> list[cst.FunctionDef]:
    """The module's methods named like ``attribute`` that a call on another object may reach.

    ``self._agent.train`` calls a method of the object held in ``self._agent``, never the
    enclosing class's own ``train``: the class, its bases and its subclasses are left out.
    """
    methods = [f for f in index.functions_by_name.get(attribute.attr.value, []) if index.method_class(f) is not None]
    owner = enclosing_class(index, near) if near is not None and _rooted_at_self(attribute.value) else None
    if owner is None:
        return methods
    family = {owner, *bases_in_module(index, owner), *subclasses_in_module(index, owner)}
    return [f for f in methods if index.method_class(f) not in family]


def _is_test_case(index: ModuleIndex, cls: cst.ClassDef) -> bool:
    """A unittest class: a base spelled ``...TestCase`` here or on one of its bases in the module."""
    for candidate in [cls, *bases_in_module(index, cls)]:
        for base in candidate.bases:
            name = base.value.attr.value if isinstance(base.value, cst.Attribute) else getattr(base.value, "value", "")
            if isinstance(name, str) and name.endswith("TestCase"):
                return True
    return False


def enclosing_unit_test(index: ModuleIndex, node: cst.CSTNode, test_file: bool = False) -> cst.FunctionDef | None:
    """The ``test*`` method of a unittest ``TestCase`` that ``node`` sits in (directly or in a function
    nested in it); in a test file (``test_file``, see `fixer.test_files.is_test_file`) also a
    module-level ``test*`` function, as pytest collects. None outside tests."""
    func = index.enclosing_function(node)
    while func is not None:
        if isinstance(func, cst.FunctionDef) and func.name.value.startswith("test"):
            owner = index.method_class(func)
            if owner is not None and _is_test_case(index, owner):
                return func
            if owner is None and test_file and isinstance(index.parent.get(func), cst.Module):
                return func
        func = index.enclosing_function(func)
    return None
