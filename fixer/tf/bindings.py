"""Where a name is assigned: the module's ``=`` statements grouped by the name or attribute they bind.

Rules and analyses that ask "what does ``opt`` (or ``self.opt``) hold" start here, then narrow by
scope or order (``index.enclosing_function``, ``index.before``) as their question needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from fixer.tf.index import FunctionLike, ModuleIndex


def assignments_to(index: ModuleIndex, key: str | None) -> list[cst.Assign]:
    """The ``=`` statements with ``key`` (``opt``, ``self.opt``) among their targets, in source
    order; each statement once. Tuple targets and ``+=``/annotated assignments are not included.

    Grouped once per module (``ModuleIndex.assignments_by_target``): rules ask this for every
    optimizer and strategy of a long file.
    """
    return index.assignments_by_target.get(key, []) if key is not None else []


def assignments_in(index: ModuleIndex, key: str | None, function: FunctionLike | None) -> list[cst.Assign]:
    """The :func:`assignments_to` ``key`` whose nearest enclosing function is ``function`` (None:
    module level), in source order.

    Grouped once per module (``ModuleIndex.assignments_by_target_in``): following a name's binding
    asks this for every call it resolves, and filtering every assignment of a common name
    (``loss``) each time was quadratic.
    """
    return index.assignments_by_target_in.get((key, function), []) if key is not None else []


def assigned_values(index: ModuleIndex, key: str | None) -> list[cst.BaseExpression]:
    """The values of :func:`assignments_to`, in source order."""
    return [assign.value for assign in assignments_to(index, key)]
