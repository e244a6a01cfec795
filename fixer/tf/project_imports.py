"""What a call into another module of the same project returns: a Keras model, a dataset, or unknown.

``model = mnist_setup.build_and_compile_cnn_model()`` is a Keras model when ``mnist_setup.py``
next to the script (or reached through the project's packages or its ``sys.path`` insertions)
defines that function and it returns one. Only files on disk under the project are read: the
checked file's folder, the folder holding its outermost package (for ``import pkg.mod``),
package-relative imports (``from . import x``, ``from .a import b``), folders the file adds
with ``sys.path.insert/append(...)`` next to it, and the folder above a namespace package (a
folder around the module, without ``__init__.py``, whose name the import starts with: PEP 420).
Nothing under ``site-packages`` or ``dist-packages`` is followed, and neither is the
interpreter's own ``sys.path``: a name that does not resolve to such a file is unknown, never an
error. In a notebook, a module written by a ``%%writefile`` cell of the same notebook resolves to
that cell's code.

Each module is summarised once per process (``fixer/tf/module_summary.py``, keyed by path, size
and modification time), so checking a tree reads every imported module once whatever the number
of importers; the files consulted are recorded so that a cached result is dropped when one of
them changes.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.cache import Stamp, file_stamp
from fixer.sources import SourceError, open_regular
from fixer.syntax import parse_module
from fixer.tf.keras2_builds import keras2_build, may_build_for_keras2
from fixer.tf.module_summary import (
    CALL,
    DATASET,
    EMPTY,
    LIBRARY_ROOTS,
    MODEL,
    FunctionFacts,
    ImportRef,
    ModuleSummary,
    Outcome,
    imported_as,
    path_entries,
    summarise,
)
from fixer.tf.names import canonical, dotted_name, imported_modules, imported_names
from fixer.tf.replica_count_members import REPLICA_COUNT, replica_count_members

if TYPE_CHECKING:
    import ast
    from collections.abc import Iterator, Mapping, Sequence

    from fixer.tf.index import ModuleIndex

_LIBRARY_FOLDERS = frozenset({"site-packages", "dist-packages"})
_MAX_DEPTH = 8  # calls followed through helpers of helpers
# Libraries whose names a project module may hand on to its importers (`from pkg import tf`).
_REEXPORTED_ROOTS = frozenset({"tensorflow", "keras", "tf_keras"})

# Per process: summaries of the files read, shared by every file checked (and by the LSP).
_SUMMARIES: dict[str, tuple[Stamp, ModuleSummary]] = {}

# The modules a notebook's `%%writefile` cells write, by file name, while that notebook is analysed.
_WRITTEN: ContextVar[Mapping[str, str] | None] = ContextVar("distfix_written_modules", default=None)


@contextmanager
def written_modules_visible(modules: Mapping[str, str]) -> Iterator[None]:
    """Within the block, ``import NAME`` from the notebook resolves to ``NAME.py`` in ``modules``
    (file name to source), the modules the notebook's own cells write."""
    token = _WRITTEN.set(modules)
    try:
        yield
    finally:
        _WRITTEN.reset(token)


@dataclass(frozen=True)
class Returned:
    """What calling a project function or class gives.

    ``kind`` is ``"model"`` or ``"dataset"``. ``flavour`` is the Keras of a model (``"tensorflow"``
    for `tf.keras`, ``"keras"``, ``"tf_keras"``; None when the module sets TF_USE_LEGACY_KERAS
    itself and the Keras cannot be told). ``per_task``: a dataset builder that shards or reads
    the task index (it may be this worker's share); ``shuffles``: one that shuffles (its order is
    not visible here); ``enters_scope``: the builder enters a strategy scope itself.
    """

    kind: str
    flavour: str | None = "tensorflow"
    per_task: bool = False
    shuffles: bool = False
    enters_scope: bool = False


@dataclass(frozen=True)
class Lineage:
    """What the project says of a class another of its modules defines, through all its bases:
    ``libraries``, the canonical names of its bases that are not project classes
    (``tensorflow.estimator.SessionRunHook``), and ``compiled``, the methods one of these classes
    wraps with ``tf.function`` at run time."""

    libraries: frozenset[str] = frozenset()
    compiled: frozenset[str] = frozenset()

    def __or__(self, other: Lineage) -> Lineage:
        return Lineage(self.libraries | other.libraries, self.compiled | other.compiled)


