"""Shared analysis for the checkpoint rules: save calls, per-worker paths and chief guards (the
per-worker fix they plan is built in fixer/fixes/checkpoint_edits.py).

Not a rule: TFD502 (every worker writes one path) and TFD503 (only the chief saves) both use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import libcst as cst

from fixer.semantic.bindings import Binding, BindingKind, Branch
from fixer.semantic.targets import assignment_targets
from fixer.tf.calls import argument_value
from fixer.tf.dataflow import names_in, value_names
from fixer.tf.flag_arms import off_by_default
from fixer.tf.parameters import call_position
from fixer.tf.strategies import MULTI_WORKER_CLASSES
from fixer.tf.task_index import holds_task_index, reads_host_name, task_index_sources
from fixer.tf.task_words import WORKER_INDEX_NAMES

if TYPE_CHECKING:
    from fixer.semantic.conditions import Condition
    from fixer.tf.model import TFModel

_SAVES = frozenset({"save", "save_weights", "write"})
_CHECKPOINT = "tensorflow.train.Checkpoint"
# Methods only a Keras model has among the objects a training script saves: a name they are called
# on holds a model, whatever built it (a factory of an unknown package, a parameter, a loader).
_MODEL_METHODS = frozenset({"compile", "fit"})
_MANAGER = "tensorflow.train.CheckpointManager"
_MODELS = ("keras.Sequential", "keras.Model", "keras.models.", "keras.applications.", "keras.saving.load_model")
# A launcher's rank of this process (MPI `comm.Get_rank()`, a `comm_rank()` helper, `hvd.rank()`
# through "rank"): where the launcher starts one worker per rank, the rank is the task index
# (ledger16b: HabanaAI's ViT writes `comm_rank()` into TF_CONFIG's task index).
_LAUNCHER_RANKS = frozenset({"comm_rank", "Get_rank", "get_rank", "mpi_rank"})
# Identifiers that hold this process's task index (compared with 0 by a chief test).
_INDEX_WORDS = WORKER_INDEX_NAMES | _LAUNCHER_RANKS | {"worker_rank", "process_index", "process_id"}
# Identifiers that make a path (or a value it is built from) depend on the task.
_TASK_WORDS = _INDEX_WORDS | {
    "task_type",
    "local_rank",
    "_worker_path",
    "write_filepath",
    "write_dirpath",
    "chief",
    "is_chief",
}
# String keys that name the task index (`tf_config["task"]["index"]`, `os.environ["TASK_INDEX"]`).
# The launchers' rank variables count too (Open MPI, MPICH/Intel MPI, PMIx, Slurm).
_INDEX_KEYS = frozenset(
    {
        "task_index",
        "task_id",
        "rank",
        "worker_index",
        "worker_id",
        "index",
        "ompi_comm_world_rank",
        "pmi_rank",
        "pmix_rank",
        "slurm_procid",
    }
)
# Words of a flag that, false, leaves one process (`if not args.distributed or rank == 0:`).
_MULTI_PROCESS_FLAGS = ("distributed", "multi_worker", "horovod")
_MAIN_WORDS = frozenset({"is_master", "is_main", "is_main_process", "is_primary", "master"})
# Calls that create a new file or directory under a name no other process gets (the name is chosen
# and created atomically): a path built on one is this worker's own, whichever branch made it.
# `tempfile.gettempdir()` is not one of them: it names the shared temporary folder.
_FRESH_TEMPORARY = frozenset(
    {"tempfile.mkdtemp", "tempfile.mkstemp", "tempfile.TemporaryDirectory", "tempfile.NamedTemporaryFile"}
)
_EXITS = (cst.Return, cst.Continue, cst.Break, cst.Raise)
_EXIT_CALLS = frozenset({"sys.exit", "os._exit", "os.abort"})
_EXIT_BUILTINS = frozenset({"exit", "quit"})
# What a strategy only known by its use (or a factory of unknown kind) is recorded as.
_GENERIC_STRATEGY = "tensorflow.distribute.Strategy"


@dataclass(frozen=True)
class Save:
    """One save and the expression of the path it writes.

    ``kind`` is ``"save"`` (a model or checkpoint save call), ``"manager"`` (a
    ``CheckpointManager(...)`` construction: ``path`` is its directory) or ``"manager_save"``
    (``manager.save()``: ``path`` is the directory of ``manager``, the construction).
    """

    call: cst.Call
    path: cst.BaseExpression
    kind: str
    manager: Save | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ChiefGuard:
    """What makes a save run on the chief only.

    ``node`` is the `if` (or, for ``how == "caller"``, the guarded call of the function holding
    the save); ``others`` are the conjuncts of an `and` test that do not test for the chief
    (kept by a fix). ``how``: ``"if"`` (the save is in the body of a chief test), ``"exit"``
    (an earlier `if not chief: return` skips it) or ``"caller"`` (the function holding the save
    is only called under a chief test).
    """

    node: cst.CSTNode
    how: str
    others: tuple[cst.BaseExpression, ...] = ()


# Which names hold models, checkpoints and managers -----------------------------------------


def _returns_model(tf: TFModel, func: cst.FunctionDef, classes: set[str]) -> bool:
    """A factory: a module function that builds a Keras model (or checkpoint) and returns something."""
    if not any(r.value is not None for r in tf.index.in_function("returns", func)):
        return False
    for call in tf.index.calls:
        if tf.index.enclosing_function(call) is not func:
            continue
        callee = tf.names.callee(call) or ""
        if callee.startswith(_MODELS) or callee == _CHECKPOINT:
            return True
        if isinstance(call.func, cst.Name) and call.func.value in classes:
            return True
    return False


def _model_classes(tf: TFModel) -> set[str]:
    """Classes of the module that subclass a Keras model."""
    found = set()
    for cls in tf.index.classes:
        for base in cls.bases:
            if (tf.names.qualified(base.value) or "").startswith(
                ("keras.Model", "keras.models.Model", "keras.Sequential")
            ):
                found.add(cls.name.value)
    return found


def _savers(tf: TFModel) -> set[str]:
    """Source texts of the names (and attributes) bound to Keras models and `tf.train.Checkpoint`s."""
    classes = _model_classes(tf)
    factories = {f.name.value for f in tf.index.functions if _returns_model(tf, f, classes)}
    keys: set[str] = set()
    for assign in tf.index.assigns:
        if isinstance(assign, cst.AugAssign) or assign.value is None or not isinstance(assign.value, cst.Call):
            continue
        call = assign.value
        callee = tf.names.callee(call) or ""
        local = call.func.value if isinstance(call.func, cst.Name) and tf.names.qualified(call.func) is None else None
        imported = None if callee.startswith(_MODELS) or callee == _CHECKPOINT else tf.project.returned(call.func)
        from_project = imported is not None and imported.kind == "model"  # built by another module of the project
        if (
            callee.startswith(_MODELS)
            or callee == _CHECKPOINT
            or local in factories
            or local in classes
            or from_project
        ):
            targets = assignment_targets(assign)
            keys.update(tf.source(t) for t in targets if isinstance(t, (cst.Name, cst.Attribute)))
    return keys | _trained(tf)


def _trained(tf: TFModel) -> set[str]:
    """Source texts of the names (and attributes) that ``compile`` or ``fit`` is called on, other than
    imported modules (``re.compile``)."""
    found = set()
    for call in tf.index.calls:
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in _MODEL_METHODS
            and isinstance(func.value, (cst.Name, cst.Attribute))
            and tf.names.qualified(func.value) is None
        ):
            found.add(tf.source(func.value))
    return found


def _managers(tf: TFModel) -> dict[str, cst.Call]:
    """Names bound to a `tf.train.CheckpointManager(...)`, and the construction."""
    found = {}
    for assign in tf.index.assigns:
        if (
            isinstance(assign, cst.Assign)
            and isinstance(assign.value, cst.Call)
            and tf.names.callee(assign.value) == _MANAGER
        ):
            for target in assign.targets:
                if isinstance(target.target, (cst.Name, cst.Attribute)):
                    found[tf.source(target.target)] = assign.value
    return found


def save_calls(tf: TFModel) -> list[Save]:
    """Saves of Keras models and `tf.train.Checkpoint`s, `CheckpointManager` directories and saves."""
    savers = _savers(tf)
    managers = _managers(tf)
    constructions: dict[cst.Call, Save] = {}
    found = []
    for call in tf.index.calls:
        if tf.names.callee(call) == _MANAGER:
            path = argument_value(call, 1, "directory")
            if path is not None:
                constructions[call] = Save(call, path, "manager")
                found.append(constructions[call])
    for call in tf.index.calls:
        func = call.func
        if not isinstance(func, cst.Attribute):
            continue
        owner = func.value
        inline_checkpoint = isinstance(owner, cst.Call) and tf.names.callee(owner) == _CHECKPOINT
        if func.attr.value in _SAVES and (tf.source(owner) in savers or inline_checkpoint):
            path = argument_value(call, 0, "filepath", "file_prefix")
            if path is not None:
                found.append(Save(call, path, "save"))
        elif func.attr.value == "save" and tf.source(owner) in managers:
            manager = constructions.get(managers[tf.source(owner)])
            if manager is not None:
                found.append(Save(call, manager.path, "manager_save", manager))
    return found


# Does a path depend on the task? --------------------------------------------------------------


def _identifiers(node: cst.CSTNode) -> set[str]:
    """Names and attribute names in ``node`` (``names_in`` sees both)."""
    return names_in(node)


def _mentions_task(words: set[str]) -> bool:
    # A module-level constant spells the same word in capitals (`TASK_INDEX = tf_config[...]`).
    words = {w.lower() for w in words}
    return bool(words & _TASK_WORDS) or any("chief" in w or w.startswith("task_") for w in words)


def per_worker(tf: TFModel, path: cst.BaseExpression, depth: int = 0, sources: set[Binding] | None = None) -> bool:
    """True when the path already depends on the task (so workers do not collide).

    Follows the variables the path is built from to their bindings (``p = write_filepath(...,
    task_id)``, ``d = "/ckpt" if is_chief else f".../workertemp_{task_id}"``), a function
    parameter to the arguments its callers pass, and a local helper that computes the path to
    its body. A value the file puts into TF_CONFIG's task index, or an environment variable named
    for the worker's number, is the task (``"model" + str(worker_number)``: fixer/tf/task_index.py);
    the host's name (``os.environ["SLURMD_NODENAME"]``, ``socket.gethostname()``) differs per worker too.
    """
    if sources is None:
        sources = task_index_sources(tf)
    if _mentions_task(_identifiers(path)) or _fresh_temporary(tf, path) or holds_task_index(tf, path, sources):
        return True
    if reads_host_name(tf, path):  # `dir + "/tmp/" + os.environ["SLURMD_NODENAME"]`: one worker per host
        return True
    if depth >= 4:
        return False
    for name in value_names(path):
        for value in _reaching_values(tf, name, path):
            if per_worker(tf, value, depth + 1, sources):
                return True
    for attribute in _attributes(path):
        for value in _attribute_values(tf, attribute):
            if per_worker(tf, value, depth + 1, sources):
                return True
    for call in _calls_in(tf, path):
        if isinstance(call.func, cst.Name):
            for func in tf.index.functions_by_name.get(call.func.value, []):
                if _mentions_task(_identifiers(func.body)):
                    return True
    return False


def _fresh_temporary(tf: TFModel, path: cst.BaseExpression) -> bool:
    """The path is built on a temporary directory (or file) this process creates: a call of
    ``tempfile.mkdtemp()`` and the like in it, or a name a ``with tempfile.TemporaryDirectory() as d``
    that reaches it gives (the chief-or-temporary-directory pattern: the other workers save into
    their own `mkdtemp()` folder and remove it)."""
    if any(tf.names.callee(call) in _FRESH_TEMPORARY for call in _calls_in(tf, path)):
        return True
    for name in value_names(path):
        for held in tf.semantic.reaching(name, path):
            if (
                held.kind is BindingKind.WITH
                and isinstance(held.value, cst.Call)
                and tf.names.callee(held.value) in _FRESH_TEMPORARY
            ):
                return True
    return False


def _attributes(node: cst.CSTNode) -> list[cst.Attribute]:
    """``self.ckpt_dir`` and ``cfg.out`` in ``node``: attributes of a plain name (not called)."""
    found: list[cst.Attribute] = []

    class _Collect(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            if isinstance(attribute.value, cst.Name):
                found.append(attribute)
                return False
            return True

        def visit_Call(self, call: cst.Call) -> bool:
            for arg in call.args:
                arg.value.visit(self)
            if isinstance(call.func, cst.Attribute):
                call.func.value.visit(self)
            return False

    node.visit(_Collect())
    return found


def _attribute_values(tf: TFModel, attribute: cst.Attribute) -> list[cst.BaseExpression]:
    """Values assigned to ``self.x`` (in any method of the same class) or to ``obj.x`` (in the same
    function or the module), in any order: every value the attribute may hold. Attributes are not
    names, so the semantic model has no bindings for them; this lists assignments, it does not
    decide which one reaches."""
    # An attribute of a plain name (see _attributes).
    owner, attr = cast("cst.Name", attribute.value).value, attribute.attr.value
    func = tf.index.enclosing_function(attribute)
    cls = tf.index.method_class(func) if isinstance(func, cst.FunctionDef) else None
    values = []
    for assign in tf.index.assigns:
        targets = assignment_targets(assign)
        if assign.value is None or not any(
            isinstance(t, cst.Attribute)
            and isinstance(t.value, cst.Name)
            and t.value.value == owner
            and t.attr.value == attr
            for t in targets
        ):
            continue
        where = tf.index.enclosing_function(assign)
        if owner == "self" and cls is not None:
            if isinstance(where, cst.FunctionDef) and tf.index.method_class(where) is cls:
                values.append(assign.value)
        elif where is func or where is None:
            values.append(assign.value)
    return values


def _calls_in(tf: TFModel, node: cst.CSTNode) -> list[cst.Call]:
    return [c for c in tf.index.calls if tf.index.is_within(c, node)]


def _reaching_values(tf: TFModel, name: str, at: cst.CSTNode) -> list[cst.BaseExpression]:
    """Values ``name`` may hold at ``at``: what the assignments that reach it assign
    (``tf.semantic``; the whole right-hand side of an unpacking), and for a parameter its
    default and what the function's callers pass."""
    values: list[cst.BaseExpression] = []
    for binding in tf.semantic.reaching(name, at):
        statement = binding.statement
        if isinstance(statement, cst.Assign | cst.AnnAssign | cst.AugAssign) and statement.value is not None:
            values.append(statement.value)
        elif isinstance(binding.node, cst.Param) and isinstance(statement, cst.FunctionDef):
            if binding.node.default is not None:
                values.append(binding.node.default)
            position = call_position(statement, name, skip_first=tf.index.method_class(statement) is not None)
            for site in tf.strategies.call_sites(statement):
                argument = argument_value(site, position, name)
                if argument is not None:
                    values.append(argument)
    return values


