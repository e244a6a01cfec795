"""What an assignment statement writes to: its target expressions, and the names they bind."""

from __future__ import annotations

import libcst as cst

AssignLike = cst.Assign | cst.AnnAssign | cst.AugAssign


def assignment_targets(node: AssignLike, *, augmented: bool = True) -> list[cst.BaseExpression]:
    """The target expressions of ``a = b = v``, ``a: T = v`` and ``a += v``, left to right.

    ``augmented=False`` gives nothing for ``a += v`` (the name keeps its object's kind there).
    """
    if isinstance(node, cst.Assign):
        return [target.target for target in node.targets]
    if isinstance(node, cst.AugAssign) and not augmented:
        return []
    return [node.target]


def target_names(target: cst.BaseExpression) -> list[cst.Name]:
    """The plain names a target binds, unpacking tuples, lists and ``*rest`` (not ``a.b``/``a[i]``)."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, cst.Tuple | cst.List):
        found: list[cst.Name] = []
        for element in target.elements:
            found.extend(target_names(element.value))
        return found
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def unpacked_value(
    target: cst.BaseExpression, name: cst.Name, value: cst.BaseExpression | None
) -> cst.BaseExpression | None:
    """The part of ``value`` that ``name`` receives inside ``target``: ``value`` itself for a plain
    name, the matching element for ``a, b = x, y``; None when it cannot be told (``a, b = pair()``)."""
    if target is name:
        return value
    if not isinstance(target, cst.Tuple | cst.List) or not isinstance(value, cst.Tuple | cst.List):
        return None
    if len(target.elements) != len(value.elements):
        return None
    for part, element in zip(target.elements, value.elements, strict=False):
        if isinstance(part, cst.StarredElement) or isinstance(element, cst.StarredElement):
            return None
        if name in target_names(part.value):
            return unpacked_value(part.value, name, element.value)
    return None
