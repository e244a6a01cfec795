"""What a module of the project offers to the files that import it, read with CPython's `ast`.

A training script often gets its model and its dataset from another file of the same project
(`from mnist_setup import build_and_compile_cnn_model`, `ds = utility.make_dataset(...)`). Rules
need to know what such a call returns, not how the other file is written, so each imported module
is reduced once to a few facts: for every top-level function, what each of its `return`
statements gives (a Keras model and its Keras, a `tf.data` dataset, or the result of another call
still to be resolved); for every class, whether it subclasses a Keras model; its imports (to
follow re-exports and helpers of helpers); and the folders it adds to `sys.path`.

CPython's `ast` is used rather than libcst: these modules are only read, never reported on or
rewritten, and `ast` parses about fifteen times faster. Resolving names to files is
`fixer/tf/project_imports.py`'s job.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from fixer.syntax import parse_module
from fixer.tf.dataset_api import DATASET_CONSTRUCTORS, DATASET_METHODS
from fixer.tf.drawing_names import DRAWING_MODULES, GENERATORS, SEEDING, STATELESS
from fixer.tf.keras2_builds import keras2_build, may_build_for_keras2
from fixer.tf.legacy_switch import legacy_switch
from fixer.tf.names import canonical
from fixer.tf.replica_count_members import REPLICA_COUNT, replica_count_members
from fixer.tf.task_words import WORKER_INDEX_NAMES
from fixer.tf.tf1_imports import tf1_only_imports
from fixer.tf.tf_config_cleared import clears_tf_config

MODEL = "model"
DATASET = "dataset"
CALL = "call"
UNKNOWN = "unknown"

# Calls that build a Keras model (canonical names, see fixer/tf/names.py).
MODEL_CALLS = ("keras.Sequential", "keras.Model", "keras.models.", "keras.applications.")
_MODEL_BASES = ("keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential")
# Names that make a dataset this worker's share when a builder reads them.
_TASK_WORDS = WORKER_INDEX_NAMES | {"input_pipeline_id", "num_input_pipelines", "input_context"}
# Roots that are never project modules: their calls are TensorFlow's, not the project's.
LIBRARY_ROOTS = frozenset({"tensorflow", "keras", "tf_keras", "tensorflow_datasets", "numpy", "os", "sys"})


@dataclass(frozen=True)
class ImportRef:
    """One imported name: ``from <level dots><module> import <name>`` or ``import <module>``."""

    level: int
    module: str
    name: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What one `return` (or one base class) gives.

    ``MODEL`` (with the Keras it comes from: ``"tensorflow"`` for `tf.keras`, ``"keras"``,
    ``"tf_keras"``), ``DATASET``, ``CALL`` (the result of calling ``callee``, a dotted name in
    the module's namespace; ``chained`` when dataset methods are applied to that result) or
    ``UNKNOWN``.
    """

    kind: str
    flavour: str = "tensorflow"
    callee: str = ""
    chained: bool = False


@dataclass(frozen=True)
class FunctionFacts:
    """A top-level function: its returns, whether it picks the worker's share of its data
    (calls `.shard`, reads a task index), builds under `with <strategy>.scope():` itself, or
    draws random data of its own (``draws``)."""

    outcomes: tuple[Outcome, ...]
    per_task: bool = False
    enters_scope: bool = False
    shuffles: bool = False
    # It draws random values and seeds nothing with a constant (fixer/tf/drawn_data.py): what it
    # returns differs from one process to the next.
    draws: bool = False