def _summary_of_file(path: str, stamp: Stamp) -> ModuleSummary:
    cached = _SUMMARIES.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        with open_regular(path) as handle:  # a FIFO named like a module must not block the check
            text = handle.read().decode("utf-8", errors="replace")
    except (OSError, SourceError):
        return EMPTY
    summary = summarise(text, path)
    _SUMMARIES[path] = (stamp, summary)
    return summary


class ProjectImports:
    """Resolves calls of one checked file into the other modules of its project.

    ``path`` and ``text`` are the checked file's (the text may be an unsaved buffer or a
    notebook's code). A path that is not a file on disk (a snippet, a rule example) follows
    nothing.
    """

    def __init__(self, path: str, text: str, imports: Mapping[str, ImportRef], tree: ast.Module | None = None) -> None:
        self._origin = os.path.abspath(path)
        self._enabled = os.path.isfile(self._origin)
        self._text = text
        self._tree = tree  # CPython's tree of ``text`` when the caller has one
        self._imports = dict(imports)
        self._written = _WRITTEN.get() or {}
        self._origin_summary: ModuleSummary | None = None
        self._memo: dict[tuple[str, str], Returned | None] = {}
        self._located: dict[tuple[str, int, str], str | None] = {}
        self.consulted: dict[str, Stamp] = {}  # every file looked at, found or not, with its stamp

    def returned(self, func: cst.BaseExpression) -> Returned | None:
        """What calling ``func`` (a libcst name or attribute chain) gives, when it names a function
        or class of another module of the project that builds a Keras model or a dataset."""
        if not self._enabled:
            return None
        name = dotted_name(func)
        if name is None:
            return None
        head = name.split(".")[0]
        if head not in self._imports:
            return None  # this file's own function, a builtin or unbound: not another module's
        return self._call(self._origin, name, ())

    def draws_random(self, func: cst.BaseExpression) -> bool:
        """Calling ``func`` (a libcst name or attribute chain) runs a function of another module of
        the project that draws random values with no constant seed (`FunctionFacts.draws`)."""
        name = dotted_name(func)
        if not self._enabled or name is None or name.split(".")[0] not in self._imports:
            return False
        found = self._function(self._origin, name, 0)
        return found is not None and found.draws

    def _function(self, key: str, name: str, depth: int) -> FunctionFacts | None:
        """The facts of the function dotted ``name`` names in module ``key``'s namespace, following
        imports and re-exports a few modules deep."""
        summary = self._summary(key)
        head, _, rest = name.partition(".")
        if not rest and head in summary.functions:
            return summary.functions[head]
        target = None if depth > _MAX_DEPTH else self._imported(key, summary, head, rest)
        return None if target is None else self._function(*target, depth + 1)

    def lineage(self, base: cst.BaseExpression) -> Lineage:
        """The :class:`Lineage` of ``base`` (a base class the checked file names), when the file
        imports it; empty for a class of the file itself or a name it cannot follow."""
        name = dotted_name(base)
        if not self._enabled or name is None or name.split(".")[0] not in self._imports:
            return Lineage()
        return self._lineage(self._origin, name, ())

    def _lineage(self, key: str, name: str, stack: tuple[tuple[str, str], ...]) -> Lineage:
        summary = self._summary(key)
        head, _, rest = name.partition(".")
        if not rest and head in summary.class_facts:
            entry = (key, head)
            if entry in stack or len(stack) > _MAX_DEPTH:
                return Lineage()  # an inheritance cycle through imports: nothing more to learn
            facts = summary.class_facts[head]
            found = Lineage(compiled=facts.compiled)
            for inherited in facts.bases:
                found |= self._lineage(key, inherited, (*stack, entry))
            return found
        ref = summary.imports.get(head)
        if ref is None:
            return Lineage()
        bound = f"{ref.module}.{ref.name}" if ref.name else ref.module
        library = Lineage(libraries=frozenset({canonical(f"{bound}.{rest}" if rest else bound)}))
        if not ref.level and ref.module.split(".")[0] in LIBRARY_ROOTS:
            return library
        base = ref.module.split(".") if ref.module else []
        parts = [*base, *([ref.name] if ref.name else []), *(rest.split(".") if rest else [])]
        module = self._locate(key, ref.level, parts[:-1]) if len(parts) > 1 or ref.level else None
        if module is None:
            return Lineage() if ref.level else library  # not a project file: another library's class
        return self._lineage(module, parts[-1], stack)

    def legacy_switch(self, before_tensorflow: Sequence[ImportRef]) -> str | None:
        """What the project's own modules that run before TensorFlow reads the switch set
        TF_USE_LEGACY_KERAS to ("on", "off", "unknown"; None: none sets it). They are the packages
        holding the file (their `__init__.py`, outermost first: `python -m pkg.train` runs them)
        and the modules ``before_tensorflow`` names, in order; the last setting wins."""
        if not self._enabled:
            return None
        value = None
        for module in [*self._enclosing_packages(), *(self._imported_module(ref) for ref in before_tensorflow)]:
            switch = self._summary(module).legacy_switch if module is not None else None
            value = switch or value
        return value

    def clears_tf_config(self, imports: Sequence[ImportRef]) -> bool:
        """One of the project modules ``imports`` names leaves TF_CONFIG deleted when its top
        level has run (fixer/tf/tf_config_cleared.py)."""
        if not self._enabled:
            return False
        modules = (self._imported_module(ref) for ref in imports)
        return any(module is not None and self._summary(module).clears_tf_config for module in modules)

    def names_tf_config(self, imports: Sequence[ImportRef]) -> bool:
        """One of the project modules ``imports`` names mentions TF_CONFIG: importing it may set a
        cluster (TFD105 then keeps a strategy built before the file's own TF_CONFIG line)."""
        if not self._enabled:
            return False
        modules = (self._imported_module(ref) for ref in imports)
        return any(module is not None and self._summary(module).names_tf_config for module in modules)

    def keras2_build(self) -> tuple[str, int, str] | None:
        """(file, line, what) of a model construction only Keras 2 accepts in the checked file or in
        the first project module it imports that has one (fixer/tf/keras2_builds.py):
        the program stops under Keras 3 where that model is built."""
        own = keras2_build_of(self._text, self._imports, self._tree) if may_build_for_keras2(self._text) else None
        if own is not None:
            return (self._origin, *own)
        if not self._enabled:
            return None
        for ref in self._imports.values():
            module = self._imported_module(ref)
            found = self._summary(module).keras2_build if module is not None else None
            if module is not None and found is not None:
                return (module, *found)
        return None

    @cached_property
    def replica_count_members(self) -> frozenset[str]:
        """Names of class members that give a strategy's replica count (a property returning
        `num_replicas_in_sync`, fixer/tf/replica_count_members.py), in the checked file or in a
        project module it imports: one level, the modules those import are not read."""
        found: set[str] = set()
        if REPLICA_COUNT in self._text:
            tree = self._tree
            if tree is None:
                try:
                    tree = parse_module(self._text)
                except (SyntaxError, ValueError, RecursionError):
                    tree = None
            found.update(replica_count_members(tree) if tree is not None else ())
        if self._enabled:
            for ref in self._imports.values():
                module = self._imported_module(ref)
                found.update(self._summary(module).replica_counts if module is not None else ())
        return frozenset(found)

    def imported_only_for_tf1(self) -> bool:
        """True when the nearest package holding the checked file that imports it (as
        ``from . import v1``, ``from .core.v1 import X`` or ``from pkg.core.v1 import X``) does so
        only in an arm of its own TensorFlow 1 test (fixer/tf/tf1_imports.py): TF 1 code."""
        if not self._enabled:
            return False
        folder, name = os.path.split(self._origin)
        parts = [os.path.splitext(name)[0]]
        if parts == ["__init__"]:
            folder, name = os.path.split(folder)
            parts = [name]
        for _ in range(_MAX_DEPTH):
            init = os.path.join(folder, "__init__.py")
            if self._consult(init) is None:
                return False
            dotted = ".".join(parts)
            names = {f".{dotted}", f"{os.path.basename(folder)}.{dotted}"}
            if names & self._summary(init).tf1_only_imports:
                return True
            folder, name = os.path.split(folder)
            parts.insert(0, name)
        return False

    def _enclosing_packages(self) -> list[str]:
        """The `__init__.py` of each package holding the checked file, outermost first."""
        found = []
        folder = os.path.dirname(self._origin)
        while os.path.dirname(folder) != folder:
            init = os.path.join(folder, "__init__.py")
            if self._consult(init) is None:
                break
            if init != self._origin:
                found.append(init)
            folder = os.path.dirname(folder)
        return found[::-1]

    def member(self, ref: ImportRef, rest: str = "") -> tuple[str, str] | None:
        """(module file, member name) that ``ref`` followed by attributes ``rest`` names, when it
        is a function or class of a project module: `from data import build` -> (data.py,
        "build"); `import data` with rest "build" -> the same; None for a library."""
        if not ref.level and ref.module.split(".")[0] in LIBRARY_ROOTS:
            return None
        base = ref.module.split(".") if ref.module else []
        parts = [*base, *([ref.name] if ref.name else []), *(rest.split(".") if rest else [])]
        if len(parts) < 1 or (not ref.level and len(parts) < 2):
            return None
        module = self._locate(self._origin, ref.level, parts[:-1])
        return None if module is None else (module, parts[-1])

    def reexported(self, level: int, module: str, name: str) -> str | None:
        """The TensorFlow or Keras name that ``from <level dots><module> import <name>`` binds
        when ``module`` is a project module handing one on: `from tensorflow_asr import tf`, with
        `import tensorflow as tf` in `tensorflow_asr/__init__.py`, binds "tensorflow"."""
        if not self._enabled:
            return None
        return self._reexport(self._origin, ImportRef(level, module, name), 0)

    def _reexport(self, key: str, ref: ImportRef, depth: int) -> str | None:
        """What ``ref``, an import of module ``key``, binds when it ends in TensorFlow or Keras."""
        root = ref.module.split(".")[0]
        if not ref.level and root in _REEXPORTED_ROOTS:
            return f"{ref.module}.{ref.name}" if ref.name else ref.module
        if ref.name is None or depth > _MAX_DEPTH or (not ref.level and root in LIBRARY_ROOTS):
            return None  # a whole project module, an import cycle, or another library
        module = self._locate(key, ref.level, ref.module.split(".") if ref.module else [])
        if module is None:
            return None
        inner = self._summary(module).imports.get(ref.name)
        return None if inner is None else self._reexport(module, inner, depth + 1)

    def quiet_on_tf_config(self, name: str) -> bool:
        """The checked file's imported ``name`` is a project module (or a member of one) found on
        disk whose summary says calling it leaves TF_CONFIG unread (`quiet_on_tf_config`)."""
        ref = self._imports.get(name)
        if not self._enabled or ref is None:
            return False
        module = self._imported_module(ref)
        return module is not None and self._summary(module).quiet_on_tf_config

    def _imported_module(self, ref: ImportRef) -> str | None:
        """The project file an import of the checked file runs: `import a.b` -> a/b.py,
        `from a import b` -> a/b.py or a.py, `from . import b` -> ./b.py or ./__init__.py."""
        if not ref.level and ref.module.split(".")[0] in LIBRARY_ROOTS:
            return None
        base = ref.module.split(".") if ref.module else []
        candidates = [[*base, ref.name], base] if ref.name else [base]
        for parts in candidates:
            if parts or ref.level:
                found = self._locate(self._origin, ref.level, parts)
                if found is not None:
                    return found
        return None

    # Resolution -------------------------------------------------------------------------------

    def _summary(self, key: str) -> ModuleSummary:
        if key == self._origin:
            if self._origin_summary is None:
                # The checked file's imports come from its libcst index: only `sys.path` needs `ast`.
                self._origin_summary = ModuleSummary(
                    imports=self._imports, path_entries=path_entries(self._text, self._origin)
                )
            return self._origin_summary
        written = self._written_name(key)
        if written is not None:
            return _written_summary(self._origin, written, self._written[written])
        stamp = self._consult(key)
        return EMPTY if stamp is None else _summary_of_file(key, stamp)

    def _consult(self, path: str) -> Stamp:
        if path not in self.consulted:
            self.consulted[path] = file_stamp(path)
        return self.consulted[path]

    def _written_name(self, key: str) -> str | None:
        prefix = self._origin + "::"
        return key[len(prefix) :] if key.startswith(prefix) else None

    def _call(self, key: str, name: str, stack: tuple[tuple[str, str], ...]) -> Returned | None:
        """What calling dotted ``name`` in module ``key``'s namespace gives."""
        summary = self._summary(key)
        head, _, rest = name.partition(".")
        if not rest and (head in summary.functions or head in summary.classes):
            return self._member(key, head, stack)
        target = self._imported(key, summary, head, rest)
        return None if target is None else self._member(*target, stack)

    def _imported(self, key: str, summary: ModuleSummary, head: str, rest: str) -> tuple[str, str] | None:
        """The project module and member name that dotted ``head.rest`` reaches through module
        ``key``'s import of ``head`` (None when ``head`` is not imported from the project)."""
        ref = summary.imports.get(head)
        if ref is None or (not ref.level and ref.module.split(".")[0] in LIBRARY_ROOTS):
            return None
        base = ref.module.split(".") if ref.module else []
        parts = [*base, *([ref.name] if ref.name else []), *(rest.split(".") if rest else [])]
        if len(parts) < 1 or (not ref.level and len(parts) < 2):
            return None
        module = self._locate(key, ref.level, parts[:-1])
        return None if module is None else (module, parts[-1])

    def _member(self, key: str, name: str, stack: tuple[tuple[str, str], ...]) -> Returned | None:
        """What calling ``name``, defined in (or re-exported by) module ``key``, gives."""
        entry = (key, name)
        if entry in stack or len(stack) > _MAX_DEPTH:
            return None  # an import or call cycle: unknown
        if entry in self._memo:
            return self._memo[entry]
        stack = (*stack, entry)
        summary = self._summary(key)
        result: Returned | None = None
        if name in summary.functions:
            facts = summary.functions[name]
            found = [self._outcome(key, o, stack) for o in facts.outcomes]
            result = _agree(found)
            if result is not None:
                result = replace(
                    result,
                    per_task=result.per_task or facts.per_task,
                    shuffles=result.shuffles or facts.shuffles,
                    enters_scope=result.enters_scope or facts.enters_scope,
                )
        elif name in summary.classes:
            bases = [self._outcome(key, o, stack) for o in summary.classes[name]]
            result = next((b for b in bases if b is not None and b.kind == MODEL), None)
        elif name in summary.imports:
            result = self._call(key, name, stack)  # re-exported: `from .models import build`
        if result is not None and result.kind == MODEL and summary.sets_legacy_keras:
            result = replace(result, flavour=None)
        self._memo[entry] = result
        return result

    def _outcome(self, key: str, outcome: Outcome, stack: tuple[tuple[str, str], ...]) -> Returned | None:
        if outcome.kind == MODEL:
            return Returned(MODEL, outcome.flavour)
        if outcome.kind == DATASET:
            return Returned(DATASET)
        if outcome.kind != CALL:
            return None
        result = self._call(key, outcome.callee, stack)
        if outcome.chained and (result is None or result.kind != DATASET):
            return None
        return result

    def _locate(self, key: str, level: int, parts: list[str]) -> str | None:
        """The module file ``parts`` names as imported from module ``key`` (``level`` dots)."""
        cache_key = (key, level, ".".join(parts))
        if cache_key not in self._located:
            self._located[cache_key] = self._find(key, level, parts)
        return self._located[cache_key]

    def _find(self, key: str, level: int, parts: list[str]) -> str | None:
        folder = os.path.dirname(self._origin if self._written_name(key) is not None else key)
        if level:
            for _ in range(level - 1):
                folder = os.path.dirname(folder)
            return self._module_file(folder, parts)
        if len(parts) == 1 and f"{parts[0]}.py" in self._written:
            return f"{self._origin}::{parts[0]}.py"
        for root in self._roots(key, folder):
            found = self._module_file(root, parts)
            if found is not None:
                return found
        return self._in_namespace_package(folder, parts)

    def _in_namespace_package(self, folder: str, parts: list[str]) -> str | None:
        """``parts`` found as Python 3 finds a namespace package (PEP 420): the importing module
        sits inside a folder named ``parts[0]`` that has no `__init__.py` (`official/core/x.py`
        importing `official.core.y`), so the project runs from the folder above it, where
        `import official...` resolves. A name that is no folder around the module stays unknown."""
        if not parts:
            return None
        top = folder
        while os.path.dirname(top) != top:
            if os.path.basename(top) == parts[0] and self._consult(os.path.join(top, "__init__.py")) is None:
                return self._module_file(os.path.dirname(top), parts)
            top = os.path.dirname(top)
        return None

    def _roots(self, key: str, folder: str) -> list[str]:
        """Where absolute imports of module ``key`` are looked for: its folder, the folder above
        its outermost package, and the folders it adds to ``sys.path``."""
        roots = [folder]
        top = folder
        while self._consult(os.path.join(top, "__init__.py")) is not None and os.path.dirname(top) != top:
            top = os.path.dirname(top)
        if top != folder:
            roots.append(top)
        roots.extend(self._summary(key).path_entries)
        return roots

    def _module_file(self, folder: str, parts: list[str]) -> str | None:
        """``folder/a/b.py`` or ``folder/a/b/__init__.py`` for ``a.b`` (the package itself for no
        parts), when it exists and is not an installed library."""
        base = os.path.join(folder, *parts)
        candidates = [base + ".py", os.path.join(base, "__init__.py")] if parts else [os.path.join(base, "__init__.py")]
        for candidate in candidates:
            candidate = os.path.normpath(candidate)
            if _LIBRARY_FOLDERS & set(candidate.split(os.sep)):
                return None
            if self._consult(candidate) is not None:
                return candidate
        return None


