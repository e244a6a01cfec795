"""The per-module TensorFlow model: one object that rules query, built lazily from the index."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic import SemanticModel
from fixer.tf.index import ModuleIndex
from fixer.tf.names import NameResolver
from fixer.tf.replica import ReplicaModel
from fixer.tf.strategies import StrategyModel

if TYPE_CHECKING:
    from fixer.tf.project_imports import ProjectImports, Stamp


class TFModel:
    """Names, strategies and replica functions of one module; each part is built on first use."""

    def __init__(self, module: cst.Module, index: ModuleIndex, path: str = "", text: str = "") -> None:
        self.module = module
        self.index = index
        self.path = path
        self.text = text

    @cached_property
    def names(self) -> NameResolver:
        """Resolves expressions to canonical qualified names."""
        return NameResolver(self.index)

    @cached_property
    def semantic(self) -> SemanticModel:
        """Python scopes and bindings (fixer/semantic): which binding of a name reaches a use."""
        return SemanticModel(self.index)

    @cached_property
    def strategies(self) -> StrategyModel:
        """Strategy objects, scope blocks and scope membership."""
        return StrategyModel(self.index, self.names)

    @cached_property
    def replica(self) -> ReplicaModel:
        """Replica functions, `strategy.run` calls and `tf.function` steps."""
        return ReplicaModel(self.index, self.names, self.strategies)

    @cached_property
    def project(self) -> ProjectImports:
        """What calls into the project's other modules return (models, datasets)."""
        # Imported here: its summaries reuse the dataset tables, whose module needs the engine.
        from fixer.tf.project_imports import ProjectImports, imports_of

        return ProjectImports(self.path, self.text, imports_of(self.index))

    def dependencies(self) -> tuple[tuple[str, Stamp], ...]:
        """The files of the project consulted so far, with the stamps they had (for the cache)."""
        project = self.__dict__.get("project")
        return tuple(sorted(project.consulted.items())) if project is not None else ()
