"""libcst node classes answer ``isinstance`` without abc's Python hook, in the language server.

Every libcst node class has :class:`abc.ABCMeta` as its metaclass, so ``isinstance(node,
cst.Name)`` on a node of another class goes through ``ABCMeta.__instancecheck__``: a Python
call that consults the class's registry of virtual subclasses, about 400 ns where a plain class
takes 40. The rules and the models ask that about 100,000 times per edit of a 3,000-line file
(benchmarks/README.md, the lsp6 section), a quarter of the server's CPU per edit.

libcst registers no virtual subclass and defines no ``__subclasshook__``, so the answer is the
one the class hierarchy gives, which ``type.__instancecheck__`` computes in C. The node classes
get a metaclass below ``ABCMeta`` (still an ``ABCMeta``: abstract classes stay abstract) whose
checks are ``type``'s. Installed when the server starts, and only while no node class has a
registry or a hook; like fixer/node_hash.py, the answers of every check stay the same.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

from fixer.node_hash import node_classes

if TYPE_CHECKING:
    from collections.abc import Sequence


class _HierarchyOnly(abc.ABCMeta):
    """``ABCMeta`` whose instance and subclass checks follow the class hierarchy only."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__


def hierarchy_only(classes: Sequence[type]) -> bool:
    """No class registers a virtual subclass or defines ``__subclasshook__``: ABCMeta's checks
    then answer what the class hierarchy says."""
    # CPython's accessor of an ABC's registry (private: another interpreter may lack it, and then
    # nothing is changed).
    dump = getattr(abc, "_get_dump", None)
    if dump is None:
        return False
    return all(
        not dump(node_class)[0]  # (registry, caches, version)
        and all("__subclasshook__" not in base.__dict__ for base in node_class.__mro__[:-1])
        for node_class in classes
    )


def install() -> int:
    """Give every libcst node class the hierarchy-only metaclass; the number of classes changed
    (0 when it is installed already, or when some class relies on ABCMeta's hooks)."""
    classes = [node_class for node_class in node_classes() if type(node_class) is abc.ABCMeta]
    if not hierarchy_only(classes):
        return 0
    for node_class in classes:
        node_class.__class__ = _HierarchyOnly
    return len(classes)
