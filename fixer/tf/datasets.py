"""Shared analysis for the input rules: which expressions are `tf.data` datasets.

Not a rule: TFD201 and TFD202 both need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.tf.calls import argument_value
from fixer.tf.dataset_api import DATASET_CONSTRUCTORS, DATASET_METHODS, DISTRIBUTING, TFDS_LOADS, loads_tfds_split
from fixer.tf.names import dotted_name
from fixer.tf.parameters import call_position, takes_receiver
from fixer.tf.strategies import visible_defs

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

PLAIN = "plain"
DISTRIBUTED = "distributed"
_WRAPPERS = frozenset({"enumerate", "iter"})
# Hops to other code followed from one expression: names rebound step by step, helpers, parameters.
_MAX_HOPS = 12


class DatasetModel:
    """Which expressions are plain `tf.data` datasets and which are distributed by a strategy.

    A name is followed to what it is bound to where it is used (Python scoping), a parameter to
    the arguments its function is called with, ``self.x`` to its assignments in the module, a
    call of a local function to what that function returns, and a call of a function imported
    from another module of the project to what its summary says it returns
    (``fixer/tf/project_imports.py``).
    """

    def __init__(self, tf: TFModel) -> None:
        self.tf = tf
        self._cache: dict[tuple[int, int], str | None] = {}

    def is_dataset(self, expr: cst.BaseExpression, near: cst.CSTNode | None = None) -> bool:
        """True for a `tf.data` dataset that is not distributed by a strategy."""
        return self.kind(expr, near) == PLAIN

    def kind(self, expr: cst.BaseExpression, near: cst.CSTNode | None = None, depth: int = 0) -> str | None:
        """``PLAIN``, ``DISTRIBUTED`` or None (not a dataset, or unknown).

        ``depth`` counts hops to other code (a name's binding, a function's return), not the steps
        of a method chain, so a pipeline rebound step by step (``ds = ds.map(...)`` five times) is
        followed to its source."""
        if depth > _MAX_HOPS:
            return None
        key = (id(expr), id(near))
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = None  # breaks cycles
        result = self._kind(expr, near if near is not None else expr, depth)
        self._cache[key] = result
        return result

    def _kind(self, expr: cst.BaseExpression, near: cst.CSTNode, depth: int) -> str | None:
        tf = self.tf
        if isinstance(expr, cst.Call):
            callee = tf.names.callee(expr)
            if callee is not None and callee.rsplit(".", 1)[-1] == "tqdm" and expr.args:
                return self.kind(expr.args[0].value, near, depth)  # a progress bar yields the elements
            if callee is not None:
                if callee in TFDS_LOADS:
                    return PLAIN if loads_tfds_split(callee, expr) else None
                if callee.startswith(DATASET_CONSTRUCTORS):
                    return PLAIN
            imported = tf.project.returned(expr.func)
            if imported is not None or callee is not None:
                # A builder of another module of the project (`utility.make_dataset(...)`), or a library's call.
                return PLAIN if imported is not None and imported.kind == "dataset" else None
            func = expr.func
            if isinstance(func, cst.Attribute):
                if func.attr.value in DISTRIBUTING:
                    return DISTRIBUTED
                if func.attr.value == "as_dataset" and any(
                    a.keyword is not None and a.keyword.value == "split" for a in expr.args
                ):
                    return PLAIN  # a tfds builder's split
                if func.attr.value in DATASET_METHODS:
                    inner = self.kind(func.value, near, depth)
                    return inner if inner == PLAIN else None
                return None
            if isinstance(func, cst.Name):
                if func.value in _WRAPPERS and expr.args:
                    return self.kind(expr.args[0].value, near, depth + 1)
                returned = self._returned(func.value, near) or self._called_instance(func.value, near)
                return self._agree([self.kind(v, r, depth + 1) for v, r in returned])
            return None
        if isinstance(expr, (cst.Name, cst.Attribute)):
            key = dotted_name(expr)
            if key is None:
                return None
            return self._agree([self.kind(v, r, depth + 1) for v, r in self.bindings(key, near)])
        return None

    @staticmethod
    def _agree(kinds: list[str | None]) -> str | None:
        return kinds[0] if kinds and all(k == kinds[0] for k in kinds) else None

    def _returned(self, name: str, near: cst.CSTNode) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        index = self.tf.index
        found = []
        for factory in visible_defs(index, name, near):
            for ret in index.in_function("returns", factory):
                if ret.value is not None:
                    found.append((ret.value, ret))
        return found

    def _called_instance(self, name: str, near: cst.CSTNode) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        """What ``name()`` returns when ``name`` holds an instance of a class of this module
        (``loader = Loader(16)``, then ``loader()``): the returns of that class's ``__call__``."""
        index = self.tf.index
        found: list[tuple[cst.BaseExpression, cst.CSTNode]] = []
        for value, _ in self.bindings(name, near):
            if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
                return []
            classes = [c for c in index.classes if c.name.value == value.func.value]
            if len(classes) != 1:
                return []
            for method in index.functions_by_name.get("__call__", []):
                if index.method_class(method) is classes[0]:
                    found.extend((r.value, r) for r in index.in_function("returns", method) if r.value is not None)
        return found

    def bindings(self, key: str, near: cst.CSTNode) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        """What ``key`` may hold at ``near``: the values of the ``=`` bindings of the name that reach
        it (``tf.semantic``; an unpacked element where it can be told), and for a parameter the
        arguments its function is called with; each with the node to resolve it from. ``self.x``
        (an attribute, which the semantic model does not follow): its assignments in the module."""
        if "." in key:
            found = []
            for assign in self.tf.index.assigns:
                found.extend(self._assigned(assign, key))
            return found
        values: list[tuple[cst.BaseExpression, cst.CSTNode]] = []
        for binding in self.tf.semantic.reaching(key, near):
            if binding.kind is BindingKind.PARAMETER and isinstance(binding.statement, cst.FunctionDef):
                values.extend(self._arguments(binding.statement, key))
            elif isinstance(binding.statement, cst.Assign):
                values.extend(self._assigned(binding.statement, key))
        return values

    @staticmethod
    def _binds(assign: cst.Assign, key: str) -> bool:
        return any(_path(t.target, key) is not None for t in assign.targets)

    def _assigned(
        self, assign: cst.Assign | cst.AnnAssign | cst.AugAssign, key: str
    ) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        """The value ``assign`` gives ``key``: the whole value, or its element for ``a, (b, c) = ...``."""
        if not isinstance(assign, cst.Assign):
            return []
        for target in assign.targets:
            path = _path(target.target, key)
            if path is not None:
                return self._element(assign.value, path, target.target)
        return []

    def _element(
        self, value: cst.BaseExpression, path: list[int], target: cst.BaseExpression
    ) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        """The part of ``value`` at ``path`` (indices into nested tuple targets)."""
        if not path:
            return [(value, value)]
        size = len(target.elements) if isinstance(target, (cst.Tuple, cst.List)) else -1
        inner_target = target
        if isinstance(target, (cst.Tuple, cst.List)) and size > path[0]:
            inner_target = target.elements[path[0]].value
        if isinstance(value, (cst.Tuple, cst.List)):
            if len(value.elements) != size:
                return []
            return self._element(value.elements[path[0]].value, path[1:], inner_target)
        if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
            return [(value, value)]  # `x, y = batch`: a part of whatever ``value`` is
        if isinstance(value, cst.Call):
            if self.tf.names.callee(value) in TFDS_LOADS:
                return [(value, value)]  # split=[...]: one dataset per split
            if isinstance(value.func, cst.Name) and value.func.value == "next" and value.args:
                return [(value, value)]  # `x, y = next(it)`: a part of the element `next` reads
            if isinstance(value.func, cst.Name):
                found = []
                for returned, ret in self._returned(value.func.value, value):
                    if isinstance(returned, (cst.Tuple, cst.List)) and len(returned.elements) == size:
                        for part, _ in self._element(returned.elements[path[0]].value, path[1:], inner_target):
                            found.append((part, ret))
                return found
        return []

    def _arguments(self, func: cst.FunctionDef, name: str) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
        position = call_position(func, name, skip_first=takes_receiver(func))
        found: list[tuple[cst.BaseExpression, cst.CSTNode]] = []
        for site in self.tf.strategies.call_sites(func):
            value = argument_value(site, position, name)
            if value is None:
                return []  # one call site we cannot read: unknown
            found.append((value, site))
        return found


def _path(target: cst.BaseExpression, key: str) -> list[int] | None:
    """Indices leading to ``key`` in an assignment target (``[]``: the target itself)."""
    if dotted_name(target) == key:
        return []
    if isinstance(target, (cst.Tuple, cst.List)):
        for index, element in enumerate(target.elements):
            inner = _path(element.value, key)
            if inner is not None:
                return [index, *inner]
    return None
