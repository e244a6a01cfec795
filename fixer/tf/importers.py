"""How the project's own scripts use a module's functions and classes: the view from its importers.

A helper module is often only wrong because of the script that imports it: `data.py` shuffles
before the data is split between workers only because `main.py` passes its dataset to `fit`
under a `MultiWorkerMirroredStrategy`. When `check` is given a folder (and in the language
server, for each workspace folder) that folder is a *project root*; the first question about a
module under it builds the project's import graph once: every `.py` file of the root that
mentions a strategy (`Strategy` in its text) is read with CPython's `ast`, its calls of functions
and classes of other project modules are resolved to files (as `fixer/tf/project_imports.py`
resolves them) and each becomes a :class:`Use`: the strategy classes the importer builds,
whether the call stands inside a `with <strategy>.scope():` block, and what the importer feeds
its result to (`fit`/`evaluate`/`predict`, `experimental_distribute_dataset`, `strategy.run`),
directly or through one name (`ds = build(); model.fit(ds)`).

Cost is linear in the project: each file is read once, and each importer's uses are kept by
path, size and modification time, so a changed importer is read again and nothing else is.
In the command line the tree is listed once per process; in the language server (``live``) it is
listed and its files stat'ed again once per analysis (each `project_roots` block), so an importer
edited on disk is seen at the next check, and the dozens of questions one check asks cost one walk.

Not followed: uses in notebooks, importers that do not mention a strategy, a result passed
through more than one name or through a function of the importer, and imports of a module
created after the importer was last read (until the importer changes).
"""

from __future__ import annotations

import ast
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from fixer.cache import Stamp, file_stamp
from fixer.sources import SourceError, open_regular
from fixer.syntax import parse_module
from fixer.tf.dataset_api import DATASET_METHODS
from fixer.tf.importer_uses import DISTRIBUTE, FIT, LOOP_RUN, RUN, ModuleImporters, Use
from fixer.tf.module_summary import LIBRARY_ROOTS, dotted, module_imports
from fixer.tf.project_type_tests import experimental_type_tests

if TYPE_CHECKING:
    from collections.abc import Iterator

_FEEDS = {
    "fit": FIT,
    "evaluate": FIT,
    "predict": FIT,
    "experimental_distribute_dataset": DISTRIBUTE,
    "distribute_datasets_from_function": DISTRIBUTE,
    "run": RUN,
}
_SEEDERS = frozenset({"set_seed", "set_random_seed"})
_OPTIMIZER_LIBRARIES = frozenset({"tensorflow", "keras", "tf_keras"})
_RUNS = frozenset({"run", "experimental_run_v2"})
# Calls a loop may iterate a dataset through and still read its elements one by one.
_ITERATION_WRAPPERS = frozenset({"iter", "enumerate", "tqdm"})
_SKIPPED_FOLDERS = frozenset({"site-packages", "dist-packages", "node_modules", "__pycache__"})
_MAX_BYTES = 2_000_000  # a generated file this large is not a training script


# Per process: each importer's uses, by path, with the stamp they were read at.
_USES: dict[str, tuple[Stamp, tuple[Use, ...]]] = {}
_VIEWS: dict[str, ProjectView] = {}
_ROOTS: ContextVar[tuple[tuple[str, ...], bool]] = ContextVar("distfix_project_roots", default=((), False))


@contextmanager
def project_roots(roots: tuple[str, ...], live: bool = False) -> Iterator[None]:
    """Within the block, modules under ``roots`` are asked about through their importers;
    ``live``: files may change between questions (the language server)."""
    token = _ROOTS.set((tuple(os.path.abspath(r) for r in roots), live))
    if live:  # files may have changed since the last analysis: list and stat them again once
        for view in _VIEWS.values():
            view.fresh = False
    try:
        yield
    finally:
        _ROOTS.reset(token)


def forget_views() -> None:
    """Drop the import graphs listed so far (a new run may see other files), and the launchers'
    listings (fixer/tf/script_launchers.py); the uses read from each importer stay, kept by its
    stamp."""
    # Imported here, as that module imports `view_for` from this one.
    from fixer.tf.script_launchers import forget_listings

    _VIEWS.clear()
    forget_listings()


def view_for(path: str) -> ProjectView | None:
    """The view of the innermost project root holding ``path``, or None outside every root."""
    roots, live = _ROOTS.get()
    if not roots or not path:
        return None
    path = os.path.abspath(path)
    holding = [r for r in roots if path.startswith(r.rstrip(os.sep) + os.sep)]
    if not holding:
        return None
    root = max(holding, key=len)
    view = _VIEWS.get(root)
    if view is None:
        view = _VIEWS[root] = ProjectView(root)
    view.live = live
    return view


