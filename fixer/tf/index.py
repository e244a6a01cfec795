"""One traversal of a module that records what the semantic model and the rules look up."""

from __future__ import annotations

import inspect
import re
from collections import defaultdict
from functools import cache, cached_property
from itertools import count, islice
from typing import TYPE_CHECKING, Any, cast

import libcst as cst

from fixer.semantic import SemanticModel

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping

FunctionLike = cst.FunctionDef | cst.Lambda
_FUNCTION_TYPES = (cst.FunctionDef, cst.Lambda)


class ModuleIndex(cst.CSTVisitor):
    """Parents, calls, functions, assignments and `with` blocks of one module, in source order.

    Built by a single visit; everything else (names, strategies, replica functions) is derived
    from these tables without walking the tree again.
    """

    def __init__(self) -> None:
        self.parent: dict[cst.CSTNode, cst.CSTNode] = {}
        self.order: dict[cst.CSTNode, int] = {}  # pre-order number: source order without positions
        self.calls: list[cst.Call] = []
        self.functions: list[cst.FunctionDef] = []
        self.functions_by_name: dict[str, list[cst.FunctionDef]] = defaultdict(list)
        self.lambdas: list[cst.Lambda] = []
        self.classes: list[cst.ClassDef] = []
        self.withs: list[cst.With] = []
        self.ifs: list[cst.If] = []
        self.fors: list[cst.For] = []
        self.assigns: list[cst.Assign | cst.AnnAssign | cst.AugAssign] = []
        self.imports: list[cst.Import | cst.ImportFrom] = []
        self.returns: list[cst.Return] = []
        self.names: dict[str, list[cst.Name]] = defaultdict(list)
        self.attributes: list[cst.Attribute] = []
        self._stack: list[cst.CSTNode] = []
        self._enclosing: dict[cst.CSTNode, FunctionLike | None] = {}
        self._by_function: dict[str, dict[FunctionLike | None, list[cst.CSTNode]]] = {}

    @classmethod
    def build(cls, module: cst.Module) -> ModuleIndex:
        """Index ``module`` in one walk, in the order libcst's own visit takes."""
        index = cls()
        try:
            index._walk(module, None)
        except _NoChildOrder:
            index = cls()
            module.visit(index)
        return index

    def _walk(self, node: cst.CSTNode, parent: cst.CSTNode | None) -> None:
        # libcst's visit rebuilds every node it passes (to support transformers), which is most of
        # the cost of indexing; this walk reads the children in the same order and builds nothing.
        self.order[node] = len(self.order)
        if parent is not None:
            self.parent[node] = parent
        record = _RECORDERS.get(type(node))
        if record is not None:
            record(self, node)
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            if _is_node(type(value)):
                self._walk(value, node)
            elif type(value) in (tuple, list):
                for item in value:
                    if _is_node(type(item)):
                        self._walk(item, node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.order[node] = len(self.order)
        if self._stack:
            self.parent[node] = self._stack[-1]
        self._stack.append(node)
        # Dispatch on the exact class: isinstance on libcst's ABC-based nodes is slow, and this
        # runs for every node of every parsed file.
        record = _RECORDERS.get(type(node))
        if record is not None:
            record(self, node)
        return True

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        """Not needed: skipping libcst's per-attribute hooks saves a call per child."""

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        """Not needed (see on_visit_attribute)."""

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()

    @classmethod
    def combine(
        cls,
        module: cst.Module,
        parts: list[tuple[cst.Module, ModuleIndex]],
        previous: tuple[list[tuple[cst.Module, ModuleIndex]], dict[cst.CSTNode, cst.CSTNode]] | None = None,
    ) -> ModuleIndex:
        """The index of ``module``, whose top-level nodes are those of the ``parts`` in order.

        Each part is a module parsed on its own and indexed by :meth:`build`; the result equals
        ``build(module)`` without visiting the tree again (the incremental parser's merge).
        ``previous``: the parts and the parent table of the last merge, which is copied and
        corrected for the parts that changed instead of merged again (an edit changes one or two
        parts of a long file).
        """
        index = cls()
        index.order[module] = 0
        if previous is None:
            for _, part in parts:
                index.parent.update(part.parent)
        else:
            index.parent = _parents_after_edit(parts, *previous)
        for part_module, part in parts:
            for child in (*part_module.header, *part_module.body, *part_module.footer):
                index.parent[child] = module
            # The part's first entry is its own module; the rest are in pre-order already.
            index.order.update(zip(islice(part.order, 1, None), count(len(index.order))))
            for name in _LIST_TABLES:
                getattr(index, name).extend(getattr(part, name))
            for name in _GROUPED_TABLES:
                merged = getattr(index, name)
                for key, nodes in getattr(part, name).items():
                    merged[key].extend(nodes)
        return index

    @classmethod
    def join(cls, parts: list[tuple[ModuleIndex, int, Mapping[cst.CSTNode, cst.CSTNode]]]) -> ModuleIndex:
        """The index of a tree assembled from trees indexed on their own, without visiting it.

        Of each part ``(index, start, renamed)`` it keeps the nodes numbered ``start`` or more in
        pre-order, with each node of ``renamed`` (a node the assembly rebuilt) replaced by its new
        node, as a node and as a parent. The kept nodes must follow one another in the assembled
        tree's pre-order. The incremental parser assembles a long class from its members, each
        parsed inside a stand-in class (fixer/class_members.py).
        """
        index = cls()
        for part, start, renamed in parts:
            order = part.order
            kept_renamed = {old: new for old, new in renamed.items() if order[old] >= start}
            kept: Iterable[cst.CSTNode] = islice(order, start, None)
            if kept_renamed:
                kept = [kept_renamed.get(node, node) for node in kept]
            index.order.update(zip(kept, count(len(index.order))))
            # Copied whole, then corrected: a copy of the dict costs a fraction of a filtered one.
            index.parent.update(part.parent)
            for node in islice(order, start):
                index.parent.pop(node, None)
            for old, new in renamed.items():
                if old in kept_renamed:
                    index.parent.pop(old, None)  # the root has no parent
                    above = part.parent.get(old)
                    if above is not None:
                        index.parent[new] = renamed.get(above, above)
                for child in _children(old):
                    if child not in renamed and order[child] >= start:
                        index.parent[child] = new
            for name in _LIST_TABLES:
                index._extend(getattr(index, name), getattr(part, name), start, order, kept_renamed)
            for name in _GROUPED_TABLES:
                merged = getattr(index, name)
                for key, found in getattr(part, name).items():
                    index._extend(merged[key], found, start, order, kept_renamed)
                    if not merged[key]:
                        del merged[key]
        return index

    @staticmethod
    def _extend(
        table: list[cst.CSTNode],
        found: list[cst.CSTNode],
        start: int,
        order: dict[cst.CSTNode, int],
        renamed: Mapping[cst.CSTNode, cst.CSTNode],
    ) -> None:
        """Append the entries of ``found`` numbered ``start`` or more (a table is in pre-order:
        the others come first), renamed."""
        skip = 0
        while skip < len(found) and order[found[skip]] < start:
            skip += 1
        if renamed:
            table.extend(renamed.get(node, node) for node in found[skip:])
        else:
            table.extend(found[skip:] if skip else found)

    # Navigation -----------------------------------------------------------------------------

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The parents of ``node``, nearest first, up to the module."""
        current = self.parent.get(node)
        while current is not None:
            yield current
            current = self.parent.get(current)

    def enclosing_function(self, node: cst.CSTNode) -> FunctionLike | None:
        """The nearest function or lambda whose body holds ``node`` (memoised: rules ask often)."""
        known = self._enclosing
        if node in known:
            return known[node]
        # Every ancestor passed on the way up has the same answer: remember it for them too, so
        # that asking about every node of a function costs one walk, not one per node.
        passed = [node]
        found: FunctionLike | None = None
        current = self.parent.get(node)
        while current is not None:
            if type(current) in _FUNCTION_TYPES:  # exact types: isinstance on libcst's ABCs is slow
                found = cast("FunctionLike", current)
                break
            if current in known:
                found = known[current]
                break
            passed.append(current)
            current = self.parent.get(current)
        for step in passed:
            known[step] = found
        return found

    def in_function(self, table: str, func: FunctionLike | None) -> list[Any]:
        """The nodes of a table (``"assigns"``, ``"returns"``, ...) whose nearest function is ``func``.

        ``func`` None means module level. Grouped once per table: rules ask for every function.
        The nodes are of the table's own type (``cst.Return`` for ``"returns"``), hence ``Any``.
        """
        grouped = self._by_function.get(table)
        if grouped is None:
            grouped = self._by_function[table] = defaultdict(list)
            for node in getattr(self, table):
                grouped[self.enclosing_function(node)].append(node)
        return grouped.get(func, [])

    @cached_property
    def semantic(self) -> SemanticModel:
        """Python scopes and bindings of this module (fixer/semantic), built on first use from the
        parent and order tables; ``TFModel.semantic`` is this same object, so it is built once."""
        return SemanticModel(self)

    @cached_property
    def assignments_by_target(self) -> dict[str, list[cst.Assign]]:
        """The ``=`` statements by each name or attribute chain among their targets (``opt``,
        ``self.opt``), in source order, each statement once per key (``fixer.tf.bindings``)."""
        from fixer.tf.names import dotted_name  # names.py reads this module's types only

        table: dict[str, list[cst.Assign]] = {}
        for assign in self.assigns:
            if isinstance(assign, cst.Assign):
                for target in dict.fromkeys(dotted_name(t.target) for t in assign.targets):
                    if target is not None:
                        table.setdefault(target, []).append(assign)
        return table

    @cached_property
    def assignments_by_target_in(self) -> dict[tuple[str, FunctionLike | None], list[cst.Assign]]:
        """:attr:`assignments_by_target` split by the nearest function around each statement
        (None: module level): following a name asks it for every call it resolves."""
        table: dict[tuple[str, FunctionLike | None], list[cst.Assign]] = {}
        for name, assigns in self.assignments_by_target.items():
            for assign in assigns:
                table.setdefault((name, self.enclosing_function(assign)), []).append(assign)
        return table

    @cached_property
    def classes_by_name(self) -> dict[str, list[cst.ClassDef]]:
        """The module's classes by name, in source order."""
        table: dict[str, list[cst.ClassDef]] = {}
        for cls in self.classes:
            table.setdefault(cls.name.value, []).append(cls)
        return table

    @cached_property
    def class_bases(self) -> dict[cst.ClassDef, list[cst.ClassDef]]:
        """Each class's base classes that the module defines, nearest first (depth-first, as an
        MRO would), found by their names (``fixer.tf.classes`` resolves methods with them)."""
        table = self.classes_by_name
        every: dict[cst.ClassDef, list[cst.ClassDef]] = {}
        for cls in self.classes:
            found: list[cst.ClassDef] = []
            pending = [cls]
            while pending:
                current = pending.pop(0)
                for base in current.bases:
                    if isinstance(base.value, cst.Name):
                        for candidate in table.get(base.value.value, []):
                            if candidate is not cls and candidate not in found:
                                found.append(candidate)
                                pending.append(candidate)
            every[cls] = found
        return every

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement:
        """The statement (simple line or compound) that holds ``node``."""
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self.parent.get(current)
        if current is None:
            raise ValueError("node is not inside a statement")
        return current

    def before(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """True when ``first`` starts before ``second`` in the source (no positions needed)."""
        return self.order[first] < self.order[second]

    def is_within(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        """True when ``container`` is ``node`` or one of its ancestors."""
        return node is container or any(a is container for a in self.ancestors(node))

    def method_class(self, func: cst.FunctionDef) -> cst.ClassDef | None:
        """The class ``func`` is a method of (directly in its body), or None."""
        parent = self.parent.get(func)
        if isinstance(parent, cst.IndentedBlock):
            grand = self.parent.get(parent)
            if isinstance(grand, cst.ClassDef):
                return grand
        return None


def _record_function(index: ModuleIndex, node: cst.FunctionDef) -> None:
    index.functions.append(node)
    index.functions_by_name[node.name.value].append(node)


# The tables :meth:`ModuleIndex.combine` concatenates, and those grouped by name that it merges.
_LIST_TABLES = (
    "calls",
    "functions",
    "lambdas",
    "classes",
    "withs",
    "ifs",
    "fors",
    "assigns",
    "imports",
    "returns",
    "attributes",
)
_GROUPED_TABLES = ("functions_by_name", "names")

# What each node type adds to the index; each recorder takes a node of its key's type.
_RECORDERS: dict[type[cst.CSTNode], Callable[[ModuleIndex, Any], None]] = {
    cst.Call: lambda index, node: index.calls.append(node),
    cst.Name: lambda index, node: index.names[node.value].append(node),
    cst.Attribute: lambda index, node: index.attributes.append(node),
    cst.FunctionDef: _record_function,
    cst.Lambda: lambda index, node: index.lambdas.append(node),
    cst.ClassDef: lambda index, node: index.classes.append(node),
    cst.With: lambda index, node: index.withs.append(node),
    cst.If: lambda index, node: index.ifs.append(node),
    cst.For: lambda index, node: index.fors.append(node),
    cst.Assign: lambda index, node: index.assigns.append(node),
    cst.AnnAssign: lambda index, node: index.assigns.append(node),
    cst.AugAssign: lambda index, node: index.assigns.append(node),
    cst.Import: lambda index, node: index.imports.append(node),
    cst.ImportFrom: lambda index, node: index.imports.append(node),
    cst.Return: lambda index, node: index.returns.append(node),
}


def subtree(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, in libcst's visit order, without libcst's visit.

    libcst's visit rebuilds each node it passes; reading the child fields builds nothing, which
    makes a walk several times faster on large expressions and statements.
    """
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(reversed(_children(current)))


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    try:
        fields = _child_fields(type(node))
    except _NoChildOrder:  # libcst's sources are not installed: its own (slower) accessor
        return list(node.children)
    children: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        if _is_node(type(value)):
            children.append(value)
        elif type(value) in (tuple, list):
            children.extend(item for item in value if _is_node(type(item)))
    return children


class _NoChildOrder(Exception):
    """libcst's source is unavailable, so the fast walk cannot know a node's child order."""


_VISITED_FIELD = re.compile(r'visit_\w+\(\s*self,\s*"(\w+)"')


@cache
def _child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of ``node_type`` that hold children, in the order its libcst visit takes them.

    Read from libcst's own ``_visit_and_replace_children`` (every node class spells it as calls
    ``visit_*(self, "field", ...)`` in source order); tests/test_index_walk.py checks the walk
    against libcst's visit on every corpus file and rule example.
    """
    try:
        source = inspect.getsource(node_type._visit_and_replace_children)
    except (OSError, TypeError) as exc:
        raise _NoChildOrder(node_type.__name__) from exc
    # A field visited on either branch of a conditional (ImportFrom.names) is named twice.
    return tuple(dict.fromkeys(_VISITED_FIELD.findall(source)))


def _is_node_type(value_type: type) -> bool:
    # One issubclass per type: isinstance on libcst's ABC-based classes is slow.
    return issubclass(value_type, cst.CSTNode)


# Cached per type. Typed as a plain callable: mypy checks a cached function's arguments against
# Hashable and wrongly rejects ``type(x)`` of an untyped ``x`` there.
_is_node: Callable[[type], bool] = cache(_is_node_type)


def _parents_after_edit(
    parts: list[tuple[cst.Module, ModuleIndex]],
    previous_parts: list[tuple[cst.Module, ModuleIndex]],
    previous: dict[cst.CSTNode, cst.CSTNode],
) -> dict[cst.CSTNode, cst.CSTNode]:
    """The parent table of the merge of ``parts``, from ``previous``, the merge of
    ``previous_parts``: a copy (a C-level clone of the table) less the nodes of the parts gone,
    plus those of the parts new. The top-level nodes still name the old module; the caller
    points them at the new one. Parts are told apart by identity: a part kept is the same
    object. A node of a part gone may stand in a new part (a class assembled again from the
    members that did not change): it is not removed, and adding gives it its new parent.

    Only the nodes no new part holds are removed, found by a set difference in C: a class
    assembled again shares all but its edited member's nodes with the one it replaces (20,000
    removed and added again one by one cost more than the rest of the merge)."""
    kept = {id(part) for _, part in parts}
    before = {id(part) for _, part in previous_parts}
    gone = [part.parent.keys() for _, part in previous_parts if id(part) not in kept]
    new = [part.parent for _, part in parts if id(part) not in before]
    parent = previous.copy()
    if gone:
        stale = set().union(*gone) if len(gone) > 1 else set(gone[0])
        for table in new:
            stale.difference_update(table)
        for node in stale:
            parent.pop(node, None)
    for table in new:
        parent.update(table)
    return parent
