"""Shared analysis: the `tf.data` pipeline an expression stands for, followed through variables.

Not a rule: TFD202 (is a per-worker dataset sharded?) and TFD501 (is a shuffle after the shard
point?) both walk pipelines written over several statements::

    ds = tf.data.Dataset.from_tensor_slices(x)
    ds = ds.shard(n, i)
    ds = ds.shuffle(512)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.dataflow import names_in
from fixer.tf.dataset_api import DATASET_CONSTRUCTORS, DATASET_METHODS, DISTRIBUTING, loads_tfds_split
from fixer.tf.task_words import WORKER_INDEX_NAMES

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_TASK_WORDS = WORKER_INDEX_NAMES | {"input_pipeline_id", "num_input_pipelines", "_input_shard", "_worker_seed"}


@dataclass(frozen=True)
class Pipeline:
    """The calls of a dataset pipeline, last applied first, and its source constructor (if known)."""

    methods: tuple[cst.Call, ...]
    source: cst.Call | None
    # Built by another module of the project that shuffles there: that order cannot be seeded here.
    hidden_shuffle: bool = False

    def names(self) -> list[str]:
        return [m.func.attr.value for m in self.methods if isinstance(m.func, cst.Attribute)]

    @property
    def sharded(self) -> bool:
        return "shard" in self.names()

    def before_shard(self, name: str) -> list[cst.Call]:
        """The ``name`` method calls that run before the first ``.shard`` (all of them without one),
        in the order they run."""
        found = []
        for method in reversed(self.methods):
            method_name = method.func.attr.value if isinstance(method.func, cst.Attribute) else ""
            if method_name == "shard":
                break
            if method_name == name:
                found.append(method)
        return found

    def per_task(self, tf: TFModel | None = None) -> bool:
        """The pipeline reads something chosen by the task (``files[task_id]``,
        ``files[idx::n]`` with ``idx`` read from the resolver or TF_CONFIG), or shards."""
        nodes = [*self.methods, *([self.source] if self.source is not None else [])]
        for node in nodes:
            for arg in node.args:
                if names_in(arg.value) & _TASK_WORDS:
                    return True
                if tf is not None and task_dependent(tf, arg.value):
                    return True
        return self.sharded


# String keys that name the task index in a parsed TF_CONFIG or the environment.
_INDEX_KEYS = frozenset({"task_index", "task_id", "rank", "worker_index", "worker_id"})


def _index_lookup(node: cst.CSTNode) -> bool:
    """``tf_config["task"]["index"]`` or ``os.environ["TASK_INDEX"]``: a task index read by key."""
    keys: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            if isinstance(string.evaluated_value, str):
                keys.add(string.evaluated_value.lower())

    node.visit(_Collect())
    return ("task" in keys and "index" in keys) or bool(keys & _INDEX_KEYS)


def task_dependent(tf: TFModel, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """True when ``expr`` depends on this worker's task index: it names it (``r.task_id``,
    ``task_index``), reads it by key (``cfg["task"]["index"]``), or uses a variable bound to such a
    value (``idx = resolver.task_id`` then ``files[idx::n]``), followed through a few bindings."""
    if names_in(expr) & _TASK_WORDS or _index_lookup(expr):
        return True
    if depth >= 3:
        return False
    for name in sorted(names_in(expr)):
        for use in tf.index.names.get(name, []):
            if use is expr or tf.index.is_within(use, expr):
                bound = binding(tf, name, use)
                if bound is not None and task_dependent(tf, bound[0], depth + 1):
                    return True
                break
    return False


def reads_task_selection(tf: TFModel) -> bool:
    """Some dataset of the module reads what the task index selects: a constructor given a
    task-dependent argument (``TFRecordDataset(files)`` with ``files = paths[r.task_id::n]``, or
    ``shards[idx]`` with ``idx`` read from TF_CONFIG's ``task.index``)."""
    for call in tf.index.calls:
        if (tf.names.callee(call) or "").startswith(DATASET_CONSTRUCTORS):
            if any(task_dependent(tf, arg.value) for arg in call.args):
                return True
    return False


def binding(tf: TFModel, name: str, at: cst.CSTNode) -> tuple[cst.BaseExpression, cst.CSTNode] | None:
    """The value of the plain assignment ``name = ...`` that reaches ``at``, and the assignment.

    ``tf.semantic`` gives the bindings that can reach ``at``; of several (if/else arms, a
    loop), the last one written before ``at`` is taken, and for a module name a function reads
    (when it runs) the latest. None when that one is a parameter or binds otherwise (a loop
    target, an import, an unpacked tuple).
    """
    index, semantic = tf.index, tf.semantic
    reaching = semantic.reaching(name, at)
    from_function = index.enclosing_function(at) is not None
    if from_function and all(b.scope is semantic.module_scope for b in reaching):
        before = []  # read when the function runs: the latest module binding
    else:
        before = [b for b in reaching if index.before(b.statement, at) and not index.is_within(at, b.statement)]
    if not reaching:
        return None
    chosen = (before or reaching)[-1]
    if not isinstance(chosen.statement, cst.Assign):
        return None
    if not any(target.target is chosen.node for target in chosen.statement.targets):
        return None
    return chosen.statement.value, chosen.statement


def pipeline(tf: TFModel, expr: cst.BaseExpression, at: cst.CSTNode | None = None, depth: int = 0) -> Pipeline | None:
    """The plain (not distributed) `tf.data` pipeline ``expr`` evaluates to, or None.

    Variables are followed to their last binding before ``at`` (``expr`` itself by default), and
    a call of a module function to what it returns. A dataset built by another module of the
    project has no visible source; one whose builder shards or reads the task index is not
    followed (it may already be this worker's share).
    """
    at = expr if at is None else at
    methods: list[cst.Call] = []
    node: cst.BaseExpression = expr
    for _ in range(64):
        if isinstance(node, cst.Call):
            callee = tf.names.callee(node)
            if callee is not None and callee.startswith(DATASET_CONSTRUCTORS):
                if not callee.endswith((".zip", ".sample_from_datasets", ".choose_from_datasets")):
                    return Pipeline(tuple(methods), node)
                return Pipeline(tuple(methods), None)
            if loads_tfds_split(callee, node):
                # A split read from TFRecord files whose count is not visible here: no known source,
                # so only an explicit policy says how auto-sharding splits it.
                return Pipeline(tuple(methods), None)
            imported = tf.project.returned(node.func)
            if imported is not None or callee is not None:
                if imported is None or imported.kind != "dataset" or imported.per_task:
                    return None  # not a dataset, or one the builder may already split by worker
                return Pipeline(tuple(methods), None, hidden_shuffle=imported.shuffles)
            func = node.func
            if isinstance(func, cst.Attribute):
                if func.attr.value in DISTRIBUTING:
                    return None
                if func.attr.value in DATASET_METHODS:
                    methods.append(node)
                    node = func.value
                    at = node
                    continue
                return None
            if isinstance(func, cst.Name) and depth < 3:
                returned = _returned(tf, func.value)
                if returned is None:
                    return None
                inner = pipeline(tf, returned, returned, depth + 1)
                return None if inner is None else Pipeline(tuple(methods) + inner.methods, inner.source)
            return None
        if isinstance(node, cst.Name):
            bound = binding(tf, node.value, at)
            if bound is None:
                return None
            node, at = bound
            continue
        return None
    return None


def _returned(tf: TFModel, name: str) -> cst.BaseExpression | None:
    functions = tf.index.functions_by_name.get(name, [])
    if len(functions) != 1:
        return None
    returns = [r for r in tf.index.in_function("returns", functions[0]) if r.value is not None]
    return returns[-1].value if len(returns) == 1 else None


# Auto-sharding by data needs every worker to produce the same order ------------------------

SHUFFLE_SEED = "42"
_GLOBAL_SEEDERS = frozenset({"tensorflow.random.set_seed", "keras.utils.set_random_seed"})
_FILE_READERS = (
    "tensorflow.data.TFRecordDataset",
    "tensorflow.data.TextLineDataset",
    "tensorflow.data.FixedLengthRecordDataset",
)


def seed_argument(call: cst.Call) -> cst.BaseExpression | None:
    """The ``seed`` given to a ``shuffle`` call (keyword or second positional), or None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "seed":
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[1].value if len(positional) > 1 else None


def unseeded_shuffles(tf: TFModel, found: Pipeline) -> list[cst.Call] | None:
    """The ``shuffle`` calls of ``found`` to give one constant seed, so that every worker shuffles
    identically and sharding by data keeps disjoint slices (ground truth G7b: an unseeded shuffle
    before the auto-shard point duplicates and drops examples). None when the order cannot be made
    identical here: a shuffle seeded by the task or given no argument to follow, or a global seed
    that differs per worker (TensorFlow derives every op seed from the global seed)."""
    if found.hidden_shuffle:
        return None  # the builder in another module shuffles: its order cannot be made identical here
    shuffles = [m for m in found.methods if isinstance(m.func, cst.Attribute) and m.func.attr.value == "shuffle"]
    if not shuffles:
        return []
    for call in tf.index.calls:
        if (tf.names.callee(call) or "") in _GLOBAL_SEEDERS and call.args and task_dependent(tf, call.args[0].value):
            return None
    unseeded = []
    for shuffle in shuffles:
        seed = seed_argument(shuffle)
        if seed is not None:
            if task_dependent(tf, seed):
                return None
            continue
        if not shuffle.args:
            return None
        unseeded.append(shuffle)
    return unseeded


def nondeterministic(found: Pipeline) -> cst.Call | None:
    """A method of ``found`` run with ``deterministic=False`` (its output order varies)."""
    for method in found.methods:
        for arg in method.args:
            if (
                arg.keyword is not None
                and arg.keyword.value == "deterministic"
                and isinstance(arg.value, cst.Name)
                and arg.value.value == "False"
            ):
                return method
    return None


def reads_file_list(tf: TFModel, found: Pipeline) -> bool:
    """The pipeline reads records from a list of files (``list_files``, or a reader given a list,
    a pattern's matches or a dataset of names), which `AutoShardPolicy.FILE` can split by file.
    A reader given one literal path cannot be split by file."""
    if found.source is None:
        return False
    callee = tf.names.callee(found.source) or ""
    if callee == "tensorflow.data.Dataset.list_files":
        return True
    if callee.startswith(_FILE_READERS):
        first = found.source.args[0].value if found.source.args else None
        return first is not None and not isinstance(
            first, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
        )
    if callee == "tensorflow.data.Dataset.from_tensor_slices":
        return any(
            isinstance(m.func, cst.Attribute)
            and m.func.attr.value in ("interleave", "flat_map")
            and any(
                (tf.names.qualified(a.value) or "").startswith(_FILE_READERS) or _calls_reader(tf, a.value)
                for a in m.args
            )
            for m in found.methods
        )
    return False


def _calls_reader(tf: TFModel, node: cst.CSTNode) -> bool:
    return any(
        (tf.names.callee(c) or "").startswith(_FILE_READERS) for c in tf.index.calls if tf.index.is_within(c, node)
    )


# Which datasets a strategy auto-shards ----------------------------------------------------

_KERAS_LOOPS = frozenset({"fit", "evaluate"})


def distributed_inputs(tf: TFModel) -> list[tuple[cst.Call, cst.BaseExpression]]:
    """The datasets a strategy distributes with auto-sharding, and the calls that do it:
    ``strategy.experimental_distribute_dataset(ds)``, and ``model.fit(ds)``/``evaluate(ds)``
    (also ``validation_data=ds``), which distribute their dataset the same way under the
    strategy (`experimental_distribute_dataset`, AUTO policy)."""
    found = []
    for call in tf.index.calls:
        func = call.func
        if not isinstance(func, cst.Attribute) or not call.args:
            continue
        if func.attr.value == "experimental_distribute_dataset":
            if tf.strategies.is_strategy(func.value):
                found.append((call, call.args[0].value))
        elif func.attr.value in _KERAS_LOOPS:
            for position, arg in enumerate(call.args):
                keyword = arg.keyword.value if arg.keyword is not None else None
                if (keyword is None and position == 0) or keyword in ("x", "validation_data"):
                    found.append((call, arg.value))
    return found


FILE_SOURCES = (
    "tensorflow.data.TFRecordDataset",
    "tensorflow.data.TextLineDataset",
    "tensorflow.data.FixedLengthRecordDataset",
    "tensorflow.data.Dataset.list_files",
    "tensorflow.data.experimental.make_",
)


def auto_shard_policy(tf: TFModel, found: Pipeline) -> str | None:
    """The auto-shard policy set on the options a pipeline applies (``with_options(opts)``):
    ``"OFF"``, ``"DATA"``, ``"FILE"``, ``"AUTO"``, or None when it sets none that can be read."""
    for method in found.methods:
        if not (isinstance(method.func, cst.Attribute) and method.func.attr.value == "with_options" and method.args):
            continue
        options = method.args[0].value
        if not isinstance(options, cst.Name):
            return "unknown"
        for assign in tf.index.assigns:
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
                continue
            target = assign.targets[0].target
            root: cst.BaseExpression = target
            while isinstance(root, cst.Attribute):
                root = root.value
            if (
                isinstance(target, cst.Attribute)
                and target.attr.value == "auto_shard_policy"
                and isinstance(root, cst.Name)
                and root.value == options.value
            ):
                value = tf.names.qualified(assign.value) or ""
                return value.rsplit(".", 1)[-1] if "AutoShardPolicy." in value else "unknown"
    return None


def data_sharded(tf: TFModel, found: Pipeline) -> bool:
    """True when auto-sharding splits ``found`` by data: `AutoShardPolicy.DATA`, or the default
    policy (AUTO) over a source that is not read from files, where sharding by file fails and
    TensorFlow falls back to data (ground truth G2/G3). Each worker then reads the whole pipeline
    and keeps its slice of every global batch."""
    if found.sharded:
        return False  # sharded by hand: the explicit `.shard` is the shard point
    policy = auto_shard_policy(tf, found)
    if policy == "DATA":
        return True
    if policy is not None and policy != "AUTO":
        return False
    return found.source is not None and not (tf.names.callee(found.source) or "").startswith(FILE_SOURCES)