# Which saves only the chief runs --------------------------------------------------------------


def _strings(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            found.add(string.evaluated_value if isinstance(string.evaluated_value, str) else "")

    node.visit(_Collect())
    return found


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


def _task_index(node: cst.BaseExpression, tf: TFModel | None = None, depth: int = 0) -> bool:
    """An expression holding this process's task index: ``task_id``, ``tf_config["task"]["index"]``...,
    or (given ``tf``) a variable bound to one (``worker = json.loads(...)["task"]["index"]``)."""
    words = names_in(node)
    if words & _INDEX_WORDS:
        return True
    keys = {s.lower() for s in _strings(node)}
    if bool(keys & _INDEX_KEYS) and (
        "index" not in keys or "task" in keys or keys & {"task_index", "rank"} or len(keys) > 1
    ):
        return True
    if tf is not None and isinstance(node, cst.Name) and depth < 3:
        from fixer.tf.pipelines import binding

        bound = binding(tf, node.value, node)
        return bound is not None and _task_index(bound[0], tf, depth + 1)
    return False


def _last_identifier(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call):
        node = node.func
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def chief_test(expr: cst.BaseExpression, tf: TFModel | None = None) -> bool:
    """True when ``expr`` holds on the chief only: ``is_chief``, ``_is_chief(...)``,
    ``task_id == 0``, ``0 == tf_config["task"]["index"]``, ``task_type == "chief"``,
    ``task_type in (None, "chief")``, a launcher's rank (``comm_rank() == 0``,
    ``MPI.COMM_WORLD.Get_rank() == 0``, ``int(os.environ["OMPI_COMM_WORLD_RANK"]) == 0``), and
    `and`/`or` combinations of these (``not args.distributed or rank == 0``: one process, or the chief)."""
    if isinstance(expr, cst.BooleanOperation):
        left_chief, right_chief = chief_test(expr.left, tf), chief_test(expr.right, tf)
        if isinstance(expr.operator, cst.And):
            return left_chief or right_chief
        return (left_chief or right_chief) and all(
            _mentions_task(names_in(side)) or chief_test(side, tf) or _single_process(side)
            for side in (expr.left, expr.right)
        )
    if isinstance(expr, cst.UnaryOperation):
        return False
    identifier = _last_identifier(expr)
    if identifier is not None and not isinstance(expr, cst.Comparison):
        return "chief" in identifier.lower() or identifier in _MAIN_WORDS
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        target = expr.comparisons[0]
        operator, left, right = target.operator, expr.left, target.comparator
        if isinstance(operator, (cst.Equal, cst.Is)):
            return _names_the_chief(left, right, tf)
        if isinstance(operator, cst.In):
            return "chief" in _strings(right)
    return False


def _single_process(expr: cst.BaseExpression) -> bool:
    """``not args.distributed`` (``not multi_worker``, ``not use_horovod``): true only when one
    process runs, which is then the chief; the other side of the `or` picks the chief otherwise."""
    if not (isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not)):
        return False
    identifier = _last_identifier(expr.expression) or ""
    return any(word in identifier.lower() for word in _MULTI_PROCESS_FLAGS)


