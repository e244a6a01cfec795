"""Is a name bound on every path to a statement? The question a fix asks before it writes a name.

Walks back from the statement over the ones before it in its block, then out through the blocks
that hold it, up to the function (whose parameters bind) or the module: a statement binds on
every path when all its arms do (an arm that returns or raises counts). It reads only the parent
table and the module-level tables of an index, so both a module's :class:`fixer.tf.index.ModuleIndex`
and a fix check's spliced index (the fixed function's own nodes, the original's module level;
``fixer.tf.fix_scope.SplicedIndex``) answer it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

import libcst as cst

from fixer.semantic.targets import target_names

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

FunctionLike = cst.FunctionDef | cst.Lambda


class PathIndex(Protocol):
    """What :func:`bound_on_every_path` reads of an index: a ModuleIndex, or a fix check's
    spliced index (the fixed function's nodes, the original's module level)."""

    @property
    def parent(self) -> Mapping[cst.CSTNode, cst.CSTNode]: ...

    @property
    def functions(self) -> Sequence[cst.FunctionDef]: ...

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]: ...

    def enclosing_function(self, node: cst.CSTNode) -> FunctionLike | None: ...

    def in_function(self, table: str, func: FunctionLike | None) -> list[Any]: ...

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement: ...


def _has_parameter(func: FunctionLike, name: str) -> bool:
    """``func``'s signature binds ``name`` (``*args`` and ``**kwargs`` included)."""
    params = func.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)]
    return any(param.name.value == name for param in every)


def _exits(block: cst.BaseSuite) -> bool:
    """True when a block always leaves by ``return``, ``raise``, ``continue`` or ``break``."""
    for statement in _statements(block):
        small = statement.body if isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite) else ()
        if any(isinstance(s, cst.Return | cst.Raise | cst.Continue | cst.Break) for s in small):
            return True
    return False


def _statements(block: cst.BaseSuite) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    return [block]  # type: ignore[list-item]  # a one-line suite: callers take it like a simple line


def _small_binds(node: cst.BaseSmallStatement, name: str) -> bool:
    if isinstance(node, cst.Assign):
        return any(name in _target_names(t.target) for t in node.targets)
    if isinstance(node, cst.AnnAssign):
        return node.value is not None and name in _target_names(node.target)
    if isinstance(node, cst.Import | cst.ImportFrom):
        return name in _imported_names(node)
    return False


def _target_names(target: cst.BaseExpression) -> set[str]:
    return {name.value for name in target_names(target)}


def _imported_names(node: cst.Import | cst.ImportFrom) -> set[str]:
    """The names an import binds: ``tf`` for ``import tensorflow as tf``, ``os`` for ``import os.path``."""
    if isinstance(node.names, cst.ImportStar):
        return set()
    found = set()
    for alias in node.names:
        if alias.asname is not None:
            found |= _target_names(cast("cst.BaseExpression", alias.asname.name))
            continue
        root: cst.BaseExpression = alias.name
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name):
            found.add(root.value)
    return found


def _binds_on_every_path(statement: cst.CSTNode, name: str) -> bool:
    """True when running ``statement`` to its end always leaves ``name`` bound.

    Paths that leave early (return/raise) do not reach what follows, so they count as binding.
    Loops may run zero times and bind nothing; a `with` body always runs.
    """
    if isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite):
        return any(_small_binds(s, name) for s in statement.body)
    if isinstance(statement, cst.FunctionDef | cst.ClassDef):
        return statement.name.value == name
    if isinstance(statement, cst.With):
        return name in _compound_binds(statement, statement.body) or _block_binds(statement.body, name)
    if isinstance(statement, cst.If):
        if statement.orelse is None:
            return False
        other = statement.orelse
        other_binds = _binds_on_every_path(other, name) if isinstance(other, cst.If) else _block_binds(other.body, name)
        return _block_binds(statement.body, name) and other_binds
    if isinstance(statement, cst.Try):
        handlers_bind = all(_block_binds(h.body, name) for h in statement.handlers)
        return _block_binds(statement.body, name) and handlers_bind
    if isinstance(statement, cst.For):
        return False
    return False


def _block_binds(block: cst.BaseSuite, name: str) -> bool:
    """True when every path through ``block`` binds ``name`` or leaves early."""
    if _exits(block):
        return True
    return any(_binds_on_every_path(s, name) for s in _statements(block))