@dataclass(frozen=True)
class ClassFacts:
    """A top-level class: its bases as written (dotted names in the module's namespace) and the
    methods it compiles at run time, ``self.fn = tf.function(self.<method>)`` in any of its methods
    (a base class that compiles the step its subclasses define)."""

    bases: tuple[str, ...] = ()
    compiled: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ModuleSummary:
    """The facts of one module that importers ask about."""

    functions: Mapping[str, FunctionFacts] = field(default_factory=dict)
    classes: dict[str, tuple[Outcome, ...]] = field(default_factory=dict)
    class_facts: dict[str, ClassFacts] = field(default_factory=dict)
    imports: dict[str, ImportRef] = field(default_factory=dict)
    path_entries: tuple[str, ...] = ()  # absolute folders added to sys.path
    sets_legacy_keras: bool = False  # the module sets TF_USE_LEGACY_KERAS itself
    legacy_switch: str | None = None  # "on"/"off"/"unknown" when set on import before TensorFlow
    tf1_only_imports: frozenset[str] = frozenset()  # sibling modules imported only on TensorFlow 1
    clears_tf_config: bool = False  # its top level ends with TF_CONFIG deleted (fixer/tf/tf_config_cleared.py)
    names_tf_config: bool = False  # its text names TF_CONFIG: importing it may set a cluster
    # (line, what) of a model construction only Keras 2 accepts (fixer/tf/keras2_builds.py)
    keras2_build: tuple[int, str] | None = None
    # Its text names nothing that reads TF_CONFIG (a strategy, a resolver, an Estimator, TF_CONFIG, a
    # process start) and it imports only quiet libraries: calling it leaves TF_CONFIG unread.
    quiet_on_tf_config: bool = False
    # Members of its classes that give a strategy's replica count (fixer/tf/replica_count_members.py).
    replica_counts: frozenset[str] = frozenset()


EMPTY = ModuleSummary()


