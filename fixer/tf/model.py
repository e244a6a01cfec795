"""The per-module TensorFlow model: one object that rules query, built lazily from the index."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from fixer.tf.index import ModuleIndex
from fixer.tf.names import NameResolver
from fixer.tf.replica import ReplicaModel
from fixer.tf.strategies import StrategyModel


class TFModel:
    """Names, strategies and replica functions of one module; each part is built on first use."""

    def __init__(self, module: cst.Module, index: ModuleIndex) -> None:
        self.module = module
        self.index = index

    @cached_property
    def names(self) -> NameResolver:
        """Resolves expressions to canonical qualified names."""
        return NameResolver(self.index)

    @cached_property
    def strategies(self) -> StrategyModel:
        """Strategy objects, scope blocks and scope membership."""
        return StrategyModel(self.index, self.names)

    @cached_property
    def replica(self) -> ReplicaModel:
        """Replica functions, `strategy.run` calls and `tf.function` steps."""
        return ReplicaModel(self.index, self.names, self.strategies)
