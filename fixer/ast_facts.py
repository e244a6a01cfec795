"""One walk of CPython's tree for every stage the engine runs on it before libcst.

Before libcst is paid for, the engine asks several questions of CPython's tree of a file: is it
too large or too deeply chained for libcst (:func:`fixer.engine.complexity_error`), where are
its docstrings (the pre-filter's third stage, fixer/code_text.py), which structures do the rules
start from (the fourth stage's facts, fixer/facts.py), and may a `.run(` call's receiver be a
strategy (fixer/strategy_receivers.py); and once a file has findings, which of its lines a test
expects to raise (fixer/expected_failure.py). Each once walked the whole tree on its own; in a file
the facts then drop, those walks cost about as much as CPython's parse. :class:`ModuleFacts`
is what one iterative walk collects for all of them; each consumer reads its part.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property

from fixer.strategy_receivers import EVIDENCE_NODES, StrategyEvidence, run_receiver
from fixer.tf.strategies import STRATEGY_ONLY_ATTRIBUTES

_JIT_KEYWORDS = frozenset({"jit_compile", "experimental_compile"})
_DISTRIBUTE_MODULE = "tensorflow.distribute"
_COMPAT_V2_EXPERIMENTAL = "tensorflow.compat.v2.distribute.experimental"
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class ModuleFacts:
    """What one walk of a module's CPython tree tells the stages before libcst.

    For the complexity guard: ``nodes``, the number of syntax nodes (as :func:`ast.walk`
    counts them), and ``bool_operands``, the most `and`/`or` operands nested along one path.
    For the comment and docstring stage: ``docstrings``, the docstring expressions of the module
    and of every class and function.

    For the facts: ``identifiers``, every name, attribute, keyword, import and definition name
    in the code, and ``attributes`` the names after a dot (`x.<name>`); ``called``, the method
    names of calls `x.m(...)`, and ``called_with_args`` those with arguments; ``defined``, names
    of functions and classes; ``jit_true``, a `jit_compile=True` (or `experimental_compile=True`)
    argument; ``distribute_import``, a `from tensorflow.distribute... import` (or from
    `tensorflow.compat.v2.distribute.experimental`).
    ``run_receivers``: the ``x`` of every `x.run(...)`, `x.experimental_run_v2(...)` and
    `x.extended.call_for_each_replica(...)`; ``scope_entries``: what every `with` item enters
    that is `x.scope(...)` or a bare name or attribute (a scope object kept in a variable);
    ``def_in_entries``: for each function defined inside such a `with`, outside every function
    (classes may lie between: ReplicaModel.probable_replica_functions), the items of the `with`
    blocks around it; ``evidence``: the nodes fixer/strategy_receivers.py reads to tell whether
    an expression may be a strategy (:attr:`strategy_run`, :attr:`scope_like_with` and
    :attr:`def_in_with` are decided from them when first asked).

    For the lines a test expects to raise (fixer/expected_failure.py): ``with_blocks``, every
    `with` and `async with`, and ``calls``, every call.
    """

    nodes: int
    bool_operands: int
    docstrings: tuple[ast.Constant, ...]
    identifiers: frozenset[str]
    attributes: frozenset[str]
    called: frozenset[str]
    called_with_args: frozenset[str]
    defined: frozenset[str]
    jit_true: bool
    distribute_import: bool
    run_receivers: tuple[ast.expr, ...] = field(repr=False)
    scope_entries: tuple[ast.expr, ...] = field(repr=False)
    def_in_entries: tuple[tuple[ast.expr, ...], ...] = field(repr=False)
    evidence: tuple[ast.AST, ...] = field(repr=False)
    with_blocks: tuple[ast.With | ast.AsyncWith, ...] = field(repr=False)
    calls: tuple[ast.Call, ...] = field(repr=False)

    @cached_property
    def strategy_run(self) -> bool:
        """A `.run(`-like call whose receiver may be a strategy (fixer/strategy_receivers.py)."""
        return any(self._strategies.may_be_strategy(receiver) for receiver in self.run_receivers)

    @cached_property
    def strategy_constructed(self) -> bool:
        """A call that may construct a strategy (fixer/strategy_receivers.py): a strategy class
        named only in an `isinstance` test, a message or an annotation constructs none."""
        return any(self._strategies.builds_strategy(call) for call in self.calls)

    @cached_property
    def scope_like_with(self) -> bool:
        """A `with` that may enter a strategy's scope: `x.scope()` of an ``x`` that may be a
        strategy, or a name or attribute assigned such a call (fixer/strategy_receivers.py)."""
        return any(self._strategies.may_enter_scope(entered) for entered in self.scope_entries)

    @cached_property
    def def_in_with(self) -> bool:
        """A function defined inside a `with` that may enter a strategy's scope, outside every function."""
        entering = self._strategies.may_enter_scope
        return any(any(entering(entered) for entered in entries) for entries in self.def_in_entries)

    @cached_property
    def _strategies(self) -> StrategyEvidence:
        # Built at most once, and only for a module some fact asks about: most files never need it.
        return StrategyEvidence(self.evidence)

    @classmethod
    def of(cls, tree: ast.Module) -> ModuleFacts:
        """The facts of ``tree``, in one iterative walk (trees may be deep)."""
        return _Walk(tree).facts()


