"""Where a name is assigned: the module's ``=`` statements grouped by the name or attribute they bind.

Rules and analyses that ask "what does ``opt`` (or ``self.opt``) hold" start here, then narrow by
scope or order (``index.enclosing_function``, ``index.before``) as their question needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import libcst as cst

from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.tf.index import FunctionLike, ModuleIndex

_TABLES: WeakKeyDictionary[ModuleIndex, dict[str, list[cst.Assign]]] = WeakKeyDictionary()
_SCOPED: WeakKeyDictionary[ModuleIndex, dict[tuple[str, FunctionLike | None], list[cst.Assign]]] = WeakKeyDictionary()


def assignments_to(index: ModuleIndex, key: str | None) -> list[cst.Assign]:
    """The ``=`` statements with ``key`` (``opt``, ``self.opt``) among their targets, in source
    order; each statement once. Tuple targets and ``+=``/annotated assignments are not included.

    Grouped once per module: rules ask this for every optimizer and strategy of a long file.
    """
    if key is None:
        return []
    table = _TABLES.get(index)
    if table is None:
        table = {}
        for assign in index.assigns:
            if isinstance(assign, cst.Assign):
                for target in dict.fromkeys(dotted_name(t.target) for t in assign.targets):
                    if target is not None:
                        table.setdefault(target, []).append(assign)
        _TABLES[index] = table
    return table.get(key, [])


def assignments_in(index: ModuleIndex, key: str | None, function: FunctionLike | None) -> list[cst.Assign]:
    """The :func:`assignments_to` ``key`` whose nearest enclosing function is ``function`` (None:
    module level), in source order.

    Grouped once per module: following a name's binding asks this for every call it resolves,
    and filtering every assignment of a common name (``loss``) each time was quadratic.
    """
    if key is None:
        return []
    table = _SCOPED.get(index)
    if table is None:
        assignments_to(index, key)  # builds the table by name
        table = {}
        for name, assigns in _TABLES[index].items():
            for assign in assigns:
                table.setdefault((name, index.enclosing_function(assign)), []).append(assign)
        _SCOPED[index] = table
    return table.get((key, function), [])


def assigned_values(index: ModuleIndex, key: str | None) -> list[cst.BaseExpression]:
    """The values of :func:`assignments_to`, in source order."""
    return [assign.value for assign in assignments_to(index, key)]
