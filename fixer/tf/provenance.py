"""Strategies and replica functions that are proven by where they come from, not only by a method name.

`StrategyModel` also takes ``x.run(fn, args=...)`` as evidence that ``x`` is a strategy; a Ray or
Spark executor has that signature too. Rules that must not fire on such code ask this module: a
strategy is proven when it is built from a `tf.distribute` class (directly, through a local
factory or a name bound to one), or when it is also used as only a strategy is (``.scope()``,
``num_replicas_in_sync``, ``experimental_distribute_dataset``...).
"""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from fixer.tf.index import FunctionLike
from fixer.tf.names import dotted_name
from fixer.tf.parameters import named_parameters
from fixer.tf.replica import ReplicaModel, RunCall
from fixer.tf.strategies import STRATEGY_ONLY_ATTRIBUTES, StrategyModel

_GENERIC = "tensorflow.distribute.Strategy"
_USED_AS_STRATEGY = STRATEGY_ONLY_ATTRIBUTES | {"scope"}


class Provenance:
    """Which strategy expressions and `strategy.run` calls of a module are proven."""

    def __init__(self, strategies: StrategyModel, replica: ReplicaModel) -> None:
        self.strategies = strategies
        self.replica = replica

    @cached_property
    def _used_as_strategy(self) -> frozenset[str]:
        """Keys of expressions on which a strategy-only attribute (or ``scope``) is used."""
        index = self.strategies.index
        return frozenset(
            key
            for attribute in index.attributes
            if attribute.attr.value in _USED_AS_STRATEGY
            for key in [dotted_name(attribute.value)]
            if key is not None
        )

    def is_proven_strategy(self, node: cst.BaseExpression) -> bool:
        """True when ``node`` holds a strategy by construction or by a strategy-only use."""
        if self.strategies.constructor_kind(node) is not None:
            return True
        kinds = self.strategies.kinds(node)
        if kinds - {_GENERIC}:
            return True
        key = dotted_name(node)
        return bool(kinds) and key is not None and (key in self._used_as_strategy or key in self.annotated_strategies)

    @cached_property
    def annotated_strategies(self) -> frozenset[str]:
        """Parameters annotated with a `tf.distribute` strategy class."""
        names = self.strategies.names
        found = set()
        for func in self.strategies.index.functions:
            for param in named_parameters(func):
                if param.annotation is None:
                    continue
                qualified = names.qualified(param.annotation.annotation) or ""
                if qualified.startswith("tensorflow.distribute.") and qualified.endswith("Strategy"):
                    found.add(param.name.value)
        return frozenset(found)

    @cached_property
    def module_has_strategy(self) -> bool:
        """True when the module builds a strategy or uses a proven one."""
        keys = set(self.strategies.strategy_keys)
        return bool(self.strategies.constructions or self.annotated_strategies or keys & self._used_as_strategy)

    @cached_property
    def run_calls(self) -> list[RunCall]:
        """`strategy.run` calls whose strategy is proven."""
        return [run for run in self.replica.run_calls if self.is_proven_strategy(run.strategy)]

    @cached_property
    def replica_functions(self) -> frozenset[FunctionLike]:
        """Functions the proven `strategy.run` calls execute, and what they call in this module."""
        return self.replica.reachable(target for run in self.run_calls for target in run.targets)

    def in_replica_context(self, node: cst.CSTNode) -> bool:
        """True when ``node`` runs inside a proven replica function (or a lambda within one)."""
        index = self.strategies.index
        func = index.enclosing_function(node)
        while func is not None:
            if func in self.replica_functions:
                return True
            func = index.enclosing_function(func) if isinstance(func, cst.Lambda) else None
        return False