def used_under_strategy(path: str) -> bool:
    """Another file of ``path``'s project root calls one of its functions or classes and builds
    a strategy (False outside every root)."""
    view = view_for(path)
    return view is not None and any(use.strategies for use in view.uses_of(path))


def importers_of(path: str) -> ModuleImporters | None:
    """The importers' view of the module at ``path``, or None outside every project root."""
    view = view_for(path)
    return None if view is None else ModuleImporters(path, view)


class ProjectView:
    """The import graph of one project root, answering who uses a module and how."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.live = False
        self.fresh = False  # the listing and stamps were taken in this analysis (when live)
        self._listing: list[str] | None = None
        self._by_module: dict[str, list[Use]] | None = None
        self._stamps: dict[str, Stamp] = {}

    def uses_of(self, module: str, name: str | None = None) -> list[Use]:
        """The calls other files of the project make of ``module``'s functions and classes
        (only of ``name`` when given), in importer and line order."""
        found = self._index().get(os.path.abspath(module), [])
        return [u for u in found if name is None or u.name == name]

    def stamp_of(self, importer: str) -> Stamp:
        """The stamp ``importer`` had when its uses were read (for the result cache)."""
        return self._stamps.get(importer)

    def files(self) -> dict[str, Stamp]:
        """Every `.py` file of the root with its stamp, as listed for this analysis."""
        self._index()
        return self._stamps

    def _index(self) -> dict[str, list[Use]]:
        if self._by_module is not None and (self.fresh or not self.live):
            return self._by_module
        if self._listing is None or self.live:
            self._listing = list(_python_files(self.root))
        self.fresh = True
        stamps = {path: file_stamp(path) for path in self._listing}
        if self._by_module is not None and stamps == self._stamps:
            return self._by_module
        names = _module_names(self._listing, self.root)
        by_module: dict[str, list[Use]] = {}
        for path, stamp in stamps.items():
            for use in _uses_in(path, stamp, names):
                by_module.setdefault(use.module, []).append(use)
        self._stamps, self._by_module = stamps, by_module
        return by_module


def _python_files(root: str) -> Iterator[str]:
    """Every `.py` file under ``root``, sorted, outside hidden folders and installed libraries."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def _module_names(files: list[str], root: str) -> frozenset[str]:
    """The names an absolute import of a project module can start with: every file's and
    folder's name under ``root`` (libraries excluded)."""
    names: set[str] = set()
    for path in files:
        parts = os.path.relpath(path, root).split(os.sep)
        names.update(parts[:-1])
        names.add(parts[-1][: -len(".py")])
    return frozenset(names - LIBRARY_ROOTS)


# The modules a file imports, from its text: `from X import`, `from .X import`, `import X, Y`.
_IMPORT_LINE = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import\b|import[ \t]+([\w., \t]+))", re.MULTILINE)


def _may_import_project(data: bytes, names: frozenset[str]) -> bool:
    """The text imports a module whose first name is one of the project's (or a relative one):
    the cheap test that spares parsing scripts that import only libraries."""
    for dots, module, modules in _IMPORT_LINE.findall(data):
        if dots:
            return True
        for name in (module,) if module else modules.split(b","):
            head = name.strip().split(b".")[0].split()[0:1]
            if head and head[0].decode("ascii", "replace") in names:
                return True
    return False


def _uses_in(path: str, stamp: Stamp, names: frozenset[str]) -> tuple[Use, ...]:
    """The uses ``path`` makes of other project modules, read once per stamp."""
    cached = _USES.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    uses: tuple[Use, ...] = ()
    if stamp is not None and stamp[0] <= _MAX_BYTES:
        try:
            with open_regular(path) as handle:
                data = handle.read()
        except (OSError, SourceError):
            data = b""
        # Only a script that builds or names a strategy gives context, and only to project modules.
        if b"Strategy" in data and _may_import_project(data, names):
            uses = _read_uses(path, data.decode("utf-8", errors="replace"))
    _USES[path] = (stamp, uses)
    return uses


def _read_uses(path: str, text: str) -> tuple[Use, ...]:
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    return tuple(_Importer(path, text, tree).uses())