def _written_summary(notebook: str, name: str, text: str) -> ModuleSummary:
    """The summary of a notebook's written module (cached with its text: cells have no mtime)."""
    key = f"{notebook}::{name}"
    stamp = (len(text), hash(text))
    cached = _SUMMARIES.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    summary = summarise(text, os.path.join(os.path.dirname(notebook), name))
    _SUMMARIES[key] = (stamp, summary)
    return summary


def _agree(found: list[Returned | None]) -> Returned | None:
    """The common answer of every return, or None when one is unknown or they differ in kind."""
    if not found or any(r is None for r in found):
        return None
    first = found[0]
    assert first is not None
    if any(r is not None and r.kind != first.kind for r in found):
        return None
    return replace(
        first,
        per_task=any(r.per_task for r in found if r is not None),
        shuffles=any(r.shuffles for r in found if r is not None),
    )


def keras2_build_of(
    text: str, imports: Mapping[str, ImportRef], tree: ast.Module | None = None
) -> tuple[int, str] | None:
    """(line, what) of a Keras-2-only model construction in the checked file's ``text``, read from
    ``tree`` (CPython's tree of ``text``) when given, else from a parse of the text."""
    if tree is None:
        try:
            tree = parse_module(text)
        except (SyntaxError, ValueError, RecursionError):
            return None
    return keras2_build(tree, imported_as(imports), text)


def imports_of(index: ModuleIndex) -> dict[str, ImportRef]:
    """The imports of the checked module, read from its libcst index, as summaries record them."""
    found: dict[str, ImportRef] = {}
    for node in index.imports:
        if isinstance(node, cst.Import):
            for target, as_name in imported_modules(node):
                if as_name is not None:
                    found[as_name] = ImportRef(0, target)
                else:
                    head = target.split(".")[0]
                    found.setdefault(head, ImportRef(0, head))
        else:
            module = dotted_name(node.module) if node.module is not None else ""
            if module is None:
                continue
            for local, name in imported_names(node):
                found[local] = ImportRef(len(node.relative), module, name)
    return found
