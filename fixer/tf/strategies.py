"""Strategy objects, `with <strategy>.scope():` blocks, and call-site-aware scope membership."""

from __future__ import annotations

import enum
from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.targets import assignment_targets
from fixer.tf.classes import resolve_method
from fixer.tf.names import NameResolver, dotted_name
from fixer.tf.parameters import named_parameters

if TYPE_CHECKING:
    from collections.abc import Callable

    from fixer.semantic.model import SemanticModel
    from fixer.tf.index import FunctionLike, ModuleIndex

_DISTRIBUTE = "tensorflow.distribute."
_ONE_DEVICE = _DISTRIBUTE + "OneDeviceStrategy"
_GET_STRATEGY = _DISTRIBUTE + "get_strategy"
MULTI_WORKER_CLASSES = frozenset(
    {
        _DISTRIBUTE + "MultiWorkerMirroredStrategy",
        _DISTRIBUTE + "experimental.MultiWorkerMirroredStrategy",
    }
)
STRATEGY_CLASSES = MULTI_WORKER_CLASSES | frozenset(
    _DISTRIBUTE + name
    for name in (
        "MirroredStrategy",
        "TPUStrategy",
        "OneDeviceStrategy",
        "experimental.TPUStrategy",
        "experimental.CentralStorageStrategy",
        "experimental.ParameterServerStrategy",
        "ParameterServerStrategy",
        "CentralStorageStrategy",
        "get_strategy",
    )
)
# Attributes only a tf.distribute.Strategy has: using one on a name is evidence it is a strategy.
STRATEGY_ONLY_ATTRIBUTES = frozenset(
    {
        "experimental_run_v2",
        "experimental_distribute_dataset",
        "distribute_datasets_from_function",
        "experimental_distribute_datasets_from_function",
        "num_replicas_in_sync",
        "experimental_local_results",
        "extended",
        "cluster_resolver",
    }
)


# Uses that prove an object is a strategy when its binding does not say (`scope` only together
# with a binding or name that made it a strategy candidate: see `is_proven_strategy`).
_USED_AS_STRATEGY = STRATEGY_ONLY_ATTRIBUTES | {"scope"}


class Membership(enum.Enum):
    """Whether code runs inside a strategy scope, decided where it runs (call sites)."""

    INSIDE = "inside"
    OUTSIDE = "outside"
    UNKNOWN = "unknown"


def expression_key(node: cst.BaseExpression) -> str | None:
    """A stable key for a name or attribute chain (``strategy``, ``self.strategy``)."""
    return dotted_name(node)