def _names_the_chief(left: cst.BaseExpression, right: cst.BaseExpression, tf: TFModel | None) -> bool:
    """True when the two sides of an (in)equality compare a task index with 0, or name "chief"."""
    if (_is_zero(right) and _task_index(left, tf)) or (_is_zero(left) and _task_index(right, tf)):
        return True
    return "chief" in _strings(left) | _strings(right)


def not_chief_test(expr: cst.BaseExpression, tf: TFModel | None = None) -> bool:
    """True when ``expr`` holds on every worker but the chief (``not is_chief``, ``task_id != 0``)."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return chief_test(expr.expression, tf)
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        target = expr.comparisons[0]
        operator, left, right = target.operator, expr.left, target.comparator
        if isinstance(operator, (cst.NotEqual, cst.IsNot)):
            return _names_the_chief(left, right, tf)
        if isinstance(operator, cst.GreaterThan) and _is_zero(right) and _task_index(left, tf):
            return True
        if isinstance(operator, cst.NotIn):
            return "chief" in _strings(right)
    return False


def _conjuncts(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(expr, cst.BooleanOperation) and isinstance(expr.operator, cst.And) and not expr.lpar:
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]


def chief_guard(tf: TFModel, node: cst.CSTNode, depth: int = 0) -> ChiefGuard | None:
    """What makes ``node`` run on the chief only, if anything (see :class:`ChiefGuard`)."""
    child: cst.CSTNode = node
    for ancestor in tf.index.ancestors(node):
        if isinstance(ancestor, cst.Lambda):
            return None
        if isinstance(ancestor, cst.FunctionDef):
            return _caller_guard(tf, ancestor, depth)
        if isinstance(ancestor, cst.If) and child is ancestor.body and chief_test(ancestor.test, tf):
            parts = _conjuncts(ancestor.test)
            others = tuple(p for p in parts if not chief_test(p, tf))
            return ChiefGuard(ancestor, "if", others if len(others) < len(parts) else ())
        if isinstance(ancestor, (cst.IndentedBlock, cst.Module)) and _exits_unless_chief(tf, ancestor, child):
            return ChiefGuard(child, "exit")
        child = ancestor
    return None


def _exits_unless_chief(tf: TFModel, block: cst.IndentedBlock | cst.Module, statement: cst.CSTNode) -> bool:
    """An earlier `if not is_chief: return` (continue, break, raise, `sys.exit()`, `exit()`,
    `os._exit()`) in ``block`` skips ``statement``: every other task has left it."""
    for sibling in block.body:
        if sibling is statement:
            return False
        if (
            isinstance(sibling, cst.If)
            and sibling.orelse is None
            and not_chief_test(sibling.test, tf)
            and isinstance(sibling.body, cst.IndentedBlock)
            and any(isinstance(s, cst.SimpleStatementLine) and _leaves(tf, s.body[-1]) for s in sibling.body.body)
        ):
            return True
    return False


def _leaves(tf: TFModel, small: cst.BaseSmallStatement) -> bool:
    """``small`` leaves the block for good: a jump, or a call that ends the process."""
    if isinstance(small, _EXITS):
        return True
    call = small.value if isinstance(small, cst.Expr) else None
    if not isinstance(call, cst.Call):
        return False
    if isinstance(call.func, cst.Name) and call.func.value in _EXIT_BUILTINS:
        return not tf.semantic.resolve(call.func)  # the builtin, not a function of the file
    return tf.names.callee(call) in _EXIT_CALLS


def _caller_guard(tf: TFModel, func: cst.FunctionDef, depth: int) -> ChiefGuard | None:
    """The function holding a save is called only under chief guards."""
    if depth >= 2:
        return None
    sites = tf.strategies.call_sites(func)
    if not sites:
        return None
    guards = [chief_guard(tf, site, depth + 1) for site in sites]
    if all(g is not None for g in guards):
        return ChiefGuard(sites[0], "caller")
    return None


def may_be_multi_worker(tf: TFModel, strategy: str, statement: cst.CSTNode) -> bool:
    """False when the strategy ``strategy`` names at ``statement`` is known to be a one-machine one
    (Mirrored, OneDevice, TPU, the default): it has no cluster resolver (`None`, measured:
    benchmarks/probe_single_machine_cluster_resolver.py), so the per-worker helpers have nothing to
    tell the workers apart by, and one process writes the path anyway."""
    strategies = tf.strategies
    if "." in strategy:
        kinds = strategies.strategy_keys.get(strategy, frozenset())
    else:
        held = tf.semantic.reaching(strategy, statement)
        found = [strategies.constructor_kind(b.value) if b.value is not None else None for b in held]
        if not found or None in found:
            return True
        kinds = frozenset(k for k in found if k is not None)
    return not kinds or bool(kinds & MULTI_WORKER_CLASSES) or _GENERIC_STRATEGY in kinds


def multi_worker_at(tf: TFModel, node: cst.CSTNode) -> bool:
    """False when no MultiWorkerMirroredStrategy can be the strategy where ``node`` runs: every
    name the module binds to one holds, by the bindings that reach ``node``, only other strategies
    (a save in the TPU-only branch, `if tpu: strategy = TPUStrategy(...)`; an arm a flag's default
    does not select and no launcher of the project passes: fixer/tf/flag_arms.py). True when unsure."""
    strategies = tf.strategies
    names = set()
    for call, kind in strategies.constructions:
        if kind not in MULTI_WORKER_CLASSES or strategies.discarded(call):
            continue  # a constructor whose object is thrown away runs nothing
        parent = tf.index.parent.get(call)
        if not (
            isinstance(parent, cst.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            return True
        names.add(parent.targets[0].target.value)
    if not names:
        return True  # a strategy only known by its annotation or use
    known = tf.semantic.conditions(node)
    for name in names:
        held = [
            b
            for b in tf.semantic.reaching(name, node)
            if not _arm_ruled_out(b.branch, known) and not off_by_default(tf, b.branch)
        ]
        kinds = {strategies.constructor_kind(b.value) if b.value is not None else None for b in held}
        if not held or None in kinds or kinds & MULTI_WORKER_CLASSES:
            return True
    return False


def _arm_ruled_out(branch: tuple[Branch, ...], known: list[Condition]) -> bool:
    """An `if` arm holding a binding whose test the conditions at the use contradict (the same
    test, e.g. `FLAGS.tpu`, known false there while the binding is in its body)."""
    tests = {_code(c.test): c.holds for c in known}
    for arm in branch:
        if isinstance(arm.node, cst.If) and arm.arm in ("body", "else"):
            holds = tests.get(_code(arm.node.test))
            if holds is not None and holds != (arm.arm == "body"):
                return True
    return False


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
