"""The per-module TensorFlow model: one object that rules query, built lazily from the index."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.positions import positions as positions_of
from fixer.textmap import TextMap
from fixer.tf.names import NameResolver
from fixer.tf.replica import ReplicaModel
from fixer.tf.strategies import StrategyModel

if TYPE_CHECKING:
    import ast
    from collections.abc import Mapping

    from libcst.metadata import CodeRange

    from fixer.cache import Stamp
    from fixer.semantic import SemanticModel
    from fixer.target import Target
    from fixer.target.sources import Evidence
    from fixer.tf.importer_uses import ModuleImporters
    from fixer.tf.index import FunctionLike, ModuleIndex
    from fixer.tf.optimizer_kinds import OptimizerCreation
    from fixer.tf.project_imports import ProjectImports
    from fixer.tf.replica import RunCall
    from fixer.tf.script_launchers import ScriptLaunchers


class TFModel:
    """Names, strategies and replica functions of one module; each part is built on first use.

    It also knows where each node lies in ``text`` (``range``, ``span``, ``source``): ``positions``
    when the engine has them (one statement at a time, fixer/positions.py), else libcst's for the
    whole module, computed on first use.
    """

    def __init__(
        self,
        module: cst.Module,
        index: ModuleIndex,
        path: str = "",
        text: str = "",
        target_version: tuple[int, int] | None = None,
        positions: Mapping[cst.CSTNode, CodeRange] | None = None,
        python_tree: ast.Module | None = None,
    ) -> None:
        self.module = module
        self.index = index
        self.path = path
        self.text = text
        self.target_version = target_version  # `target-version` / `--target-version`, if set
        self._given_positions = positions
        # CPython's tree of the same lines, when the engine parsed one first: checks that read
        # CPython's tree (fixer/tf/keras2_builds.py) take it instead of parsing the text again.
        self._python_tree = python_tree

    # Positions ------------------------------------------------------------------------------

    @cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """libcst's range of every node (1-based lines, 0-based columns)."""
        return self._given_positions if self._given_positions is not None else positions_of(self.module)

    @cached_property
    def textmap(self) -> TextMap:
        """Line/offset conversions for this text."""
        return TextMap(self.text)

    def range(self, node: cst.CSTNode) -> CodeRange:
        """libcst's range of ``node`` (1-based lines, 0-based columns)."""
        return self.positions[node]

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of ``node`` in the text."""
        code_range = self.range(node)
        start = self.textmap.offset(code_range.start.line, code_range.start.column + 1)
        end = self.textmap.offset(code_range.end.line, code_range.end.column + 1)
        return start, end

    def source(self, node: cst.CSTNode) -> str:
        """The exact original text of ``node``."""
        if isinstance(node, cst.BaseExpression):
            generated = self._expression_source(node)
            if generated is not None:
                return generated
        start, end = self.span(node)
        return self.text[start:end]

    def _expression_source(self, node: cst.BaseExpression) -> str | None:
        """The text of a one-line expression, generated; None for others.

        An expression's range (libcst's syntactic one) is its code without its own parentheses.
        On one line that code holds no indentation (only a line break inside brackets takes the
        block's), so generating it gives the text at the cost of the expression, where its
        position would cost the code of its statement (a whole `with` block for the strategy of
        `with strategy.scope():`, fixer/positions.py)."""
        code = self.module.code_for_node(node)
        if "\n" in code or "\r" in code:
            return None
        if not node.lpar and not node.rpar:
            return code
        opened = sum(len(self.module.code_for_node(paren)) for paren in node.lpar)
        closed = sum(len(self.module.code_for_node(paren)) for paren in node.rpar)
        return code[opened : len(code) - closed]

    # TensorFlow questions -------------------------------------------------------------------

    @cached_property
    def names(self) -> NameResolver:
        """Resolves expressions to canonical qualified names."""
        return NameResolver(self.index, self._reexported)

    def _reexported(self, level: int, module: str, name: str) -> str | None:
        """The TensorFlow/Keras name a project module hands on (`from tensorflow_asr import tf`)."""
        return self.project.reexported(level, module, name)

    @property
    def semantic(self) -> SemanticModel:
        """Python scopes and bindings (fixer/semantic): which binding of a name reaches a use
        (the index's own model, ``ModuleIndex.semantic``)."""
        return self.index.semantic

    @cached_property
    def strategies(self) -> StrategyModel:
        """Strategy objects, scope blocks and scope membership."""
        return StrategyModel(self.index, self.names, lambda: self.semantic)

    @cached_property
    def replica(self) -> ReplicaModel:
        """Replica functions, `strategy.run` calls and `tf.function` steps."""
        return ReplicaModel(self.index, self.names, self.strategies, lambda: self.semantic)

    @cached_property
    def project(self) -> ProjectImports:
        """What calls into the project's other modules return (models, datasets)."""
        # Imported here: its summaries reuse the dataset tables, whose module needs the engine.
        from fixer.tf.project_imports import ProjectImports, imports_of

        return ProjectImports(self.path, self.text, imports_of(self.index), self._python_tree)

    @cached_property
    def importers(self) -> ModuleImporters | None:
        """How the project's other files use this module's functions and classes (under which
        strategy, in a scope, fed to `fit`); None outside a project root (fixer/tf/importers.py)."""
        from fixer.tf.importers import importers_of

        return importers_of(self.path) if self.path else None

    @cached_property
    def launchers(self) -> ScriptLaunchers | None:
        """The project's files that start this script, and whether they give it a TF_CONFIG;
        None outside a project root (fixer/tf/script_launchers.py)."""
        from fixer.tf.script_launchers import launchers_of

        return launchers_of(self.path) if self.path else None

    @cached_property
    def target(self) -> Target:
        """The TensorFlow and Keras the project around this module runs (fixer/target)."""
        from fixer.target import target_for
        from fixer.tf.keras2_internals import keras2_internals_evidence
        from fixer.tf.keras2_usage import keras2_usage_evidence
        from fixer.tf.tf1_program import tf1_program_evidence, written_for_both

        project = target_for(self.path or ".", self.target_version, self.text)
        project = project.in_tf1_program(tf1_program_evidence(self.index, self.names, self.path, self.text))
        if project.lines_from is not None and written_for_both(self.index, self.names):
            project = project.for_both_lines()  # it runs on the README's older line too
        keras2 = keras2_usage_evidence(self.index, self.names, self.path, self.text)
        keras2 = keras2 or keras2_internals_evidence(self.path, self.text)
        if keras2 is None and project.version_unknown and not project.declares_keras3:
            # Only where it can decide (`Target.keras`): it parses the file again with `ast`.
            keras2 = self._keras2_build()
        return project.with_keras2_usage(keras2)

    def _keras2_build(self) -> Evidence | None:
        """A model construction only Keras 2 accepts, in this file or a project module it imports
        (fixer/tf/keras2_builds.py): the program runs on Keras 2 only."""
        from fixer.target.requirements import Range
        from fixer.target.sources import Evidence

        found = self.project.keras2_build()
        return None if found is None else Evidence("keras2-usage", Range(), found[0], found[1], found[2])

    @cached_property
    def optimizer_creations(self) -> dict[str, OptimizerCreation | None]:
        """The single Keras optimizer creation behind each receiver (``opt``, ``self.opt``), filled
        as :func:`fixer.tf.optimizers.optimizer_creation` is asked: rules ask it for every update."""
        return {}

    @cached_property
    def runs_by_function(self) -> dict[FunctionLike, list[RunCall]]:
        """The `strategy.run` calls that run each function, in source order: as a target, or
        through a lambda that forwards to it (``strategy.run(lambda x, y: self._step(x, y), ...)``).

        Grouped once per module: every replica function of a long file asks (TFD303), and scanning
        every run for each was quadratic.
        """
        replica = self.replica
        table: dict[FunctionLike, list[RunCall]] = {}
        for run in replica.run_calls:
            functions = list(run.targets)
            for target in run.targets:
                if isinstance(target, cst.Lambda) and isinstance(target.body, cst.Call):
                    functions.extend(replica.resolve_callable(target.body.func, target.body))
            for function in dict.fromkeys(functions):
                table.setdefault(function, []).append(run)
        return table

    def dependencies(self) -> tuple[tuple[str, Stamp], ...]:
        """The files of the project consulted so far, with the stamps they had (for the cache)."""
        project = self.__dict__.get("project")
        target = self.__dict__.get("target")
        consulted = dict(project.consulted) if project is not None else {}
        consulted.update(target.consulted if target is not None else ())
        importers = self.__dict__.get("importers")
        consulted.update(importers.consulted if importers is not None else ())
        launchers = self.__dict__.get("launchers")
        consulted.update(launchers.consulted if launchers is not None else ())
        return tuple(sorted(consulted.items()))