class StrategyModel:
    """Which expressions are strategies, which `with` blocks are their scopes, and where code runs."""

    def __init__(self, index: ModuleIndex, names: NameResolver, semantic: Callable[[], SemanticModel]) -> None:
        self.index = index
        self.names = names
        # Asked for only when a construction may be replaced: the module's model, built on first use.
        self._semantic = semantic
        self._kinds: dict[str, set[str]] = defaultdict(set)
        self._factories: dict[str, set[str]] = {}
        # Per factory name: each `return <Strategy>()` of its defs, with the def and the class.
        self._factory_returns: dict[str, list[tuple[cst.FunctionDef, cst.Return, str]]] = defaultdict(list)
        self._find_factories()
        self._find_assigned_strategies()
        self._find_strategies_by_use()
        self._membership_cache: dict[cst.CSTNode, Membership] = {}
        self._call_sites: dict[cst.FunctionDef, list[cst.Call]] = {}

    # Which expressions are strategies -------------------------------------------------------

    def constructor_kind(self, node: cst.BaseExpression) -> str | None:
        """The strategy class ``node`` constructs (``tensorflow.distribute.X``), or None."""
        if not isinstance(node, cst.Call):
            return None
        callee = self.names.callee(node)
        if callee in STRATEGY_CLASSES:
            return callee
        func_key = expression_key(node.func)
        if func_key in self._factories:
            kinds = self._returned_kinds(node) or self._factories[func_key]
            return next(iter(sorted(kinds))) if kinds else _DISTRIBUTE + "Strategy"
        return None

    def _returned_kinds(self, call: cst.Call) -> set[str]:
        """The strategy classes a call of a local factory can return: the `return <Strategy>()`
        statements its literal arguments do not rule out (``make()`` with ``mode="local"`` returns
        the `if mode == "local":` arm's). Empty when the call is not by name or nothing is left."""
        if not isinstance(call.func, cst.Name):
            return set()
        kinds = set()
        for func, returned, kind in self._factory_returns.get(call.func.value, []):
            if self.index.method_class(func) is not None:
                return set()  # a method called by name is another function; not evaluated
            skipped = self._semantic().not_run_in_call(func, call)
            if skipped is None or not any(self.index.is_within(returned, node) for node in skipped):
                kinds.add(kind)
        return kinds

    def _never_made(self, call: cst.Call) -> bool:
        """``call`` lies in a module function that every call of the file makes with literal
        arguments ruling it out (``make()`` with ``mode="local"`` never reaches the
        ``if mode == "multi":`` arm). A function also read as a value (passed, stored) or never
        called here may run with any argument: False."""
        func = self.index.enclosing_function(call)
        if not isinstance(func, cst.FunctionDef) or self.index.method_class(func) is not None:
            return False
        sites = self.call_sites(func)
        if not sites or len(self._name_reads.get(func.name.value, [])) != len(sites):
            return False
        semantic = self._semantic()
        for site in sites:
            skipped = semantic.not_run_in_call(func, site) if isinstance(site.func, cst.Name) else None
            if skipped is None or not any(self.index.is_within(call, node) for node in skipped):
                return False
        return True

    def _find_factories(self) -> None:
        """Functions of this module that return a newly built strategy."""
        for node in self.index.returns:
            func = self.index.enclosing_function(node)
            if not isinstance(func, cst.FunctionDef) or not isinstance(node.value, cst.Call):
                continue
            callee = self.names.callee(node.value)
            if callee in STRATEGY_CLASSES:
                self._factories.setdefault(func.name.value, set()).add(callee)
                self._factory_returns[func.name.value].append((func, node, callee))

    def _find_assigned_strategies(self) -> None:
        """Record, per name or attribute key, the strategy classes any `=` in the module gives it.

        A table by key over the whole file, not the binding that reaches a use (``kinds_at`` and
        the semantic model answer that): a key any assignment makes a strategy is a candidate.
        """
        # Two passes so that `s = self.strategy` after `self.strategy = Mirrored...()` resolves.
        for _ in range(2):
            for node in self.index.assigns:
                value = node.value
                if value is None:
                    continue
                kind = self.constructor_kind(value)
                if kind is None:
                    source_key = expression_key(value)
                    if source_key in self._kinds:
                        kind_set = self._kinds[source_key]
                    else:
                        continue
                else:
                    kind_set = {kind}
                for target in assignment_targets(node, augmented=False):
                    key = expression_key(target)
                    if key is not None:
                        self._kinds[key] |= kind_set
        for name, kinds in self._annotated_parameters.items():
            self._kinds[name] |= kinds

    @cached_property
    def _annotated_parameters(self) -> dict[str, set[str]]:
        """Parameter names annotated with a `tf.distribute` strategy class, with those classes."""
        found: dict[str, set[str]] = defaultdict(set)
        for func in self.index.functions:
            for param in named_parameters(func):
                annotation = param.annotation
                if annotation is None:
                    continue
                qualified = self.names.qualified(annotation.annotation)
                if qualified is not None and qualified.startswith(_DISTRIBUTE) and qualified.endswith("Strategy"):
                    found[param.name.value].add(qualified)
        return found

    def _find_strategies_by_use(self) -> None:
        """Parameters and attributes used as strategies.

        Only strategy-only attributes (`s.num_replicas_in_sync`) are evidence on their own.
        `with s.scope():` and `s.run(fn, args=...)` are shapes other objects share
        (DeterministicRandomTestTool, DTensor LayoutMap, Ray/Spark executors): they count only
        in a module that imports TensorFlow, for an object not bound to something else, that is
        named like a strategy or used both ways.
        """
        for attribute in self.index.attributes:
            if attribute.attr.value not in STRATEGY_ONLY_ATTRIBUTES:
                continue  # tested first: it rules out almost every attribute of a module cheaply
            key = expression_key(attribute.value)
            if key is None or key in self._kinds or self.names.qualified(attribute.value):
                continue
            self._kinds[key].add(_DISTRIBUTE + "Strategy")
        if not self.names.imports_tensorflow:
            return
        scoped = self._scoped_keys()
        run_with_fn = self._run_with_fn_keys()
        passed = self._parameters_passed_a_strategy()
        for key in scoped | run_with_fn:
            if key in self._kinds or self._assigned_other_object(key):
                continue
            if looks_like_strategy_name(key) or key in passed or (key in scoped and key in run_with_fn):
                self._kinds[key].add(_DISTRIBUTE + "Strategy")

    def _parameters_passed_a_strategy(self) -> set[str]:
        """Parameter names that some call site of their function gives a known strategy."""
        found = set()
        for func in self.index.functions:
            params = [p.name.value for p in named_parameters(func)]
            owner = self.index.method_class(func)
            calls = list(self._calls_by_callee.get(func.name.value, []))
            if owner is not None:
                params = params[1:]  # self / cls
                if func.name.value == "__init__":
                    calls += self._calls_by_callee.get(owner.name.value, [])
            for call in calls:
                for position, arg in enumerate(call.args):
                    if arg.star:
                        break
                    name = (
                        arg.keyword.value
                        if arg.keyword is not None
                        else (params[position] if position < len(params) else None)
                    )
                    if name is not None and self.is_strategy(arg.value):
                        found.add(name)
        return found

    def _scoped_keys(self) -> set[str]:
        """Keys of the unimported objects entered as ``with <x>.scope():``."""
        keys = set()
        for with_node in self.index.withs:
            for item in with_node.items:
                call: cst.BaseExpression | None = item.item
                if isinstance(call, (cst.Name, cst.Attribute)):
                    call = self.scope_object_value(call, with_node)
                if call is not None and _is_scope_call(call):
                    # _is_scope_call: a call of an attribute, `<x>.scope()`
                    scoped = call.func.value  # type: ignore[attr-defined]
                    key = expression_key(scoped)
                    if key is not None and not self.names.qualified(scoped):
                        keys.add(key)
        return keys

    def _run_with_fn_keys(self) -> set[str]:
        """Keys of the unimported objects called as ``x.run(fn, args=...)`` (Strategy.run's signature)."""
        keys = set()
        for call in self.index.calls:
            func = call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value == "run" and call.args):
                continue
            key = expression_key(func.value)
            if key is None or self.names.qualified(func.value):
                continue
            first = call.args[0]
            takes_args = any(a.keyword is not None and a.keyword.value == "args" for a in call.args)
            if takes_args and first.keyword is None and isinstance(first.value, (cst.Name, cst.Attribute, cst.Lambda)):
                keys.add(key)
        return keys

    def _assigned_other_object(self, key: str) -> bool:
        """True when any `=` in the module assigns ``key`` an instance of a known class that is not
        a strategy (over the whole file: which binding reaches a use is not asked here).

        ``tool = tf.compat.v1.keras.utils.DeterministicRandomTestTool()``, ``layout_map =
        keras.distribution.LayoutMap(mesh)``, ``runner = MyRunner()`` (a class of this module).
        """
        local_classes = {cls.name.value for cls in self.index.classes}
        for assign in self.index.assigns:
            value = assign.value
            targets = assignment_targets(assign, augmented=False)
            if not isinstance(value, cst.Call) or not any(expression_key(t) == key for t in targets):
                continue
            callee = self.names.callee(value)
            if callee is not None and callee not in STRATEGY_CLASSES:
                return True
            if isinstance(value.func, cst.Name) and value.func.value in local_classes:
                return True
        return False

    def is_strategy(self, node: cst.BaseExpression) -> bool:
        """True when ``node`` evaluates to a tf.distribute strategy.

        ``x.distribute_strategy`` is one: the property Keras models give the strategy they were
        built under (``self.distribute_strategy`` in a `train_step`).
        """
        if self.constructor_kind(node) is not None:
            return True
        if isinstance(node, cst.Attribute) and node.attr.value == "distribute_strategy":
            return True
        key = expression_key(node)
        return key is not None and key in self._kinds

    @cached_property
    def _used_as_strategy(self) -> frozenset[str]:
        """Keys of expressions on which a strategy-only attribute (or ``scope``) is used."""
        return frozenset(
            key
            for attribute in self.index.attributes
            if attribute.attr.value in _USED_AS_STRATEGY
            for key in [expression_key(attribute.value)]
            if key is not None
        )

    def is_proven_strategy(self, node: cst.BaseExpression) -> bool:
        """True when ``node`` holds a strategy by construction, by a strategy class of its own
        binding or annotation, or by a strategy-only use (not by ``.run(fn, args=...)`` alone:
        a Ray or Spark executor has that signature too)."""
        if self.constructor_kind(node) is not None:
            return True
        kinds = self.kinds(node)
        if kinds - {_DISTRIBUTE + "Strategy"}:
            return True
        key = expression_key(node)
        return bool(kinds) and key is not None and (key in self._used_as_strategy or key in self._annotated_parameters)

    @cached_property
    def module_has_strategy(self) -> bool:
        """True when the module builds a strategy or uses a proven one."""
        return bool(self.constructions or self._annotated_parameters or set(self._kinds) & self._used_as_strategy)

    def kinds(self, node: cst.BaseExpression) -> frozenset[str]:
        """The strategy classes ``node`` may hold (``tensorflow.distribute.Strategy`` if unknown)."""
        kind = self.constructor_kind(node)
        if kind is not None:
            return frozenset({kind})
        key = expression_key(node)
        return frozenset(self._kinds.get(key, ())) if key else frozenset()

    def kinds_at(self, node: cst.BaseExpression, where: cst.CSTNode) -> frozenset[str]:
        """The strategy classes ``node`` holds at ``where``: its reaching binding's, when one is known.

        A name reused for two strategies (`strategy = MirroredStrategy()` in one function,
        `strategy = MultiWorkerMirroredStrategy()` in another) is two objects: the binding in
        the function of ``where`` (the last one before it), else the module's, decides; at module
        level only a binding above ``where`` reaches it.
        """
        if isinstance(node, cst.Name):
            func = self.index.enclosing_function(where)
            for scope in (func, None) if func is not None else (None,):
                bindings = [
                    a
                    for a in self.index.in_function("assigns", scope)
                    if a.value is not None
                    and any(expression_key(t) == node.value for t in assignment_targets(a, augmented=False))
                    # Module-level code sees the module's last binding above it (notebook cells
                    # run in order); a function may run after any of them.
                    and ((scope is None and func is not None) or self.index.before(a, where))
                ]
                if bindings:
                    kind = self.constructor_kind(bindings[-1].value)
                    return frozenset({kind}) if kind is not None else self.kinds(node)
        return self.kinds(node)

    def scope_kinds(self, node: cst.CSTNode) -> frozenset[str] | None:
        """The strategy classes of the scope block lexically around ``node``; None outside any."""
        block = self.lexical_scope_block(node)
        if block is None:
            return None
        strategy = next(s for w, s in self.scope_blocks if w is block)
        return self.kinds_at(strategy, block)

    @property
    def strategy_keys(self) -> dict[str, frozenset[str]]:
        """Every strategy expression key of the module with the classes it may hold."""
        return {key: frozenset(kinds) for key, kinds in self._kinds.items()}

    @cached_property
    def all_constructions(self) -> list[tuple[cst.Call, str]]:
        """Every strategy constructor call in source order, with its class (each starts the runtime,
        used or not), except one in an arm of a local factory that no call of the file reaches
        (the `if mode == "multi":` arm of a factory only called with its default `mode="local"`)."""
        found = []
        for call in self.index.calls:
            callee = self.names.callee(call)
            if callee in STRATEGY_CLASSES and callee != _GET_STRATEGY and not self._never_made(call):
                found.append((call, callee))
        return found

    @cached_property
    def constructions(self) -> list[tuple[cst.Call, str]]:
        """The strategy constructor calls whose object some code can use, in source order, with
        their class: not one bound to a name that every path rebinds before any use reads it
        (`s = MirroredStrategy()` then `s = tf.distribute.get_strategy()`: nothing runs under it)."""
        return [(call, kind) for call, kind in self.all_constructions if not self._replaced_before_use(call)]

    def _replaced_before_use(self, call: cst.Call) -> bool:
        """``call`` is the whole value of `name = call`, a later binding of ``name`` replaces it, and no
        read of ``name`` gets it (a strategy never used nor rebound is a forgotten scope instead)."""
        statement = self.index.parent.get(call)
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
            return False
        target = statement.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        semantic = self._semantic()
        binding = semantic.binding_at(target)
        order = self.index.order
        if binding is None or not any(order[b.node] > order[target] for b in binding.scope.of(target.value)):
            return False
        reads = self._name_reads.get(target.value, [])
        return not any(binding in semantic.resolve(read) for read in reads)

    @cached_property
    def _name_reads(self) -> dict[str, list[cst.Name]]:
        """Every name node of the module that reads a variable (not a binding target, not the
        attribute part of `x.name`), by name."""
        semantic = self._semantic()
        reads: dict[str, list[cst.Name]] = defaultdict(list)
        for node, parent in self.index.parent.items():
            if not isinstance(node, cst.Name) or semantic.binding_at(node) is not None:
                continue
            if isinstance(parent, cst.Attribute) and parent.attr is node:
                continue
            if isinstance(parent, (cst.Arg, cst.Param)) and getattr(parent, "keyword", None) is node:
                continue
            reads[node.value].append(node)
        return reads

    def default_strategy(self, node: cst.BaseExpression) -> bool:
        """``node`` holds the default strategy (one replica, nothing distributed): a
        `tf.distribute.get_strategy()` made at module level outside every `with`, directly or
        through the only bindings of a name that reach ``node``."""
        if isinstance(node, cst.Call):
            return self._module_level_get_strategy(node)
        if not isinstance(node, cst.Name):
            return False
        bindings = self._semantic().resolve(node)
        return bool(bindings) and all(
            isinstance(b.value, cst.Call) and self._module_level_get_strategy(b.value) for b in bindings
        )

    def _module_level_get_strategy(self, call: cst.Call) -> bool:
        if self.names.callee(call) != _GET_STRATEGY and not self._star_imported_get_strategy(call):
            return False
        return not any(isinstance(a, (cst.With, cst.FunctionDef, cst.Lambda)) for a in self.index.ancestors(call))

    def _star_imported_get_strategy(self, call: cst.Call) -> bool:
        """``tf.distribute.get_strategy()`` in a module that never binds ``tf`` but star-imports a
        module (a Kaggle notebook's ``from tweet_utility_scripts import *``, whose script imports
        ``tensorflow as tf``): ``tf`` can only come from there, and it is TensorFlow by convention."""
        if dotted_name(call.func) != "tf.distribute.get_strategy" or self.names.qualified(cst.Name("tf")) is not None:
            return False
        if self.index.assignments_by_target.get("tf"):
            return False  # `tf` is some other value of this module
        return any(
            isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar) for node in self.index.imports
        )

    @cached_property
    def single_replica(self) -> bool:
        """True when every strategy the module builds is a OneDeviceStrategy (one replica).

        Then nothing is split or aggregated across replicas: per-replica means, un-reduced
        updates and replica-id guards are all correct. Strategies only known by use (a
        parameter) are taken to be the ones built here.
        """
        built = {kind for _, kind in self.constructions}
        known = {k for kinds in self._kinds.values() for k in kinds if k != _DISTRIBUTE + "Strategy"}
        if built == {_ONE_DEVICE} and known <= {_ONE_DEVICE}:
            return True
        # Every strategy built was replaced before use (by the default strategy, one replica).
        replaced = {kind for _, kind in self.all_constructions}
        return bool(replaced) and not built and known <= replaced | {_ONE_DEVICE, _GET_STRATEGY}

    @cached_property
    def handed_over(self) -> bool:
        """Some strategy of the module is given to other code: a call argument
        (`tf.estimator.RunConfig(train_distribute=strategy)`, `train(strategy)`) or `.run`.

        Then the program distributes through that code, not (only) through scopes of its own.
        """
        for call in self.index.calls:
            if any(self.is_strategy(arg.value) for arg in call.args):
                return True
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in ("run", "experimental_run_v2")
                and self.is_strategy(func.value)
            ):
                return True
        return False

    @property
    def uses_multi_worker(self) -> bool:
        """True when the module builds (or is typed with) a MultiWorkerMirroredStrategy. A constructor
        whose object is thrown away (a bare expression statement) decides nothing: no scope, fit or
        save can run under it."""
        return any(
            kind in MULTI_WORKER_CLASSES and not self.discarded(call) for call, kind in self.constructions
        ) or any(MULTI_WORKER_CLASSES & kinds for kinds in self._kinds.values())

    def discarded(self, call: cst.Call) -> bool:
        """``call`` is a whole expression statement (`tf.distribute.MultiWorkerMirroredStrategy()` alone
        in a notebook cell): its object is never bound nor used."""
        return isinstance(self.index.parent.get(call), cst.Expr)

    # Scope blocks ---------------------------------------------------------------------------

    @cached_property
    def scope_blocks(self) -> list[tuple[cst.With, cst.BaseExpression]]:
        """Every `with <strategy>.scope():` block, with the strategy expression it enters."""
        blocks = []
        for with_node in self.index.withs:
            for item in with_node.items:
                entered: cst.BaseExpression | None = item.item
                if isinstance(entered, (cst.Name, cst.Attribute)):
                    # `scope = strategy.scope()` first, then `with scope:`.
                    entered = self.scope_object_value(entered, with_node)
                strategy = self.scope_strategy(entered) if entered is not None else None
                if strategy is not None:
                    if not self.default_strategy(strategy):  # the default strategy's scope distributes nothing
                        blocks.append((with_node, strategy))
                    break
        return blocks

    def assigned_key(self, call: cst.Call) -> str | None:
        """The name or attribute chain ``call`` is assigned to as the whole value of a one-target
        `=` (``strategy = MirroredStrategy()``), else None. The statement's own target: which
        binding reaches a later use is the semantic model's question."""
        parent = self.index.parent.get(call)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            return dotted_name(parent.targets[0].target)
        return None

    @cached_property
    def constructions_by_target(self) -> dict[tuple[FunctionLike | None, str | None], list[cst.Call]]:
        """The :attr:`constructions` by the function that makes them and the key they are
        assigned to (:meth:`assigned_key`), in source order."""
        grouped: dict[tuple[FunctionLike | None, str | None], list[cst.Call]] = {}
        for call, _ in self.constructions:
            grouped.setdefault((self.index.enclosing_function(call), self.assigned_key(call)), []).append(call)
        return grouped

    @cached_property
    def scope_blocks_by_key(
        self,
    ) -> dict[tuple[FunctionLike | None, str], list[tuple[int, cst.With, cst.BaseExpression]]]:
        """The :attr:`scope_blocks` by the function that holds them and the key of the strategy
        they enter, as ``(position in scope_blocks, block, strategy expression)``."""
        grouped: dict[tuple[FunctionLike | None, str], list[tuple[int, cst.With, cst.BaseExpression]]] = {}
        for position, (with_node, strategy) in enumerate(self.scope_blocks):
            key = dotted_name(strategy)
            if key is not None:
                owner = self.index.enclosing_function(with_node)
                grouped.setdefault((owner, key), []).append((position, with_node, strategy))
        return grouped

    @cached_property
    def scope_blocks_entering(self) -> dict[cst.CSTNode, list[tuple[int, cst.With]]]:
        """The :attr:`scope_blocks` by the strategy expression they enter directly, as
        ``(position in scope_blocks, block)``."""
        grouped: dict[cst.CSTNode, list[tuple[int, cst.With]]] = {}
        for position, (with_node, strategy) in enumerate(self.scope_blocks):
            grouped.setdefault(strategy, []).append((position, with_node))
        return grouped

    def scope_strategy(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """For ``<strategy>.scope()`` return the strategy expression, else None."""
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "scope"
            and self.is_strategy(node.func.value)
        ):
            return node.func.value
        return None

    def scope_object_value(self, node: cst.BaseExpression, where: cst.CSTNode) -> cst.Call | None:
        """The ``<x>.scope()`` call that the name or attribute ``node`` holds at ``where``, or None.

        A plain name is looked up by Python scoping (the enclosing function if it binds the name,
        else module level) and takes its last binding before ``where``; an attribute
        (``self.scope``) counts only when every binding of it is such a call.
        """
        key = expression_key(node)
        if key is None or self.names.qualified(node):
            return None
        bindings = [
            (assign, assign.value)
            for assign in self.index.assigns
            if isinstance(assign, (cst.Assign, cst.AnnAssign))
            and assign.value is not None
            and any(expression_key(t) == key for t in assignment_targets(assign, augmented=False))
        ]
        if isinstance(node, cst.Name):
            func = self.index.enclosing_function(where)
            local = [b for b in bindings if self.index.enclosing_function(b[0]) is func]
            if func is not None and not local:
                local = [b for b in bindings if self.index.enclosing_function(b[0]) is None]
            else:
                local = [b for b in local if self.index.before(b[0], where)]
            bindings = local[-1:]
        values = [value for _, value in bindings]
        if not values or not all(_is_scope_call(v) for v in values):
            return None
        return values[-1]  # type: ignore[return-value]  # every value is a `<x>.scope()` call

    @cached_property
    def _scope_block_ids(self) -> frozenset[int]:
        """The identities of the :attr:`scope_blocks`' `with` statements (asked for every use
        of every creation of a long file)."""
        return frozenset(id(w) for w, _ in self.scope_blocks)

    def lexical_scope_block(self, node: cst.CSTNode) -> cst.With | None:
        """The scope block whose body lexically holds ``node`` within the same function."""
        blocks = self._scope_block_ids
        previous: cst.CSTNode = node
        for ancestor in self.index.ancestors(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
                return None
            if isinstance(ancestor, cst.With) and id(ancestor) in blocks and previous is ancestor.body:
                return ancestor
            previous = ancestor
        return None

    # Where code runs ------------------------------------------------------------------------

    def membership(self, node: cst.CSTNode) -> Membership:
        """Whether ``node`` runs inside a strategy scope, following call sites of its function.

        Code in a function runs where the function is called: a factory called only inside the
        scope is inside; called outside (even once) it is outside; never called, unknown.
        """
        if self.lexical_scope_block(node) is not None:
            return Membership.INSIDE
        func = self.index.enclosing_function(node)
        if func is None:
            return Membership.OUTSIDE
        return self.function_membership(func)

    def function_membership(self, func: FunctionLike) -> Membership:
        """Where the body of ``func`` runs, decided from every place it is called."""
        if func in self._membership_cache:
            return self._membership_cache[func]
        self._membership_cache[func] = Membership.UNKNOWN  # breaks recursion cycles
        sites = self.call_sites(func)
        if not sites:
            result = Membership.UNKNOWN
        else:
            results = {self.membership(site) for site in sites}
            if Membership.OUTSIDE in results:
                result = Membership.OUTSIDE
            elif results == {Membership.INSIDE}:
                result = Membership.INSIDE
            else:
                result = Membership.UNKNOWN
        self._membership_cache[func] = result
        return result

    def call_sites(self, func: FunctionLike) -> list[cst.Call]:
        """Calls in this module that run ``func`` (by name, as a method, or as a class's init).

        A call by plain name counts only where ``func`` is the def that name reaches lexically:
        two nested functions both named ``step`` in different functions are told apart.
        """
        if isinstance(func, cst.Lambda):
            parent = self.index.parent.get(func)
            return [parent] if isinstance(parent, cst.Call) and parent.func is func else []
        cached = self._call_sites.get(func)
        if cached is None:
            cached = self._call_sites[func] = self._find_call_sites(func)
        return list(cached)  # a copy: callers may extend what they get

    @cached_property
    def _calls_by_callee(self) -> dict[str, list[cst.Call]]:
        """Calls grouped by the last name of what they call (``f(...)``, ``x.f(...)``: ``f``)."""
        grouped: dict[str, list[cst.Call]] = defaultdict(list)
        for call in self.index.calls:
            if isinstance(call.func, cst.Name):
                grouped[call.func.value].append(call)
            elif isinstance(call.func, cst.Attribute):
                grouped[call.func.attr.value].append(call)
        return grouped

    def _find_call_sites(self, func: cst.FunctionDef) -> list[cst.Call]:
        name = func.name.value
        owner = self.index.method_class(func)
        candidates = self._calls_by_callee.get(name, [])
        if owner is not None and name == "__init__":
            candidates = sorted(
                [*candidates, *self._calls_by_callee.get(owner.name.value, [])], key=self.index.order.__getitem__
            )
        sites = []
        for call in candidates:
            target = call.func
            if owner is None and isinstance(target, cst.Name) and target.value == name:
                if func in visible_defs(self.index, name, call):
                    sites.append(call)
            elif owner is not None and isinstance(target, cst.Attribute) and target.attr.value == name:
                resolved = resolve_method(self.index, target, call)
                if resolved is None or func in resolved:
                    sites.append(call)
            elif (
                owner is not None
                and name == "__init__"
                and isinstance(target, cst.Name)
                and target.value == owner.name.value
            ):
                sites.append(call)
        return sites


def looks_like_strategy_name(key: str) -> bool:
    """``strategy``, ``self._strategy``, ``dist_strat``, ``distribution``: names code gives strategies."""
    last = key.rsplit(".", 1)[-1].lower()
    return "strateg" in last or last.strip("_") in {"strat", "distribution"} or last.endswith("_strat")


def visible_defs(index: ModuleIndex, name: str, near: cst.CSTNode | None) -> list[cst.FunctionDef]:
    """The plain (non-method) functions called ``name`` that a use of ``name`` at ``near`` reaches.

    Python scoping: the defs in the innermost enclosing function that has one, else the
    module-level defs. ``near`` None gives every def of that name.
    """
    defs = [f for f in index.functions_by_name.get(name, []) if index.method_class(f) is None]
    if near is None or len(defs) < 2 and all(index.enclosing_function(f) is None for f in defs):
        return defs
    by_scope: dict[FunctionLike | None, list[cst.FunctionDef]] = defaultdict(list)
    for f in defs:
        by_scope[index.enclosing_function(f)].append(f)
    here = index.enclosing_function(near)
    scope = here
    while scope is not None:
        if scope in by_scope:
            return _reaching(index, by_scope[scope], near, same_scope=scope is here)
        scope = index.enclosing_function(scope)
    return _reaching(index, by_scope.get(None, []), near, same_scope=here is None)


def _reaching(
    index: ModuleIndex, defs: list[cst.FunctionDef], near: cst.CSTNode, same_scope: bool
) -> list[cst.FunctionDef]:
    """Of several defs of one name, the ones a use runs with when it runs in the defs' own scope.

    A name redefined later (a notebook cell reusing `step`) is another function: code that runs
    in the same scope sees the defs the semantic model carries to it (the last one before it, or
    one per `if` arm). Code in a nested function runs later, when any of them may be bound: all
    count; so do all when no def reaches (a use before every def, a name rebound to another value).
    """
    if not same_scope or len(defs) < 2:
        return defs
    reaching = {id(b.statement) for b in index.semantic.reaching(defs[0].name.value, near)}
    return [f for f in defs if id(f) in reaching] or defs


def _is_scope_call(node: cst.BaseExpression) -> bool:
    """``<x>.scope()`` with no arguments."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "scope"
        and not node.args
    )