def _binds_on_some_path(statement: cst.CSTNode, name: str) -> bool:
    """True when some path through ``statement`` may bind ``name`` (assignment-like forms only)."""
    found = False

    class _Find(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            nonlocal found
            found = found or _small_binds(node, name)

        def visit_For(self, node: cst.For) -> None:
            nonlocal found
            found = found or name in _target_names(node.target)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            nonlocal found
            found = found or node.name.value == name
            return False  # its body binds its own locals

    statement.visit(_Find())
    return found


def bound_on_every_path(index: PathIndex, name: str, at: cst.CSTNode) -> bool:
    """True when every path from the start of the code that runs ``at`` binds ``name`` first.

    Walks the statements before ``at`` in its block, then before that block's statement in
    the enclosing block, and so on up to the function (whose parameters bind) or the module.
    Code in a function reads a module-level name when it is called, usually after the module
    ran, so a module-level binding anywhere counts there. A name bound to ``None`` somewhere in
    the same scope is the `strategy = None; if multi: strategy = ...` guard: not bound to an
    object on every path.
    """
    if _assigned_none(index, name, index.enclosing_function(at)):
        return False
    current: cst.CSTNode = index.statement_of(at) if not isinstance(at, cst.BaseStatement) else at
    if any(name in _expression_binds(a) for a in _ancestors_until(index, at, current)):
        return True  # a lambda parameter or a comprehension target
    while True:
        parent = index.parent.get(current)
        if parent is None:
            return False
        if name in _compound_binds(parent, current):
            return True
        if isinstance(parent, cst.IndentedBlock | cst.Module):
            for sibling in parent.body:
                if sibling is current:
                    break
                if _binds_on_every_path(sibling, name):
                    return True
        if isinstance(parent, cst.FunctionDef | cst.Lambda):
            if _has_parameter(parent, name):
                return True
            if isinstance(parent, cst.FunctionDef) and _binds_on_some_path(parent.body, name):
                return False  # a local of this function: module bindings do not reach it
            return _module_binds(index, name)
        if isinstance(parent, cst.Module):
            return False
        current = parent


def _ancestors_until(index: PathIndex, node: cst.CSTNode, stop: cst.CSTNode) -> list[cst.CSTNode]:
    found = []
    for ancestor in index.ancestors(node):
        if ancestor is stop:
            break
        found.append(ancestor)
    return found


def _expression_binds(node: cst.CSTNode) -> set[str]:
    """Names an expression binds for its inner parts: lambda parameters, comprehension targets."""
    if isinstance(node, cst.Lambda):
        return {p.name.value for p in (*node.params.params, *node.params.posonly_params, *node.params.kwonly_params)}
    if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
        names: set[str] = set()
        comp: cst.CompFor | None = node.for_in
        while comp is not None:
            names |= _target_names(comp.target)
            comp = comp.inner_for_in
        return names
    return set()


def _compound_binds(parent: cst.CSTNode, child: cst.CSTNode) -> set[str]:
    """Names a compound statement binds for the body ``child`` (loop target, `as` names)."""
    if isinstance(parent, cst.For) and child is parent.body:
        return _target_names(parent.target)
    if isinstance(parent, cst.With) and child is parent.body:
        return set().union(set(), *(_target_names(i.asname.name) for i in parent.items if i.asname is not None))
    if isinstance(parent, cst.ExceptHandler) and child is parent.body and parent.name is not None:
        return _target_names(parent.name.name)
    return set()


def _module_binds(index: PathIndex, name: str) -> bool:
    module_assigns = index.in_function("assigns", None)
    if any(_small_binds(a, name) for a in module_assigns if isinstance(a, cst.Assign | cst.AnnAssign)):
        return not _assigned_none(index, name, None)
    return any(f.name.value == name and index.enclosing_function(f) is None for f in index.functions)


def _assigned_none(index: PathIndex, name: str, func: FunctionLike | None) -> bool:
    """True when ``func`` (None: module level) assigns ``None`` to ``name`` somewhere."""
    return any(
        isinstance(assign, cst.Assign)
        and isinstance(assign.value, cst.Name)
        and assign.value.value == "None"
        and any(name in _target_names(t.target) for t in assign.targets)
        for assign in index.in_function("assigns", func)
    )


def rebound_below(index: PathIndex, name: str, at: cst.CSTNode) -> cst.BaseStatement | None:
    """The first statement after ``at`` in the same scope that may bind ``name`` again, or None.

    Walks the statements after ``at`` in its block, then after that block's statement in the
    enclosing block, up to the function or the module. A read at ``at`` then sees an object the
    code below no longer uses: a notebook cell that makes its strategy after the line, a script
    that makes a second strategy for the training below. Nested functions bind their own locals.
    """
    current: cst.CSTNode = index.statement_of(at) if not isinstance(at, cst.BaseStatement) else at
    while True:
        parent = index.parent.get(current)
        if parent is None or isinstance(parent, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            return None
        if isinstance(parent, cst.IndentedBlock | cst.Module):
            later = False
            for sibling in parent.body:
                if later and _binds_on_some_path(sibling, name):
                    return sibling
                later = later or sibling is current
        if isinstance(parent, cst.Module):
            return None
        current = parent
