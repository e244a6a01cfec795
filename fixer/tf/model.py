"""The per-module TensorFlow model: one object that rules query, built lazily from the index."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from fixer.semantic import SemanticModel
from fixer.tf.names import NameResolver
from fixer.tf.replica import ReplicaModel
from fixer.tf.strategies import StrategyModel

if TYPE_CHECKING:
    import libcst as cst

    from fixer.cache import Stamp
    from fixer.target import Target
    from fixer.tf.importer_uses import ModuleImporters
    from fixer.tf.index import ModuleIndex
    from fixer.tf.project_imports import ProjectImports


class TFModel:
    """Names, strategies and replica functions of one module; each part is built on first use."""

    def __init__(
        self,
        module: cst.Module,
        index: ModuleIndex,
        path: str = "",
        text: str = "",
        target_version: tuple[int, int] | None = None,
    ) -> None:
        self.module = module
        self.index = index
        self.path = path
        self.text = text
        self.target_version = target_version  # `target-version` / `--target-version`, if set

    @cached_property
    def names(self) -> NameResolver:
        """Resolves expressions to canonical qualified names."""
        return NameResolver(self.index, self._reexported)

    def _reexported(self, level: int, module: str, name: str) -> str | None:
        """The TensorFlow/Keras name a project module hands on (`from tensorflow_asr import tf`)."""
        return self.project.reexported(level, module, name)

    @cached_property
    def semantic(self) -> SemanticModel:
        """Python scopes and bindings (fixer/semantic): which binding of a name reaches a use."""
        return SemanticModel(self.index)

    @cached_property
    def strategies(self) -> StrategyModel:
        """Strategy objects, scope blocks and scope membership."""
        return StrategyModel(self.index, self.names, lambda: self.semantic)

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

    @cached_property
    def importers(self) -> ModuleImporters | None:
        """How the project's other files use this module's functions and classes (under which
        strategy, in a scope, fed to `fit`); None outside a project root (fixer/tf/importers.py)."""
        from fixer.tf.importers import importers_of

        return importers_of(self.path) if self.path else None

    @cached_property
    def target(self) -> Target:
        """The TensorFlow and Keras the project around this module runs (fixer/target)."""
        from fixer.target import target_for
        from fixer.tf.keras2_internals import keras2_internals_evidence
        from fixer.tf.keras2_usage import keras2_usage_evidence
        from fixer.tf.tf1_program import tf1_program_evidence

        project = target_for(self.path or ".", self.target_version, self.text)
        project = project.in_tf1_program(tf1_program_evidence(self.index, self.names, self.path, self.text))
        keras2 = keras2_usage_evidence(self.index, self.names, self.path, self.text)
        return project.with_keras2_usage(keras2 or keras2_internals_evidence(self.path, self.text))

    def dependencies(self) -> tuple[tuple[str, Stamp], ...]:
        """The files of the project consulted so far, with the stamps they had (for the cache)."""
        project = self.__dict__.get("project")
        target = self.__dict__.get("target")
        consulted = dict(project.consulted) if project is not None else {}
        consulted.update(target.consulted if target is not None else ())
        importers = self.__dict__.get("importers")
        consulted.update(importers.consulted if importers is not None else ())
        return tuple(sorted(consulted.items()))
