"""Replica functions (what `strategy.run` executes on every replica) and `tf.function` steps."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.tf.bindings import assignments_to
from fixer.tf.calls import argument_value
from fixer.tf.classes import methods_of_other_objects, resolve_method
from fixer.tf.keras_models import keras_steps
from fixer.tf.names import NameResolver, dotted_name
from fixer.tf.parameters import call_position, parameter, takes_receiver
from fixer.tf.strategies import StrategyModel, visible_defs

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from fixer.semantic.model import SemanticModel
    from fixer.tf.index import FunctionLike, ModuleIndex

RUN_METHODS = frozenset({"run", "experimental_run_v2"})
_PARTIAL = frozenset({"functools.partial"})
_TF_FUNCTION = "tensorflow.function"


@dataclass(frozen=True)
class RunCall:
    """One ``<strategy>.run(fn, args=...)`` call (or ``extended.call_for_each_replica``)."""

    call: cst.Call
    strategy: cst.BaseExpression
    fn: cst.BaseExpression | None
    targets: tuple[FunctionLike, ...]

    @property
    def args(self) -> cst.BaseExpression | None:
        """The expression given as ``args=`` (or the second positional argument)."""
        for position, arg in enumerate(self.call.args):
            if arg.keyword is not None and arg.keyword.value == "args":
                return arg.value
            if arg.keyword is None and position == 1:
                return arg.value
        return None


class ReplicaModel:
    """Which functions run in replica context, which steps call `strategy.run`, which are graphs."""

    def __init__(
        self,
        index: ModuleIndex,
        names: NameResolver,
        strategies: StrategyModel,
        semantic: Callable[[], SemanticModel],
    ) -> None:
        self.index = index
        self.names = names
        self.strategies = strategies
        self.semantic = semantic  # built on first use: most files never follow a binding
        # resolve_callable's answers by (node, near): rules ask it for every call of every
        # replica function, often the same calls.
        self._resolved: dict[tuple[cst.CSTNode, cst.CSTNode | None], tuple[FunctionLike, ...]] = {}

    @cached_property
    def run_calls(self) -> list[RunCall]:
        """Every call that runs a function on each replica, in source order."""
        found = []
        for call in self.index.calls:
            func = call.func
            if not isinstance(func, cst.Attribute):
                continue
            strategy: cst.BaseExpression | None = None
            if func.attr.value in RUN_METHODS and self.strategies.is_strategy(func.value):
                strategy = func.value
            elif (
                func.attr.value == "call_for_each_replica"
                and isinstance(func.value, cst.Attribute)
                and func.value.attr.value == "extended"
                and self.strategies.is_strategy(func.value.value)
            ):
                strategy = func.value.value
            if strategy is None:
                continue
            fn = argument_value(call, 0, "fn")
            targets = tuple(self.resolve_callable(fn, call)) if fn is not None else ()
            found.append(RunCall(call=call, strategy=strategy, fn=fn, targets=targets))
        return found

    def resolve_callable(
        self, node: cst.BaseExpression, near: cst.CSTNode | None = None, _depth: int = 0
    ) -> list[FunctionLike]:
        """The functions of this module an expression used as a callable may be.

        Follows what a name is bound to: a def (the one Python's scoping reaches from ``near``),
        ``fn = other`` / ``fn = functools.partial(f, ...)`` / ``fn = tf.function(f)``,
        ``fn = make_fn(...)`` where the local factory returns a function, and a parameter, through
        the arguments its function is called with.
        """
        if _depth == 0:
            key = (node, near)
            if key not in self._resolved:
                self._resolved[key] = tuple(self._resolve(node, near, 0))
            return list(self._resolved[key])
        return self._resolve(node, near, _depth)

    def _resolve(self, node: cst.BaseExpression, near: cst.CSTNode | None, _depth: int) -> list[FunctionLike]:
        if _depth > 4:
            return []
        if isinstance(node, cst.Lambda):
            return [node]
        if isinstance(node, cst.Call):
            callee = self.names.callee(node)
            if (callee in _PARTIAL or callee == _TF_FUNCTION) and node.args:
                return self.resolve_callable(node.args[0].value, near or node, _depth + 1)
            return self._factory_results(node, _depth)
        if isinstance(node, cst.Name):
            defs = visible_defs(self.index, node.value, near)
            if defs:
                return list(defs)
            if near is None:
                return []
            return self._follow_binding(node, near, _depth)
        if isinstance(node, cst.Attribute):
            resolved = resolve_method(self.index, node, near) if near is not None else None
            if resolved is not None:
                return list(resolved)
            methods = methods_of_other_objects(self.index, node, near)
            if methods or near is None:
                return list(methods)
            return self._follow_binding(node, near, _depth)
        return []

    def _factory_results(self, call: cst.Call, depth: int) -> list[FunctionLike]:
        """The functions a call to a local factory (``make_replica_fn(...)``) returns."""
        if not isinstance(call.func, cst.Name):
            return []
        found: list[FunctionLike] = []
        for factory in visible_defs(self.index, call.func.value, call):
            for ret in self.index.in_function("returns", factory):
                if ret.value is not None:
                    found.extend(self.resolve_callable(ret.value, ret, depth + 1))
        return found

    def _follow_binding(self, node: cst.BaseExpression, near: cst.CSTNode, depth: int) -> list[FunctionLike]:
        """What ``node`` (a name or ``self.x``) is assigned, or the arguments given for a parameter:
        for a name, the ``=`` bindings and parameters that reach ``near`` (``semantic``); ``self.x``
        (an attribute, which the semantic model does not follow), its assignments in the module."""
        key = dotted_name(node)
        if key is None or self.names.qualified(node) is not None:
            return []
        if "." in key and key.split(".", 1)[0] not in ("self", "cls"):
            return []  # `tape.gradient`, `np.mean`: not a binding of this module's functions
        if "." in key:  # self.fn = ...: set anywhere in the module
            return [
                f for a in assignments_to(self.index, key) for f in self.resolve_callable(a.value, a.value, depth + 1)
            ]
        found: list[FunctionLike] = []
        for binding in self.semantic().reaching(key, near):
            statement = binding.statement
            if isinstance(statement, cst.Assign) and any(t.target is binding.node for t in statement.targets):
                found.extend(self.resolve_callable(statement.value, statement.value, depth + 1))
            elif binding.kind is BindingKind.PARAMETER and isinstance(statement, cst.FunctionDef):
                position = call_position(statement, key, skip_first=takes_receiver(statement))
                for site in self.strategies.call_sites(statement):
                    arg = argument_value(site, position, key)
                    if arg is not None:
                        found.extend(self.resolve_callable(arg, site, depth + 1))
        return found

    def arguments_for(self, func: FunctionLike, name: str) -> list[tuple[cst.Call, cst.BaseExpression | None]] | None:
        """What each call of ``func`` in the module gives for its parameter ``name``.

        One ``(call, argument)`` per call site, the argument None when the call leaves it to the
        default or passes it through ``*args``. None when ``func`` is also run by
        ``strategy.run`` (its arguments are then the run's, which may be per-replica values),
        passed somewhere as a value, or has no call site.
        """
        if not isinstance(func, cst.FunctionDef) or any(func in run.targets for run in self.run_calls):
            return None
        if parameter(func, name) is None:
            return None
        position = call_position(func, name, skip_first=takes_receiver(func))
        sites = self.strategies.call_sites(func)
        if not sites:
            return None
        uses = [n for n in self.index.names.get(func.name.value, []) if n is not func.name]
        called = {id(site.func) for site in sites} | {
            id(site.func.attr) for site in sites if isinstance(site.func, cst.Attribute)
        }
        if any(id(n) not in called for n in uses):
            return None  # also used as a value (passed to a callback, stored): other callers unknown
        return [(site, argument_value(site, position, name)) for site in sites]

    def target_is_tf_function(self, run: RunCall) -> bool:
        """True when what ``run`` runs is itself a `tf.function` (``run`` then traces one graph)."""
        fn = run.fn
        if isinstance(fn, cst.Call) and self.names.callee(fn) == _TF_FUNCTION:
            return True
        return bool(run.targets) and all(self.is_tf_function(t) for t in run.targets)

    @cached_property
    def keras_steps(self) -> frozenset[cst.FunctionDef]:
        """`train_step`/`test_step` overrides of Keras models used under a strategy: `fit` and
        `evaluate` run them inside `strategy.run`, on every replica."""
        return keras_steps(self.index, self.names, self.strategies)

    @cached_property
    def replica_functions(self) -> frozenset[FunctionLike]:
        """Functions passed to `strategy.run` and Keras step overrides run under a strategy
        (:attr:`keras_steps`), plus what they call in this module (transitively)."""
        return self.reachable([*(target for run in self.run_calls for target in run.targets), *self.keras_steps])

    @cached_property
    def proven_run_calls(self) -> list[RunCall]:
        """`strategy.run` calls whose strategy is proven (:meth:`StrategyModel.is_proven_strategy`)."""
        return [run for run in self.run_calls if self.strategies.is_proven_strategy(run.strategy)]

    @cached_property
    def proven_replica_functions(self) -> frozenset[FunctionLike]:
        """Functions the proven `strategy.run` calls execute, and what they call in this module."""
        return self.reachable(target for run in self.proven_run_calls for target in run.targets)

    def in_proven_replica_context(self, node: cst.CSTNode) -> bool:
        """True when ``node`` runs inside a proven replica function (or a lambda within one)."""
        return self._runs_within(node, self.proven_replica_functions)

    def reachable(self, functions: Iterable[FunctionLike]) -> frozenset[FunctionLike]:
        """``functions`` and every function of this module they call, transitively."""
        pending = list(functions)
        seen: set[FunctionLike] = set()
        while pending:
            func = pending.pop()
            if func in seen:
                continue
            seen.add(func)
            for call in self.calls_in(func):
                pending.extend(self.resolve_callable(call.func, call))
        return frozenset(seen)

    def trains(self, run: RunCall) -> bool:
        """True unless every function ``run`` can reach is known and none of them updates state.

        A replica function that only computes and returns values (a demo that prints what each
        replica sees, an inference pass) is not a training step. Unknown targets count as training.
        """
        if not run.targets:
            return True
        return any(
            _called_name(call) in _TRAINING_CALLS
            for func in self.reachable(run.targets)
            for call in self.calls_in(func)
        )

    @cached_property
    def probable_replica_functions(self) -> frozenset[FunctionLike]:
        """Replica functions, plus steps written for `strategy.run` whose call is not in the file.

        A function defined inside `with strategy.scope():` that nothing in the module calls or
        passes anywhere is, by the usual convention, the step the elided loop runs on every
        replica (the seed articles show exactly that) — unless it calls `strategy.run` itself.
        """
        scope_blocks = {id(w) for w, _ in self.strategies.scope_blocks}
        steps = set(self.steps())
        extra = set()
        for func in self.index.functions:
            if func in self.replica_functions or not any(id(a) in scope_blocks for a in self.index.ancestors(func)):
                continue
            if func in steps:  # it calls strategy.run itself: cross-replica code, not a replica step
                continue
            if self.index.enclosing_function(func) is not None:
                continue
            if len(self.index.names.get(func.name.value, [])) == 1:  # only its own definition
                extra.add(func)
        return self.replica_functions | frozenset(extra)

    @cached_property
    def _calls_by_function(self) -> dict[FunctionLike | None, list[cst.Call]]:
        grouped: dict[FunctionLike | None, list[cst.Call]] = {}
        for call in self.index.calls:
            grouped.setdefault(self.index.enclosing_function(call), []).append(call)
        return grouped

    def calls_in(self, func: FunctionLike | None) -> list[cst.Call]:
        """Calls whose nearest enclosing function is ``func`` (None: module-level calls)."""
        return self._calls_by_function.get(func, [])

    def in_replica_context(self, node: cst.CSTNode) -> bool:
        """True when ``node`` runs inside a replica function (or a helper it calls)."""
        return self._runs_within(node, self.replica_functions)

    def _runs_within(self, node: cst.CSTNode, functions: frozenset[FunctionLike]) -> bool:
        """``node`` is in one of ``functions``, directly or in a lambda of one."""
        func = self.index.enclosing_function(node)
        while func is not None:
            if func in functions:
                return True
            # A nested def that is not itself called by name still runs only if its parent runs it.
            func = self.index.enclosing_function(func) if isinstance(func, cst.Lambda) else None
        return False

    def steps(self) -> list[FunctionLike]:
        """Functions that call `strategy.run` (the distributed steps)."""
        seen: list[FunctionLike] = []
        for run in self.run_calls:
            func = self.index.enclosing_function(run.call)
            if func is not None and func not in seen:
                seen.append(func)
        return seen

    def is_tf_function(self, func: FunctionLike) -> bool:
        """True when ``func`` is compiled with `tf.function` (decorator or ``f = tf.function(f)``)."""
        if isinstance(func, cst.FunctionDef):
            for decorator in func.decorators:
                expr = decorator.decorator
                target = expr.func if isinstance(expr, cst.Call) else expr
                if self.names.qualified(target) == _TF_FUNCTION or _is_function_wrapper(target):
                    return True
            return func.name.value in self._compiled_by_call
        parent = self.index.parent.get(func)
        return isinstance(parent, cst.Arg) and self._is_tf_function_call(self.index.parent.get(parent))

    def only_called_from_graphs(self, func: FunctionLike) -> bool:
        """True when ``func`` is called in this module, and only from inside `tf.function`s.

        Each such call traces ``func`` into the caller's graph. A recursive call from ``func``'s
        own body runs in whatever context the outer call does: it neither proves nor disproves
        anything, so a function called only by itself is not taken to run in a graph.
        """
        sites = [site for site in self.strategies.call_sites(func) if self.index.enclosing_function(site) is not func]
        return bool(sites) and all(
            (caller := self.index.enclosing_function(site)) is not None and self.is_tf_function(caller)
            for site in sites
        )

    @cached_property
    def strategy_reduces(self) -> list[cst.Call]:
        """``<strategy>.reduce(op, value, ...)`` calls, in source order."""
        return [
            call
            for call in self.index.calls
            if isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "reduce"
            and len(call.args) >= 2
            and self.strategies.is_strategy(call.func.value)
        ]

    @cached_property
    def _compiled_by_call(self) -> frozenset[str]:
        """Names given to ``tf.function(...)`` calls (``step = tf.function(step)``, ``tf.function(self.step)``)."""
        names = set()
        for call in self.index.calls:
            if call.args and self.names.callee(call) == _TF_FUNCTION:
                first = call.args[0].value
                if isinstance(first, cst.Name):
                    names.add(first.value)
                elif isinstance(first, cst.Attribute):
                    names.add(first.attr.value)
        return frozenset(names)

    def _is_tf_function_call(self, node: cst.CSTNode | None) -> bool:
        return isinstance(node, cst.Call) and self.names.callee(node) == _TF_FUNCTION


# Calls that make a replica function a training step: gradients, optimizer updates, variable
# writes, or a method named like a training step on an object this module cannot see into.
_TRAINING_CALLS = frozenset(
    {
        "GradientTape",
        "gradient",
        "apply_gradients",
        "apply",
        "minimize",
        "assign",
        "assign_add",
        "assign_sub",
        "train",
        "train_step",
        "train_on_batch",
    }
)


def _called_name(call: cst.Call) -> str | None:
    """``m`` for ``x.m(...)``, ``f`` for ``f(...)``."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return call.func.value if isinstance(call.func, cst.Name) else None


def _is_function_wrapper(decorator: cst.BaseExpression) -> bool:
    """A library's own ``tf.function`` wrapper: a decorator named ``<module>.function``.

    TF-Agents' ``@common.function(autograph=True)`` and similar helpers compile what they wrap;
    no decorator spelled that way runs a step eagerly.
    """
    return isinstance(decorator, cst.Attribute) and decorator.attr.value == "function"