def summarise(text: str, path: str) -> ModuleSummary:
    """The summary of a module's source ``text`` (stored at ``path``); an unparsable one is empty."""
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError):
        return EMPTY
    imports = module_imports(tree)
    reader = _Reader(imports)
    functions = _FunctionFacts(
        reader, {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    )
    class_nodes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    classes = {node.name: reader.bases(node) for node in class_nodes}
    return ModuleSummary(
        functions=functions,
        classes=classes,
        class_facts={node.name: _class_facts(node) for node in class_nodes},
        imports=imports,
        path_entries=_path_entries(tree, os.path.abspath(path)) if "sys.path" in text else (),
        sets_legacy_keras="TF_USE_LEGACY_KERAS" in text,
        legacy_switch=legacy_switch(tree) if "TF_USE_LEGACY_KERAS" in text else None,
        tf1_only_imports=tf1_only_imports(tree) if os.path.basename(path) == "__init__.py" else frozenset(),
        clears_tf_config=clears_tf_config(tree) if "TF_CONFIG" in text else False,
        names_tf_config="TF_CONFIG" in text,
        keras2_build=keras2_build(tree, imported_as(imports), text) if may_build_for_keras2(text) else None,
        quiet_on_tf_config=_quiet_on_tf_config(text, imports),
        replica_counts=replica_count_members(tree) if REPLICA_COUNT in text else frozenset(),
    )


# Libraries whose calls make no strategy and read no TF_CONFIG (their distribution APIs aside).
QUIET_LIBRARIES = frozenset({"tensorflow", "keras", "tf_keras", "numpy", "tensorflow_datasets", "pandas", "matplotlib"})
# What in a module's text may read TF_CONFIG, make a reader, or start a process that inherits it.
_TF_CONFIG_READER_WORDS = (
    "strategy",
    "clusterresolver",
    "cluster_resolver",
    "estimator",
    "runconfig",
    "tf_config",
    "subprocess",
    "multiprocessing",
    "os.system",
    "popen",
    "runpy",
    "import_module",
    "exec(",
    "spawn",
)


def _quiet_on_tf_config(text: str, imports: Mapping[str, ImportRef]) -> bool:
    """Nothing in ``text`` names a TF_CONFIG reader, and every import is of a quiet library
    (TensorFlow, Keras, NumPy, the standard library): no project module it calls could make one."""
    lowered = text.lower()
    if any(word in lowered for word in _TF_CONFIG_READER_WORDS):
        return False
    return all(
        not ref.level and ref.module.split(".")[0] in QUIET_LIBRARIES | sys.stdlib_module_names
        for ref in imports.values()
    )


def imported_as(imports: Mapping[str, ImportRef]) -> dict[str, str]:
    """The dotted name each absolute import binds (`tf` -> `tensorflow`, `Input` -> `keras.Input`)."""
    return {
        local: f"{ref.module}.{ref.name}" if ref.name else ref.module for local, ref in imports.items() if not ref.level
    }


def path_entries(text: str, path: str) -> tuple[str, ...]:
    """The folders the module at ``path`` adds to ``sys.path`` (parsed only if it mentions it)."""
    if "sys.path" not in text:
        return ()
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    return _path_entries(tree, os.path.abspath(path))


def _statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement of the module, nested ones included, without walking expressions."""
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody"):
            stack.extend(getattr(node, name, ()))
        for handler in getattr(node, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(node, "cases", ()):
            stack.extend(case.body)


class _FunctionFacts(Mapping[str, FunctionFacts]):
    """The facts of a module's top-level functions, each read when first asked for: importers
    ask about a few functions of a module, not all of them."""

    def __init__(self, reader: _Reader, nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> None:
        self._reader = reader
        self._nodes = nodes
        self._facts: dict[str, FunctionFacts] = {}

    def __getitem__(self, name: str) -> FunctionFacts:
        if name not in self._facts:
            self._facts[name] = self._reader.function(self._nodes[name])
        return self._facts[name]

    def __contains__(self, name: object) -> bool:
        return name in self._nodes

    def __iter__(self) -> Iterator[str]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)


def module_imports(tree: ast.Module) -> dict[str, ImportRef]:
    """Every import of the module, wherever it stands (function-level imports are common)."""
    found: dict[str, ImportRef] = {}
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = ImportRef(0, alias.name)
                else:
                    head = alias.name.split(".")[0]
                    found.setdefault(head, ImportRef(0, head))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = ImportRef(node.level, node.module or "", alias.name)
    return found


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Reader:
    """Reads returns and base classes against the module's imports."""

    def __init__(self, imports: dict[str, ImportRef]) -> None:
        self.imports = imports

    def qualified(self, name: str) -> tuple[str, str] | None:
        """(canonical qualified name, raw root module) of an imported dotted name, or None."""
        head, _, rest = name.partition(".")
        ref = self.imports.get(head)
        if ref is None or ref.level:
            return None
        bound = f"{ref.module}.{ref.name}" if ref.name else ref.module
        raw = f"{bound}.{rest}" if rest else bound
        return canonical(raw), raw.split(".")[0]

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> FunctionFacts:
        body = list(_own_nodes(node))
        assigns: dict[str, list[ast.expr]] = {}
        compiled: set[str] = set()
        per_task = enters_scope = shuffles = False
        for child in body:
            if isinstance(child, ast.Assign):
                for target in child.targets:
                    if isinstance(target, ast.Name):
                        assigns.setdefault(target.id, []).append(child.value)
            elif isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Name) and child.value is not None:
                assigns.setdefault(child.target.id, []).append(child.value)
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                method = child.func.attr
                if method == "compile" and isinstance(child.func.value, ast.Name):
                    compiled.add(child.func.value.id)
                per_task = per_task or method == "shard"
                shuffles = shuffles or method == "shuffle"
            elif (isinstance(child, ast.Name) and child.id in _TASK_WORDS) or (
                isinstance(child, ast.Attribute) and child.attr in _TASK_WORDS
            ):
                per_task = True
            elif isinstance(child, (ast.With, ast.AsyncWith)):
                enters_scope = enters_scope or any(
                    isinstance(item.context_expr, ast.Call)
                    and isinstance(item.context_expr.func, ast.Attribute)
                    and item.context_expr.func.attr == "scope"
                    for item in child.items
                )
        outcomes = tuple(
            self.outcome(child.value, assigns, compiled, 0)
            for child in body
            if isinstance(child, ast.Return) and child.value is not None
        )
        return FunctionFacts(outcomes, per_task, enters_scope, shuffles, self._draws(body))

    def _draws(self, body: list[ast.AST]) -> bool:
        """The function returns something and draws random values (a process-wide generator's
        function, or an unseeded generator it makes) with no constant seed anywhere in it."""
        if not any(isinstance(child, ast.Return) and child.value is not None for child in body):
            return False
        draws = False
        for child in body:
            if not isinstance(child, ast.Call):
                continue
            found = self.qualified(dotted(child.func) or "")
            callee = found[0] if found is not None else ""
            if not callee.startswith(DRAWING_MODULES) or callee.startswith(STATELESS):
                continue
            seeds = [k.value for k in child.keywords if k.arg == "seed"]
            if callee in GENERATORS:
                seeds += child.args[:1]
            constant = any(not (isinstance(s, ast.Constant) and s.value is None) for s in seeds)
            if callee in SEEDING or constant:
                return False  # seeded with a value: every process may draw the same
            draws = True
        return draws

    def outcome(self, expr: ast.expr, assigns: dict[str, list[ast.expr]], compiled: set[str], depth: int) -> Outcome:
        """What ``expr`` evaluates to, following the function's own assignments a few steps."""
        if depth > 4:
            return Outcome(UNKNOWN)
        chained = False
        while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in DATASET_METHODS:
            expr, chained = expr.func.value, True
        if isinstance(expr, ast.Call):
            result = self._call(expr)
        elif isinstance(expr, ast.Name):
            result = self._name(expr.id, assigns, compiled, depth)
        else:
            result = Outcome(UNKNOWN)
        if not chained:
            return result
        if result.kind == DATASET:
            return result
        if result.kind == CALL:
            return Outcome(CALL, callee=result.callee, chained=True)
        return Outcome(UNKNOWN)

    def _call(self, call: ast.Call) -> Outcome:
        name = dotted(call.func)
        if name is None:
            return Outcome(UNKNOWN)
        found = self.qualified(name)
        if found is None:
            return Outcome(CALL, callee=name)  # a function or class of this module, or a relative import
        qualified, root = found
        if qualified.startswith(DATASET_CONSTRUCTORS):
            return Outcome(DATASET)
        if qualified == "tensorflow_datasets.load" and any(k.arg == "split" for k in call.keywords):
            return Outcome(DATASET)
        if qualified.startswith(MODEL_CALLS):
            return Outcome(MODEL, flavour=root if root in ("keras", "tf_keras") else "tensorflow")
        if root in LIBRARY_ROOTS:
            return Outcome(UNKNOWN)
        return Outcome(CALL, callee=name)

    def _name(self, name: str, assigns: dict[str, list[ast.expr]], compiled: set[str], depth: int) -> Outcome:
        values = [v for v in assigns.get(name, []) if _root_name(v) != name]  # `ds = ds.batch(8)` keeps ds
        outcomes = {self.outcome(v, assigns, compiled, depth + 1) for v in values}
        if len(outcomes) == 1:
            (only,) = outcomes
            if only.kind != UNKNOWN:
                return only
        if name in compiled:
            return Outcome(MODEL)  # compiled and returned: a model of the project, `tf.keras` unless told
        return Outcome(UNKNOWN)

    def bases(self, node: ast.ClassDef) -> tuple[Outcome, ...]:
        """One outcome per base class: a Keras model class, another class to resolve, or unknown."""
        found = []
        for base in node.bases:
            name = dotted(base)
            if name is None:
                found.append(Outcome(UNKNOWN))
                continue
            qualified = self.qualified(name)
            if qualified is None:
                found.append(Outcome(CALL, callee=name))
            elif qualified[0].startswith(_MODEL_BASES):
                root = qualified[1]
                found.append(Outcome(MODEL, flavour=root if root in ("keras", "tf_keras") else "tensorflow"))
            elif qualified[1] in LIBRARY_ROOTS:
                found.append(Outcome(UNKNOWN))
            else:
                found.append(Outcome(CALL, callee=name))
        return tuple(found)


