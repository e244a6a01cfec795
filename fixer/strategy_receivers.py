"""Whether a `.run(` call's receiver can be a strategy, decided on CPython's tree (pre-filter stage 4).

`session.run(fetches)` and `strategy.run(fn, args=...)` look alike to the text stages, so a file
of TF 1 session code (`tf_keras/backend.py`) reaches libcst for every rule that starts from a
`strategy.run` call. Those rules only see the calls :class:`fixer.tf.replica.ReplicaModel` keeps:
`<x>.run(...)`/`<x>.experimental_run_v2(...)` and `<x>.extended.call_for_each_replica(...)` where
:meth:`fixer.tf.strategies.StrategyModel.is_strategy` holds for ``x``. This module states the
necessary conditions of that predicate on CPython's tree, each looser than the model's:

- ``x`` calls a strategy constructor: a callable whose last name ends in ``Strategy`` or is
  ``get_strategy``, a name imported or assigned from such a one, a name imported from a project
  module (which may hand a strategy class on), or any function of the module when one of them
  returns such a call (a strategy factory);
- ``x`` is ``<y>.distribute_strategy`` (a Keras model's strategy);
- ``x`` (a name or attribute chain) is a strategy key: assigned a constructor call or another key,
  a parameter annotated with a strategy class, used with a strategy-only attribute
  (`x.num_replicas_in_sync`), or entered as `x.scope()` / called as `x.run(fn, args=...)` while
  named like a strategy, being a parameter or keyword name, or used both ways.

When unsure the answer is True: the model's extra tests (the module imports TensorFlow, the key
is not bound to another object, the name a parameter is passed at a call site) are not made.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from fixer.tf.module_summary import dotted
from fixer.tf.strategies import STRATEGY_ONLY_ATTRIBUTES, looks_like_strategy_name

if TYPE_CHECKING:
    from collections.abc import Iterable

_RUN_METHODS = frozenset({"run", "experimental_run_v2"})
# Roots whose `from <module> import <name>` binds that very name (fixer/tf/names.py): any other
# module may be the project's own, handing on a TensorFlow name under another one.
_TF_ROOTS = frozenset({"tensorflow", "keras", "tf_keras"})


def run_receiver(call: ast.Call) -> ast.expr | None:
    """The object a replica-running call runs on: ``x`` of `x.run(...)`, `x.experimental_run_v2(...)`
    and `x.extended.call_for_each_replica(...)`; None for any other call."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in _RUN_METHODS:
        return func.value
    if func.attr == "call_for_each_replica" and isinstance(func.value, ast.Attribute) and func.value.attr == "extended":
        return func.value.value
    return None


# The kinds of node the evidence reads (and attributes named in STRATEGY_ONLY_ATTRIBUTES):
# fixer/ast_facts.py collects them in its walk of the module.
EVIDENCE_NODES = frozenset(
    {
        ast.Call,
        ast.Assign,
        ast.AnnAssign,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.Lambda,
        ast.Return,
        ast.ImportFrom,
        ast.Import,
    }
)