class _Importer:
    """Reads one importer: its strategies, and each call of a project module's object."""

    def __init__(self, path: str, text: str, tree: ast.Module) -> None:
        # Imported here: following imports needs the dataset tables, whose module needs the engine.
        from fixer.tf.project_imports import ProjectImports

        self.path = os.path.abspath(path)
        self.imports = module_imports(tree)
        self.resolver = ProjectImports(self.path, text, self.imports)
        self.shard_policy = "AutoShardPolicy" in text
        # One walk: each node's parent, the calls, and the reads of each name.
        self.parent: dict[ast.AST, ast.AST] = {}
        self.calls: list[ast.Call] = []
        self.loads: dict[str, list[ast.Name]] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
            if isinstance(node, ast.Call):
                self.calls.append(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.loads.setdefault(node.id, []).append(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, node)
        self.optimizers_by_name = self._optimizers_by_name(tree)
        self.strategies = frozenset(self._strategies())
        self.strategy_names = frozenset(self._strategy_names())
        # Renaming the construction of a tested class in another module would flip the test.
        self.type_tests = tuple(sorted(experimental_type_tests(self.calls, self.imports).items()))
        self.global_seed = any(isinstance(c.func, ast.Attribute) and c.func.attr in _SEEDERS for c in self.calls)
        # Names given to `tf.function(...)` (`step = tf.function(step)`, `tf.function(self.step)`).
        self.compiled_names = frozenset(
            name.rsplit(".", 1)[-1]
            for call in self.calls
            if call.args and self._is_tf_function(call.func) and (name := dotted(call.args[0]))
        )

    def _strategies(self) -> Iterator[str]:
        """The class name of every TensorFlow strategy the file constructs."""
        for node in self.calls:
            name = dotted(node.func) or ""
            last = name.rsplit(".", 1)[-1]
            if not last.endswith("Strategy"):
                continue
            ref = self.imports.get(name.partition(".")[0])
            if ref is not None and not ref.level and ref.module.split(".")[0] == "tensorflow":
                yield last

    def _strategy_names(self) -> Iterator[str]:
        """The names (`strategy`, `self.strategy`) the file assigns a strategy construction to."""
        for node in self.calls:
            if not (dotted(node.func) or "").endswith("Strategy"):
                continue
            assign = self.parent.get(node)
            if isinstance(assign, ast.Assign) and assign.value is node:
                yield from (name for name in map(dotted, assign.targets) if name)

    def uses(self) -> Iterator[Use]:
        for node in self.calls:
            name = dotted(node.func)
            if name is None:
                continue
            head, _, rest = name.partition(".")
            ref = self.imports.get(head)
            if ref is None or (not ref.level and ref.module.split(".")[0] in LIBRARY_ROOTS):
                continue
            target = self.resolver.member(ref, rest)
            if target is None or target[0] == self.path:
                continue
            feeds, after = self._feeds(node, 0)
            yield Use(
                module=target[0],
                name=target[1],
                importer=self.path,
                line=node.lineno,
                strategies=self.strategies,
                in_scope=self._in_scope(node),
                feeds=frozenset(feeds),
                after=tuple(after),
                shard_policy=self.shard_policy,
                global_seed=self.global_seed,
                compiled=self._in_tf_function(node),
                optimizers=tuple(self._optimizer_arguments(node)),
                type_tests=self.type_tests,
            )

    def _optimizer_arguments(self, call: ast.Call) -> Iterator[tuple[str, str]]:
        """Each argument of ``call`` given as a name or `None`, with the optimizer class the name
        is bound to (see :attr:`Use.optimizers`)."""
        given = [(str(i), arg) for i, arg in enumerate(call.args)]
        given += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
        for key, value in given:
            if isinstance(value, ast.Constant) and value.value is None:
                yield key, "None"
            elif isinstance(value, ast.Name):
                classes = self.optimizers_by_name.get(value.id, {""})
                yield key, next(iter(classes)) if len(classes) == 1 else ""

    def _optimizers_by_name(self, tree: ast.Module) -> dict[str, set[str]]:
        """Each name the file assigns, with the Keras optimizer classes it is bound to ("" for a
        value that is not a `<...>.optimizers.<Class>(...)` call of TensorFlow or Keras)."""
        assigned: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign):
                continue
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            kind = self._optimizer_class(node.value) if names else ""
            for name in names:
                assigned.setdefault(name, set()).add(kind)
        return assigned

    def _optimizer_class(self, value: ast.expr) -> str:
        """``Adam`` for ``tf.keras.optimizers.Adam(...)``/``tf.optimizers.Adam(...)``; "" otherwise."""
        name = dotted(value.func) if isinstance(value, ast.Call) else None
        parts = (name or "").split(".")
        ref = self.imports.get(parts[0])
        if len(parts) < 2 or parts[-2] != "optimizers" or ref is None or ref.level:
            return ""
        return parts[-1] if ref.module.split(".")[0] in _OPTIMIZER_LIBRARIES else ""

    def _in_tf_function(self, node: ast.AST) -> bool:
        """Inside a function this file compiles with `tf.function` (or nested in one): the call is
        traced into that function's graph."""
        current = self.parent.get(node)
        while current is not None:
            if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                current.name in self.compiled_names
                or any(self._is_tf_function(d.func if isinstance(d, ast.Call) else d) for d in current.decorator_list)
            ):
                return True
            current = self.parent.get(current)
        return False

    def _is_tf_function(self, expr: ast.expr) -> bool:
        """`tf.function`, a library's own wrapper spelled `<module>.function` (TF-Agents'
        `common.function`), or `function` imported from TensorFlow."""
        if isinstance(expr, ast.Attribute):
            return expr.attr == "function"
        ref = self.imports.get(expr.id) if isinstance(expr, ast.Name) else None
        return ref is not None and ref.name == "function" and ref.module.split(".")[0] == "tensorflow"

    def _in_scope(self, node: ast.AST) -> bool:
        """Inside a `with <x>.scope():` block of the same function."""
        current = self.parent.get(node)
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if isinstance(current, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call)
                and isinstance(item.context_expr.func, ast.Attribute)
                and item.context_expr.func.attr == "scope"
                for item in current.items
            ):
                return True
            current = self.parent.get(current)
        return False

    def _feeds(self, node: ast.expr, depth: int) -> tuple[set[str], list[str]]:
        """What the value of ``node`` is given to, and the dataset methods applied first."""
        feeds: set[str] = set()
        after: list[str] = []
        current: ast.AST = node
        while True:
            parent = self.parent.get(current)
            grand = self.parent.get(parent) if parent is not None else None
            if (
                isinstance(parent, ast.Attribute)
                and parent.value is current
                and isinstance(grand, ast.Call)
                and grand.func is parent
            ):
                if parent.attr in DATASET_METHODS:
                    after.append(parent.attr)
                    current = grand
                    continue
                if _FEEDS.get(parent.attr) == FIT:
                    feeds.add(FIT)  # `model.fit(...)` on the result: the result is the model
                break
            if (
                isinstance(parent, ast.Call)
                and isinstance(parent.func, ast.Name)
                and parent.func.id in _ITERATION_WRAPPERS
                and parent.args[:1] == [current]
            ):
                current = parent  # `enumerate(ds)`: the loop still reads the dataset's elements
                continue
            if isinstance(parent, ast.For) and parent.iter is current:
                if self._loop_feeds_run(parent):
                    feeds.add(LOOP_RUN)
                break
            if isinstance(parent, ast.keyword):
                current, parent = parent, grand
            if isinstance(parent, ast.Call) and current is not parent.func and isinstance(parent.func, ast.Attribute):
                feed = _FEEDS.get(parent.func.attr)
                if feed is not None:
                    feeds.add(feed)
            elif isinstance(parent, ast.Assign) and depth < 1:
                for target in parent.targets:
                    if isinstance(target, ast.Name):
                        for load in self._loads(target.id, parent):
                            more, chained = self._feeds(load, depth + 1)
                            feeds |= more
                            after.extend(m for m in chained if m not in after)
            break
        return feeds, after

    def _loop_feeds_run(self, loop: ast.For) -> bool:
        """The loop's body hands its elements to a strategy's `run` (an argument after the
        function), or to a function of this file that calls a strategy's `run`."""
        elements = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        for statement in loop.body:
            for node in ast.walk(statement):
                if not isinstance(node, ast.Call):
                    continue
                if self._strategy_run(node):
                    given = node.args[1:] + [k.value for k in node.keywords]
                elif isinstance(node.func, ast.Name) and self._runs_replicas(node.func.id):
                    given = node.args + [k.value for k in node.keywords]
                else:
                    continue
                if any(isinstance(n, ast.Name) and n.id in elements for arg in given for n in ast.walk(arg)):
                    return True
        return False

    def _strategy_run(self, call: ast.Call) -> bool:
        """`strategy.run(...)` on a name this file assigns a strategy to (not `session.run`)."""
        func = call.func
        return isinstance(func, ast.Attribute) and func.attr in _RUNS and dotted(func.value) in self.strategy_names

    def _runs_replicas(self, name: str) -> bool:
        """This file defines a function ``name`` that calls a strategy's `run`."""
        func = self.functions.get(name)
        return func is not None and any(isinstance(n, ast.Call) and self._strategy_run(n) for n in ast.walk(func))

    def _loads(self, name: str, assign: ast.Assign) -> Iterator[ast.Name]:
        """The reads of ``name`` after ``assign``, in its function (or anywhere, for the module)."""
        scope = self._scope_of(assign)
        for node in self.loads.get(name, []):
            if (node.lineno, node.col_offset) > (assign.lineno, assign.col_offset) and (
                isinstance(scope, ast.Module) or self._within(node, scope)
            ):
                yield node

    def _scope_of(self, node: ast.AST) -> ast.AST | None:
        scope = self.parent.get(node)
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            scope = self.parent.get(scope)
        return scope

    def _within(self, node: ast.AST, ancestor: ast.AST | None) -> bool:
        current = self.parent.get(node)
        while current is not None and current is not ancestor:
            current = self.parent.get(current)
        return current is ancestor