def _class_facts(node: ast.ClassDef) -> ClassFacts:
    bases = tuple(name for name in (dotted(base) for base in node.bases) if name is not None)
    compiled: set[str] = set()
    for method in node.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            compiled |= _compiled_in(method)
    return ClassFacts(bases, frozenset(compiled))


def _compiled_in(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Methods ``method`` wraps with ``tf.function``: ``tf.function(self.m)``, or through a local
    name bound to ``self.m`` first (``fn = self.m`` ... ``fn = tf.function(fn)``)."""
    aliases: dict[str, set[str]] = {}
    for child in ast.walk(method):
        if isinstance(child, ast.Assign) and _self_attribute(child.value) is not None:
            for target in child.targets:
                if isinstance(target, ast.Name):
                    aliases.setdefault(target.id, set()).add(_self_attribute(child.value) or "")
    found: set[str] = set()
    for child in ast.walk(method):
        if isinstance(child, ast.Call) and (dotted(child.func) or "").rpartition(".")[2] == "function" and child.args:
            wrapped = child.args[0]
            attribute = _self_attribute(wrapped)
            if attribute is not None:
                found.add(attribute)
            elif isinstance(wrapped, ast.Name):
                found |= aliases.get(wrapped.id, set())
    return found


def _self_attribute(node: ast.expr) -> str | None:
    """``m`` for ``self.m``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, without those of nested functions, classes and lambdas."""
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _root_name(expr: ast.expr) -> str | None:
    """``ds`` for ``ds.batch(8).prefetch(1)``: the name a method chain starts from."""
    while True:
        if isinstance(expr, ast.Call):
            expr = expr.func
        elif isinstance(expr, ast.Attribute):
            expr = expr.value
        elif isinstance(expr, ast.Name):
            return expr.id
        else:
            return None


# sys.path insertions -----------------------------------------------------------------------


# Calls that give the same folder back (for finding modules, a resolved path is no different).
_SAME_PATH = frozenset(
    {"abspath", "realpath", "normpath", "resolve", "absolute", "Path", "PurePath", "str", "fspath", "expanduser"}
)


def _path_entries(tree: ast.Module, path: str) -> tuple[str, ...]:
    """Folders the module adds with ``sys.path.insert(i, X)``/``sys.path.append(X)`` where ``X``
    is a literal or built from ``__file__`` (``os.path.dirname``, ``join``, ``abspath``,
    ``pathlib.Path(...).parent``, ``/``); a relative literal counts from the module's folder."""
    constants: dict[str, ast.expr] = {}
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            constants[statement.targets[0].id] = statement.value
    folder = os.path.dirname(path)
    found: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if dotted(node.func.value) != "sys.path" or node.func.attr not in ("insert", "append"):
            continue
        args = node.args[1:] if node.func.attr == "insert" else node.args
        if len(args) != 1:
            continue
        value = _path_value(args[0], path, constants, 0)
        if value is not None:
            found.append(os.path.normpath(os.path.join(folder, value)))
    return tuple(found)


def _path_value(expr: ast.expr, path: str, constants: dict[str, ast.expr], depth: int) -> str | None:
    """The path string ``expr`` evaluates to, with ``__file__`` being ``path``; None if unknown."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Name):
        if expr.id == "__file__":
            return path
        value = constants.get(expr.id)
        return None if value is None else _path_value(value, path, constants, depth + 1)
    if isinstance(expr, ast.Attribute) and expr.attr == "parent":
        inner = _path_value(expr.value, path, constants, depth + 1)
        return None if inner is None else os.path.dirname(inner)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        left = _path_value(expr.left, path, constants, depth + 1)
        right = _path_value(expr.right, path, constants, depth + 1)
        return None if left is None or right is None else os.path.join(left, right)
    if not isinstance(expr, ast.Call):
        return None
    if isinstance(expr.func, ast.Attribute) and expr.func.attr in _SAME_PATH and not expr.args:
        return _path_value(expr.func.value, path, constants, depth + 1)  # `Path(__file__).resolve()`
    name = dotted(expr.func) or ""
    values = [_path_value(a, path, constants, depth + 1) for a in expr.args]
    args = [a for a in values if a is not None]
    if len(args) != len(values):
        return None
    last = name.rsplit(".", 1)[-1]
    if last == "join" and args:
        return os.path.join(*args)
    if len(args) != 1:
        return None
    (arg,) = args
    if last == "dirname":
        return os.path.dirname(arg)
    if last in _SAME_PATH:
        return arg
    return None
