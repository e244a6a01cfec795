"""What one file of the project does with another module's function or class (a :class:`Use`),
and the uses of one checked module that rules ask for (:class:`ModuleImporters`).

The import graph that finds them is `fixer/tf/importers.py`; this module holds only the answers,
so that the per-module TensorFlow model can name them without importing the graph.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping

Stamp = tuple[int, int] | None  # as fixer.cache.Stamp: size and modification time, None when absent

FIT = "fit"  # Keras `fit`/`evaluate`/`predict`: the result is the model, or the data given to it
DISTRIBUTE = "distribute"  # `strategy.experimental_distribute_dataset(result)`
RUN = "run"  # passed to `strategy.run`
# Iterated by a `for` loop (also over `enumerate`/`iter`/`tqdm` of it) whose elements are handed to
# a strategy's `run`, directly or through a function of the importer that calls it.
LOOP_RUN = "loop-run"


@dataclass(frozen=True)
class Use:
    """One call of a project module's function or class by another file of the project.

    ``module`` and ``name`` are the called object's file and name; ``importer`` and ``line``
    where the call stands. ``strategies``: the strategy classes the importer builds
    (`MultiWorkerMirroredStrategy`...). ``feeds``: what its result is given to (:data:`FIT`,
    :data:`DISTRIBUTE`, :data:`RUN`, :data:`LOOP_RUN`); ``after``: the dataset methods the importer applies to
    it first. ``shard_policy``: the importer sets an auto-shard policy itself;
    ``global_seed``: it sets a global random seed. ``compiled``: the call stands in a function
    the importer compiles with `tf.function` (its decorator, `<module>.function`, or
    `f = tf.function(f)`), so it is traced into that graph rather than run eagerly.
    ``optimizers``: for each argument given as a name or `None` (key: the keyword, or the
    position as digits), the Keras optimizer class that name is bound to in the importer,
    "None" for `None`, "" when it is bound to anything else. ``type_tests``: the
    `tf.distribute.experimental` classes the importer tests objects against with
    `isinstance`/`issubclass` (qualified names), each with its first line.
    """

    module: str
    name: str
    importer: str
    line: int
    strategies: frozenset[str]
    in_scope: bool
    feeds: frozenset[str]
    after: tuple[str, ...] = ()
    shard_policy: bool = False
    global_seed: bool = False
    compiled: bool = False
    optimizers: tuple[tuple[str, str], ...] = ()
    type_tests: tuple[tuple[str, int], ...] = ()

    def where(self, root: str) -> str:
        """``main.py`` line 12, with the importer's path relative to ``root``."""
        return f"`{os.path.relpath(self.importer, root)}` line {self.line}"


class _View(Protocol):
    root: str

    def uses_of(self, module: str, name: str | None = None) -> list[Use]: ...

    def stamp_of(self, importer: str) -> Stamp: ...

    def files(self) -> Mapping[str, Stamp]: ...


class ModuleImporters:
    """How the other files of the project use one checked module; the importers consulted
    become the result's dependencies (a changed importer invalidates the cached result)."""

    def __init__(self, path: str, view: _View) -> None:
        self.path = os.path.abspath(path)
        self.root = view.root
        self._view = view
        self.consulted: dict[str, Stamp] = {}

    def uses(self, name: str | None = None) -> list[Use]:
        """The calls of this module's ``name`` (every name when None) by other files."""
        found = self._view.uses_of(self.path, name)
        for use in found:
            self.consulted[use.importer] = self._view.stamp_of(use.importer)
        return found

    def project_files(self) -> Mapping[str, Stamp]:
        """Every `.py` file of the project root with its stamp; a caller that draws a fact from
        one records it in ``consulted``."""
        return self._view.files()