def _is_model_strategy(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "distribute_strategy"


def _strategy_class_name(name: str) -> bool:
    """A name a `tf.distribute` strategy class (or `get_strategy`) may be spelled with."""
    return name.endswith("Strategy") or name == "get_strategy"


def _may_reexport(node: ast.ImportFrom) -> bool:
    """`from <module> import x` where the module may be the project's own (it may hand on any
    TensorFlow name under any other: fixer/tf/project_imports.py `reexported`)."""
    return bool(node.level) or (node.module or "").split(".")[0] not in _TF_ROOTS


class StrategyEvidence:
    """What the module's evidence nodes (:data:`EVIDENCE_NODES`) say about which expressions may
    hold a strategy, and which names or attributes may hold a strategy's scope object."""

    def __init__(self, nodes: Iterable[ast.AST]) -> None:
        self.aliases: set[str] = set()  # names that may call a strategy constructor
        self.functions: set[str] = set()
        self.returned: set[str] = set()  # last names of the callables of returned calls
        self.keys: set[str] = set()  # strategy keys known without following assignments
        self.scoped: set[str] = set()
        self.run_with_fn: set[str] = set()
        self.parameters: set[str] = set()  # parameter names, and keyword names of calls
        self.assigned: list[tuple[list[str], ast.expr]] = []  # (target keys, value)
        self.annotated: list[tuple[str, ast.expr]] = []  # parameters with their annotations
        self.renamed: list[tuple[list[str], str]] = []  # `A = x.B`: (names, "B")
        self.scope_objects: dict[str, list[ast.expr]] = {}  # `k = x.scope()`: k -> [x]
        for node in nodes:
            self._visit(node)
        self._spread_aliases()
        # After the walk: an import below a function still names what its annotations mean.
        self.keys.update(name for name, annotation in self.annotated if self._names_strategy_class(annotation))
        if any(_strategy_class_name(name) or name in self.aliases for name in self.returned):
            self.aliases |= self.functions  # some function returns a strategy: any may be the factory
        self._keys_by_use()
        self._spread_through_assignments()

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Attribute):
            if node.attr in STRATEGY_ONLY_ATTRIBUTES:
                self._add_key(self.keys, node.value)
        elif isinstance(node, ast.Call):
            self._visit_call(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            self._visit_assignment(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            self._visit_function(node)
        elif isinstance(node, ast.Return):
            if isinstance(node.value, ast.Call):
                self._add_last_name(self.returned, node.value.func)
        elif isinstance(node, ast.ImportFrom):
            reexport = _may_reexport(node)
            for alias in node.names:
                if reexport or _strategy_class_name(alias.name):
                    self.aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            # `import a.b.MirroredStrategy as MS`: fixer/tf/names.py binds MS to that dotted name.
            for alias in node.names:
                if alias.asname and _strategy_class_name(alias.name.rsplit(".", 1)[-1]):
                    self.aliases.add(alias.asname)

    def _visit_call(self, call: ast.Call) -> None:
        self.parameters.update(keyword.arg for keyword in call.keywords if keyword.arg is not None)
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        if func.attr == "scope":
            self._add_key(self.scoped, func.value)
        elif func.attr == "run" and call.args and any(keyword.arg == "args" for keyword in call.keywords):
            first = call.args[0]
            if isinstance(first, (ast.Name, ast.Attribute, ast.Lambda, ast.Starred)):
                self._add_key(self.run_with_fn, func.value)

    def _visit_assignment(self, node: ast.Assign | ast.AnnAssign) -> None:
        value = node.value
        if value is None:
            return
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        keys = [key for key in map(dotted, targets) if key is not None]
        if keys and isinstance(value, (ast.Call, ast.Name, ast.Attribute)):
            self.assigned.append((keys, value))
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "scope":
            for key in keys:
                self.scope_objects.setdefault(key, []).append(value.func.value)
        # `MS = tf.distribute.MirroredStrategy`: an alias (fixer/tf/names.py `_add_assigned_aliases`).
        last = _last_name(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if last is not None:
            self.renamed.append(([key for key in keys if "." not in key], last))

    def _spread_aliases(self) -> None:
        """Names assigned a strategy class or another alias of one, to a fixed point."""
        changed = True
        while changed:
            changed = False
            for names, last in self.renamed:
                if (_strategy_class_name(last) or last in self.aliases) and not self.aliases.issuperset(names):
                    self.aliases.update(names)
                    changed = True

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if not isinstance(node, ast.Lambda):
            self.functions.add(node.name)
        arguments = node.args
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            self.parameters.add(arg.arg)
            if arg.annotation is not None:
                self.annotated.append((arg.arg, arg.annotation))

    def _names_strategy_class(self, annotation: ast.expr) -> bool:
        """The annotation may name a strategy class (any part of it, a string included)."""
        for node in ast.walk(annotation):
            if isinstance(node, ast.Name) and (_strategy_class_name(node.id) or node.id in self.aliases):
                return True
            if isinstance(node, ast.Attribute) and _strategy_class_name(node.attr):
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Strategy" in node.value:
                return True
        return False

    def _keys_by_use(self) -> None:
        """Objects entered as `x.scope()` or called as `x.run(fn, args=...)` (shapes other objects
        share): strategies when named like one, passed in (a parameter), or used both ways."""
        for key in self.scoped | self.run_with_fn:
            if (
                looks_like_strategy_name(key)
                or key in self.parameters
                or (key in self.scoped and key in self.run_with_fn)
            ):
                self.keys.add(key)

    def _spread_through_assignments(self) -> None:
        """Keys assigned a constructor call, or (to a fixed point) another strategy key.

        Flow-insensitive on purpose, as StrategyModel's keys are: any assignment anywhere counts,
        whatever reaches the `.run(` (fixer/semantic answers that on libcst, which this stage avoids).
        """
        pending = self.assigned
        changed = True
        while changed:
            changed = False
            left = []
            for keys, value in pending:
                if self.constructs(value) or dotted(value) in self.keys:
                    self.keys.update(keys)
                    changed = True
                else:
                    left.append((keys, value))
            pending = left

    def constructs(self, node: ast.expr) -> bool:
        """``node`` may call a strategy constructor or `get_strategy` (its callable is named like one,
        or is an alias, a project import or a factory of one)."""
        if not isinstance(node, ast.Call):
            return False
        name = _last_name(node.func)
        return name is not None and (_strategy_class_name(name) or name in self.aliases)

    def builds_strategy(self, call: ast.Call) -> bool:
        """``call`` may build a new strategy (:meth:`constructs`, but not `get_strategy()`, which
        returns the one in use): what `StrategyModel.all_constructions` may find."""
        return _last_name(call.func) != "get_strategy" and self.constructs(call)

    def may_be_strategy(self, receiver: ast.expr) -> bool:
        """What :meth:`StrategyModel.is_strategy` may say of ``receiver``, loosened."""
        return _is_model_strategy(receiver) or self.constructs(receiver) or dotted(receiver) in self.keys

    def may_enter_scope(self, entered: ast.expr) -> bool:
        """What :attr:`StrategyModel.scope_blocks` may say of a `with` item entering ``entered``,
        loosened: `x.scope(...)` of an ``x`` that may be a strategy, or a name or attribute chain
        assigned such a call anywhere in the module (``StrategyModel.scope_object_value`` takes
        the binding that reaches the `with`, and none of an imported name)."""
        if isinstance(entered, ast.Call):
            func = entered.func
            return isinstance(func, ast.Attribute) and func.attr == "scope" and self.may_be_strategy(func.value)
        key = dotted(entered)
        return key is not None and any(self.may_be_strategy(x) for x in self.scope_objects.get(key, ()))

    @staticmethod
    def _add_key(keys: set[str], node: ast.expr) -> None:
        key = dotted(node)
        if key is not None:
            keys.add(key)

    @staticmethod
    def _add_last_name(names: set[str], node: ast.expr) -> None:
        name = _last_name(node)
        if name is not None:
            names.add(name)


def _last_name(node: ast.expr) -> str | None:
    """The last name of a name or attribute chain (``MirroredStrategy`` of
    ``tf.distribute.MirroredStrategy``), None for other expressions."""
    name = dotted(node)
    return name.rsplit(".", 1)[-1] if name is not None else None