class _Context:
    """What the nodes below one node inherit, restored when the walk leaves them (a stack marker)."""

    __slots__ = ("in_with", "chain")

    def __init__(self, in_with: tuple[ast.expr, ...] | None, chain: int) -> None:
        self.in_with = in_with
        self.chain = chain


class _Walk:
    """The walk itself: pre-order over a stack, with :class:`_Context` markers in it."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.identifiers: set[str] = set()
        self.attributes: set[str] = set()
        self.called: set[str] = set()
        self.called_with_args: set[str] = set()
        self.defined: set[str] = set()
        self.docstrings: list[ast.Constant] = []
        self.receivers: list[ast.expr] = []
        self.scope_entries: list[ast.expr] = []
        self.def_in_entries: list[tuple[ast.expr, ...]] = []
        self.evidence: list[ast.AST] = []
        self.with_blocks: list[ast.With | ast.AsyncWith] = []
        self.calls: list[ast.Call] = []
        self.jit_true = self.distribute_import = False

    def facts(self) -> ModuleFacts:
        nodes, deepest = self._walk()
        return ModuleFacts(
            nodes=nodes,
            bool_operands=deepest + 1,
            docstrings=tuple(self.docstrings),
            identifiers=frozenset(self.identifiers),
            attributes=frozenset(self.attributes),
            called=frozenset(self.called),
            called_with_args=frozenset(self.called_with_args),
            defined=frozenset(self.defined),
            jit_true=self.jit_true,
            distribute_import=self.distribute_import,
            run_receivers=tuple(self.receivers),
            scope_entries=tuple(self.scope_entries),
            def_in_entries=tuple(self.def_in_entries),
            evidence=tuple(self.evidence),
            with_blocks=tuple(self.with_blocks),
            calls=tuple(self.calls),
        )

    def _walk(self) -> tuple[int, int]:
        """Visit every node; the node count and the deepest `and`/`or` chain (extra operands)."""
        identifiers = self.identifiers
        attributes = self.attributes
        evidence = self.evidence
        nodes = deepest = 0
        # What the `with` blocks around the current node that may enter a scope enter (None:
        # inside a function, where a def is never the step of a scope's elided loop), and the
        # `and`/`or` operands nested above it. Changed only below a few kinds of node: a _Context
        # pushed before their children restores the outer values once the walk is past them.
        in_with: tuple[ast.expr, ...] | None = ()
        chain = 0
        stack: list[ast.AST | _Context] = [self.tree]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            kind = type(node)
            if kind is ast.Name:
                identifiers.add(node.id)  # type: ignore[union-attr]
                nodes += 2  # and its context (Load, Store, Del), which has no children
                continue
            if kind is ast.Constant:
                nodes += 1
                continue
            if kind is _Context:
                in_with, chain = node.in_with, node.chain  # type: ignore[union-attr]
                continue
            nodes += 1
            if kind is ast.Attribute:
                attr = node.attr  # type: ignore[union-attr]
                identifiers.add(attr)
                attributes.add(attr)
                if attr in STRATEGY_ONLY_ATTRIBUTES:  # the only attributes the evidence reads
                    evidence.append(node)  # type: ignore[arg-type]
            elif kind is ast.Call:
                self._call(node)  # type: ignore[arg-type]
            elif kind is ast.keyword:
                self._keyword(node)  # type: ignore[arg-type]
            elif kind is ast.BoolOp:
                push(_Context(in_with, chain))
                chain += len(node.values) - 1  # type: ignore[union-attr]
                deepest = max(deepest, chain)
            elif kind in _FUNCTIONS or kind is ast.ClassDef or kind is ast.Lambda:
                push(_Context(in_with, chain))
                in_with = self._definition(node, in_with)  # type: ignore[arg-type]
            elif kind is ast.With or kind is ast.AsyncWith:
                self.with_blocks.append(node)  # type: ignore[arg-type]
                entering = [item.context_expr for item in node.items if _may_enter_scope(item.context_expr)]  # type: ignore[union-attr]
                self.scope_entries.extend(entering)
                if entering and in_with is not None:
                    push(_Context(in_with, chain))
                    in_with = (*in_with, *entering)
            elif kind is ast.alias:
                identifiers.update(node.name.split("."))  # type: ignore[union-attr]
                if node.asname:  # type: ignore[union-attr]
                    identifiers.add(node.asname)  # type: ignore[union-attr]
            elif kind is ast.ImportFrom:
                self.distribute_import = self.distribute_import or _imports_from_distribute(node)  # type: ignore[arg-type]
            elif kind is ast.Module:
                self._docstring(node)  # type: ignore[arg-type]
            if kind in EVIDENCE_NODES:
                evidence.append(node)  # type: ignore[arg-type]
            for name in node._fields:  # type: ignore[union-attr]
                value = getattr(node, name, None)
                if isinstance(value, ast.AST):
                    push(value)
                elif isinstance(value, list):
                    extend(child for child in value if isinstance(child, ast.AST))
        return nodes, deepest

    def _call(self, call: ast.Call) -> None:
        self.calls.append(call)
        func = call.func
        if isinstance(func, ast.Attribute):
            self.called.add(func.attr)
            if call.args or call.keywords:
                self.called_with_args.add(func.attr)
            receiver = run_receiver(call)
            if receiver is not None:
                self.receivers.append(receiver)

    def _keyword(self, keyword: ast.keyword) -> None:
        if keyword.arg is None:
            return
        self.identifiers.add(keyword.arg)
        value = keyword.value
        if keyword.arg in _JIT_KEYWORDS and isinstance(value, ast.Constant) and value.value is True:
            self.jit_true = True

    def _definition(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda,
        in_with: tuple[ast.expr, ...] | None,
    ) -> tuple[ast.expr, ...] | None:
        """Record a definition; what ``in_with`` is for the nodes below it."""
        if isinstance(node, ast.Lambda):
            return None
        self.defined.add(node.name)
        self.identifiers.add(node.name)
        self._docstring(node)
        if isinstance(node, ast.ClassDef):
            return in_with
        if in_with:
            self.def_in_entries.append(in_with)
        return None

    def _docstring(self, node: ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if not node.body:
            return
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            self.docstrings.append(first.value)


def _imports_from_distribute(node: ast.ImportFrom) -> bool:
    module = node.module or ""
    return not node.level and (module.startswith(_DISTRIBUTE_MODULE) or module == _COMPAT_V2_EXPERIMENTAL)


def _may_enter_scope(entered: ast.expr) -> bool:
    """`with x.scope():`, or `with scope:` over a name or attribute that may hold one."""
    if isinstance(entered, (ast.Name, ast.Attribute)):
        return True
    return isinstance(entered, ast.Call) and isinstance(entered.func, ast.Attribute) and entered.func.attr == "scope"
