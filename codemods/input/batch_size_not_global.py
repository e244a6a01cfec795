"""TFD203: a distributed dataset batched with a size that ignores how many replicas share it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import DISTRIBUTED_INPUT
from fixer.rule import Rule
from fixer.semantic import BindingKind
from fixer.tf.calls import argument_value
from fixer.tf.dataflow import names_in
from fixer.tf.dataset_api import DATASET_METHODS
from fixer.tf.names import dotted_name
from fixer.tf.parameters import positional_parameters
from fixer.tf.pipelines import binding, pipeline
from fixer.tf.strategies import MULTI_WORKER_CLASSES
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_BATCHES = frozenset({"batch", "padded_batch", "ragged_batch"})
_FROM_FUNCTION = frozenset({"distribute_datasets_from_function", "experimental_distribute_datasets_from_function"})
# Words that say a size is one replica's share (``per_worker`` only under MultiWorkerMirroredStrategy,
# where a worker has one replica on CPU and usually one per GPU it owns).
_PER_REPLICA_WORDS = ("per_replica", "perreplica", "per_gpu", "per_device", "per_core", "per_tpu")
_PER_WORKER_WORDS = ("per_worker",)
_ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv"})
_COUNT_WORDS = ("worker", "world", "replica", "node", "host")


class BatchSizeNotGlobal(Rule):
    """
    ## What it does
    Finds a dataset that a strategy splits between replicas batched with a size that, by what the
    code itself says, is not the size the API expects: a per-replica name given to a splitter that
    expects the global batch, a neutral name passed on while the global batch computed from it is
    never read, a `dataset_fn` batching with the global size, and a global batch computed from a
    worker count that is a string.

    ## Why is this bad in distributed training?
    `experimental_distribute_dataset` and Keras `fit` treat each batch as the global batch and
    give each of the N replicas 1/N of it; a `dataset_fn` batch goes whole to one replica.
    Measured on TensorFlow 2.21 with 2 replicas (Keras 3 and tf-keras alike):
    `experimental_distribute_dataset(ds.batch(4))` gives each replica 2 examples, and so does
    `fit` on `ds.batch(4)` (each replica's `train_step` receives 2);
    a `dataset_fn` batching the global size 8 gives each replica 8 (a global batch of 16),
    and with `ctx.get_per_replica_batch_size(8)` each replica gets 4. So a per-replica size
    used as the global one shrinks every replica's batch N times, and a global size in a
    `dataset_fn` grows the global batch N times; the learning rate, the loss scaling
    (`compute_average_loss(..., global_batch_size=...)`) and the steps per epoch are then all
    off by N. With `num_workers = os.environ["NUM_WORKERS"]`, `4 * num_workers` is the string
    `'2222'` and `.batch` raises `TypeError: Cannot convert '2222' to EagerTensor of dtype int64`
    (`benchmarks/probe_batch_size.py`, output in `docs/probes.md`); `str(2)` or
    `"{}".format(2)` multiplied by 4 is `'2222'` too, with the same `TypeError`, and
    `fit(x, y, batch_size=4)` on NumPy arrays gives each replica's `train_step` 2 examples.

    ## Fix safety
    Display-only: whether the size was meant per replica or global is a decision about the
    training recipe. Use a global batch for `experimental_distribute_dataset`
    (`per_replica * strategy.num_replicas_in_sync`), `input_context.get_per_replica_batch_size(global)`
    in a `dataset_fn`, and `int(...)` or the length of the parsed cluster's worker list for a
    worker count.

    ## Known limits
    - The per-replica case: `strategy.experimental_distribute_dataset(ds)` where `ds` is batched with
      a name that says it is one replica's share (`BATCH_SIZE_PER_REPLICA`, `per_gpu_batch`,
      `args.per_device_batch_size`; under `MultiWorkerMirroredStrategy` also
      `per_worker_batch_size`), used as it is. `experimental_distribute_dataset` expects the global
      batch and splits it; so does Keras `fit(ds)` of a model built in `strategy.scope()`, and
      `fit(x, y, batch_size=...)` on arrays (measured).
    - A dataset that is a parameter of the function splitting it (`def distribute(strategy, ds):`)
      is followed to what each call of that function in the module passes; the finding is at that
      pipeline's batch size. Not when the function is also used as a value (other callers unknown),
      nor for a call whose share of the result is unpacked into a name that nothing iterates
      (read only by `type()`, or not at all: its batches reach no replica).
    - The neutral-name case: the same splitters given a neutral name (`.batch(BATCH_SIZE)`) while
      the code computes the global batch from it (`GLOBAL = BATCH_SIZE * strategy.num_replicas_in_sync`)
      and never reads that global batch: the per-replica value was passed on instead.
    - The `dataset_fn` case: a `dataset_fn` given to `distribute_datasets_from_function` that
      batches with the global size: a name that says so (`GLOBAL_BATCH_SIZE`), a size computed as
      `... * strategy.num_replicas_in_sync`, or any size other than the
      `input_context.get_per_replica_batch_size(...)` the function computes itself. Each
      `dataset_fn` batch is what one replica receives.
    - The worker-count case: read from the environment without `int()`
      (`num_workers = os.environ["NUM_WORKERS"]`), turned into text (`str(n)`, `"{}".format(n)`, an
      f-string, `"%d" % n`), or the length of the `TF_CONFIG` text (`len(os.environ["TF_CONFIG"])`)
      instead of its list of workers.
    - Not reported, because the intent cannot be read from the code: a literal or a neutral name
      (`.batch(64)`, `.batch(BATCH_SIZE)`, `.batch(args.batch_size)`, a parameter), which may well
      be meant as the global batch; a per-replica name multiplied by anything; a `dataset_fn` batch
      that uses its input context or divides; programs whose only strategy is `OneDeviceStrategy`;
      a global batch that is read anywhere (it may scale the loss or the learning rate while a
      neutral name is meant as the global batch elsewhere).
    - Not followed: a worker count turned into text in another module or through a function's
      return value.

    ## Runtime evidence
    `distfix validate` shows a changed batch only through its consequences (the
    `replica-count-invariant` check when the loss is scaled by a global batch that no longer
    matches); the string worker count fails the `runs` check with the `TypeError` above.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/input#batching
    - https://www.tensorflow.org/api_docs/python/tf/distribute/InputContext#get_per_replica_batch_size
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_keras#dataset_sharding
    """

    code = "TFD203"
    name = "batch-size-not-global"
    message = "the batch size ignores how many replicas share the batch"
    applicability = Applicability.DISPLAY_ONLY
    triggers = (
        "experimental_distribute_dataset",
        "distribute_datasets_from_function",
        "MultiWorkerMirroredStrategy",
        ".scope()",  # a model built in a strategy's scope, then `fit`
    )
    facts = (DISTRIBUTED_INPUT,)

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if strategies.single_replica:
            return
        dataset_fns: set[FunctionLike] = set()
        for call in ctx.index.calls:
            func = call.func
            if not isinstance(func, cst.Attribute) or not call.args:
                continue
            if func.attr.value == "fit":
                strategy = _fit_strategy(ctx, func.value, call)
                if strategy is not None:
                    self._distributed(ctx, call, strategy, "Keras `fit` under the strategy")
                continue
            if not strategies.is_strategy(func.value):
                continue
            if func.attr.value == "experimental_distribute_dataset":
                self._distributed(ctx, call, func.value, "`experimental_distribute_dataset`")
            elif func.attr.value in _FROM_FUNCTION:
                dataset_fns.update(_dataset_fns(ctx, call))
        for fn in sorted(dataset_fns, key=ctx.index.order.__getitem__):
            self._dataset_fn(ctx, fn)
        if strategies.uses_multi_worker:
            self._string_worker_counts(ctx)

    def _distributed(self, ctx: RuleContext, call: cst.Call, strategy: cst.BaseExpression, splitter: str) -> None:
        """`experimental_distribute_dataset(ds)` (or a `fit(ds)` / `fit(x, y, batch_size=...)` of a
        model built in the scope) with batches of a per-replica size."""
        size = _keyword(call, "batch_size") if splitter.startswith("Keras") else None
        if size is not None:
            self._size(ctx, size, strategy, splitter)
            return
        dataset = call.args[0].value
        size = _batch_size(ctx, dataset, call)
        if size is not None:
            self._size(ctx, size, strategy, splitter)
            return
        for size, function, parameter in _passed_batch_sizes(ctx, dataset, call):
            self._size(ctx, size, strategy, f"{splitter} (in `{function}`, given it as `{parameter}`)")

    def _size(self, ctx: RuleContext, size: cst.BaseExpression, strategy: cst.BaseExpression, splitter: str) -> None:
        """Report ``size`` when its name says one replica's share, or when the global batch
        computed from it is never used."""
        words: tuple[str, ...] = _PER_REPLICA_WORDS
        if ctx.tf.strategies.kinds(strategy) & MULTI_WORKER_CLASSES:
            words += _PER_WORKER_WORDS
        name = dotted_name(size)
        if name is None:
            return
        if any(word in name.rsplit(".", 1)[-1].lower() for word in words):
            ctx.report(
                size,
                f"`{name}` reads as one replica's batch, but {splitter} splits each batch between replicas; "
                f"multiply it by `{ctx.source(strategy)}.num_replicas_in_sync` if that was meant",
            )
            return
        unused = _unused_global(ctx, size)
        if unused is not None:
            ctx.report(
                size,
                f"`{unused}` (`{name}` times the replicas) is never used, and {splitter} splits each batch "
                f"of `{name}` between replicas; batch with `{unused}`",
            )

    def _dataset_fn(self, ctx: RuleContext, fn: FunctionLike) -> None:
        """A ``dataset_fn`` whose batches (each one replica's) use the global size."""
        params = positional_parameters(fn)
        if not params:
            return
        context = params[0].name.value
        per_replica = _per_replica_names(ctx, fn, context)
        batches = [
            (call, argument_value(call, 0, "batch_size"))
            for call in ctx.index.calls
            # The method's name first: it spares the walk up the parents of every other call.
            if isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _BATCHES
            and ctx.index.is_within(call, fn)
        ]
        # A per-replica size that some batch uses is not ignored (other batches may batch batches).
        used = any(size is not None and names_in(size) & per_replica for _, size in batches)
        ignored = bool(per_replica) and not used
        for call, size in batches:
            if size is None or _uses_context(ctx, size, context, per_replica):
                continue
            shown = ctx.source(size)
            if ignored:
                ctx.report(
                    size,
                    f"this `dataset_fn` computes the per-replica batch size (`{sorted(per_replica)[0]}`) but batches "
                    f"with `{shown}`: each `dataset_fn` batch goes whole to one replica; "
                    "batch with the per-replica size",
                )
            elif _global_size(ctx, size, call):
                ctx.report(
                    size,
                    f"`{shown}` is the global batch size, but a `dataset_fn` batch goes whole to one replica; "
                    f"batch with `{context}.get_per_replica_batch_size({shown})`",
                )

    def _string_worker_counts(self, ctx: RuleContext) -> None:
        """A batch size computed from a worker count that is a string (or the length of one)."""
        for call in ctx.index.calls:
            if (
                ctx.tf.names.callee(call) is not None
                or not isinstance(call.func, cst.Attribute)
                or call.func.attr.value not in _BATCHES
            ):
                continue
            size = argument_value(call, 0, "batch_size")
            if size is None:
                continue
            found = _string_count(ctx, size, call)
            if found is None:
                continue
            name, kind = found
            if kind == "length":
                detail = (
                    f"`{name}` counts the TF_CONFIG text's characters; count "
                    '`len(json.loads(os.environ["TF_CONFIG"])["cluster"]["worker"])`'
                )
            elif kind == "text":
                detail = (
                    f"`{name}` is text (`str()`/`format()`): multiplying repeats it and `.batch` raises; "
                    "keep the number"
                )
            else:
                detail = (
                    f"`{name}` is a string read from the environment (multiplying repeats text and `.batch` "
                    "raises); convert it with `int(...)`"
                )
            ctx.report(size, f"the worker count in the global batch size is not a number: {detail}")


def _dataset_fns(ctx: RuleContext, call: cst.Call) -> list[FunctionLike]:
    """The ``dataset_fn`` a ``distribute_datasets_from_function`` call runs: of several defs of that
    name (notebook cells that redefine it), the last one before the call."""
    found = ctx.tf.replica.resolve_callable(call.args[0].value, call)
    defs: list[FunctionLike] = [f for f in found if isinstance(f, cst.FunctionDef)]
    if len(defs) > 1:
        earlier = [f for f in defs if ctx.index.before(f, call)]
        return earlier[-1:] if earlier else defs[-1:]
    return found


def _batch_size(ctx: RuleContext, dataset: cst.BaseExpression, at: cst.CSTNode) -> cst.BaseExpression | None:
    """The size of the batching applied last in the pipeline ``dataset`` stands for at ``at``."""
    found = pipeline(ctx.tf, dataset, at)
    batch = _last_batch(found.methods) if found is not None else _batch_of_chain(ctx, dataset, at)
    return argument_value(batch, 0, "batch_size") if batch is not None else None


def _batch_of_chain(ctx: RuleContext, dataset: cst.BaseExpression, at: cst.CSTNode) -> cst.Call | None:
    """The last batching of a chain of dataset methods whose source the pipeline model cannot name
    (`(train, test), info = tfds.load(...)` unpacks it): only the methods after the source decide the
    batch, so the chain is read back to the first `.batch` through plain assignments."""
    node, where = dataset, at
    for _ in range(64):
        if isinstance(node, cst.Name):
            bound = binding(ctx.tf, node.value, where)
            if bound is None:
                return None
            node, where = bound
            continue
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return None
        method = node.func.attr.value
        if method in _BATCHES:
            return node
        if method in ("unbatch", "rebatch") or method not in DATASET_METHODS:
            return None
        node = node.func.value
    return None


def _passed_batch_sizes(
    ctx: RuleContext, dataset: cst.BaseExpression, splitter: cst.Call
) -> list[tuple[cst.BaseExpression, str, str]]:
    """For a dataset that is a parameter of the enclosing function (`def distribute(strategy, ds):
    strategy.experimental_distribute_dataset(ds)`), the batch size of what each call of the
    function passes for it, with the function's and the parameter's names (ledger14b: a course
    assignment batches per replica in one cell and distributes in a graded function). A call
    whose share of the result nothing iterates is left out (`_never_iterated`)."""
    if not isinstance(dataset, cst.Name):
        return []
    bound = ctx.tf.semantic.only_binding(dataset)
    if bound is None or bound.kind is not BindingKind.PARAMETER:
        return []
    func = bound.scope.node
    if not isinstance(func, cst.FunctionDef):
        return []
    sizes: list[tuple[cst.BaseExpression, str, str]] = []
    for site, argument in ctx.tf.replica.arguments_for(func, dataset.value) or []:
        if _never_iterated(ctx, splitter, func, site):
            continue
        size = _batch_size(ctx, argument, site) if argument is not None else None
        if size is not None and all(size is not known for known, _, _ in sizes):
            sizes.append((size, func.name.value, dataset.value))
    return sizes


def _never_iterated(ctx: RuleContext, splitter: cst.Call, func: cst.FunctionDef, site: cst.Call) -> bool:
    """The distributed dataset ``splitter`` makes in ``func`` is returned (alone or at one place of
    a tuple), ``site`` unpacks it into a name, and that name is read only by `type()` or not at
    all: its batches never reach a replica (ledger14b: a course notebook prints the validation
    set's type and never iterates it)."""
    statement = ctx.index.parent.get(splitter)
    if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1):
        return False
    made = statement.targets[0].target
    returns = [r.value for r in ctx.index.in_function("returns", func)]
    if not isinstance(made, cst.Name) or not returns:
        return False
    slots = {_slot(value, made.value) for value in returns}
    unpacking = ctx.index.parent.get(site)
    slot = slots.pop() if len(slots) == 1 else None
    if slot is None or not isinstance(unpacking, cst.Assign) or len(unpacking.targets) != 1:
        return False
    target = unpacking.targets[0].target
    if slot == -1:
        received: cst.BaseExpression = target
    elif isinstance(target, cst.Tuple | cst.List) and slot < len(target.elements):
        received = target.elements[slot].value
    else:
        return False
    if not isinstance(received, cst.Name):
        return False
    semantic = ctx.tf.semantic
    reads = [
        name
        for name in ctx.index.names.get(received.value, [])
        if name is not received and any(b.node is received for b in semantic.resolve(name))
    ]
    return all(_only_typed(ctx, name) for name in reads)


def _slot(value: cst.BaseExpression | None, name: str) -> int | None:
    """-1 when ``value`` is the name ``name``, its index in a tuple of names, None otherwise."""
    if isinstance(value, cst.Name):
        return -1 if value.value == name else None
    if isinstance(value, cst.Tuple):
        found = [i for i, e in enumerate(value.elements) if isinstance(e.value, cst.Name) and e.value.value == name]
        return found[0] if len(found) == 1 else None
    return None


def _only_typed(ctx: RuleContext, name: cst.Name) -> bool:
    """``name`` is the one argument of a `type(...)` call."""
    argument = ctx.index.parent.get(name)
    call = ctx.index.parent.get(argument) if argument is not None else None
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "type"
        and len(call.args) == 1
        and call.args[0].value is name
    )


def _fit_strategy(ctx: RuleContext, model: cst.BaseExpression, call: cst.Call) -> cst.BaseExpression | None:
    """The strategy whose scope the model of ``model.fit(...)`` was built in: the last binding of
    the name before the call is lexically inside one `with <strategy>.scope():` block."""
    if not isinstance(model, cst.Name):
        return None
    bound = binding(ctx.tf, model.value, call)
    if bound is None:
        return None
    block = ctx.tf.strategies.lexical_scope_block(bound[1])
    if block is None:
        return None
    return next((strategy for with_node, strategy in ctx.tf.strategies.scope_blocks if with_node is block), None)


def _last_batch(methods: tuple[cst.Call, ...]) -> cst.Call | None:
    """The batching call applied last in a pipeline (methods are listed last applied first)."""
    for method in methods:
        if isinstance(method.func, cst.Attribute):
            if method.func.attr.value in _BATCHES:
                return method
            if method.func.attr.value in ("unbatch", "rebatch"):
                return None
    return None


def _per_replica_names(ctx: RuleContext, fn: FunctionLike, context: str) -> set[str]:
    """Names bound in ``fn`` to ``<context>.get_per_replica_batch_size(...)``."""
    names = set()
    for assign in ctx.index.in_function("assigns", fn):
        if isinstance(assign, cst.Assign) and _asks_context(assign.value, context):
            for target in assign.targets:
                names |= names_in(target.target)
    return names


def _asks_context(expr: cst.BaseExpression, context: str) -> bool:
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "get_per_replica_batch_size"
        and isinstance(expr.func.value, cst.Name)
        and expr.func.value.value == context
    )


def _uses_context(ctx: RuleContext, size: cst.BaseExpression, context: str, per_replica: set[str]) -> bool:
    """The size is derived from the input context, the per-replica size, or divided by something."""
    mentioned = names_in(size)
    if context in mentioned or mentioned & per_replica:
        return True
    return _divides(size)


def _divides(expr: cst.BaseExpression) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            nonlocal found
            found = found or isinstance(node.operator, (cst.Divide, cst.FloorDivide))

    expr.visit(_Find())
    return found


def _global_size(ctx: RuleContext, size: cst.BaseExpression, at: cst.CSTNode, depth: int = 0) -> bool:
    """A size that says it is global: named so, or multiplied by ``num_replicas_in_sync``
    (directly or through the names it is computed from)."""
    name = dotted_name(size)
    if name is not None and "global" in name.rsplit(".", 1)[-1].lower():
        return True
    if _multiplies_replicas(size):
        return True
    if isinstance(size, cst.Name) and depth < 3:
        bound = binding(ctx.tf, size.value, at)
        if bound is not None and not _divides(bound[0]):
            return _global_size(ctx, bound[0], bound[1], depth + 1)
    return False


def _multiplies_replicas(expr: cst.BaseExpression) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            nonlocal found
            if isinstance(node.operator, cst.Multiply):
                for side in (node.left, node.right):
                    if isinstance(side, cst.Attribute) and side.attr.value == "num_replicas_in_sync":
                        found = True

    expr.visit(_Find())
    return found


def _string_count(
    ctx: RuleContext, size: cst.BaseExpression, at: cst.CSTNode, depth: int = 0
) -> tuple[str, str] | None:
    """A name looking like a worker count in ``size`` (or in what its names are computed from)
    that holds a string read from the environment (``"string"``) or the length of one
    (``"length"``), with that name."""
    if depth > 3:
        return None
    for name in sorted(names_in(size)):
        use = next((n for n in ctx.index.names.get(name, []) if ctx.index.is_within(n, size)), None)
        bound = binding(ctx.tf, name, use if use is not None else at)
        if bound is None:
            continue
        value, assign = bound
        if any(word in name.lower() for word in _COUNT_WORDS):
            if _environment_read(ctx, value):
                return name, "string"
            if _as_text(ctx, value):
                return name, "text"
            if (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Name)
                and value.func.value == "len"
                and value.args
                and _environment_read(ctx, value.args[0].value)
            ):
                return name, "length"
        if isinstance(value, cst.BinaryOperation):
            inner = _string_count(ctx, value, assign, depth + 1)
            if inner is not None:
                return inner
    return None


def _as_text(ctx: RuleContext, expr: cst.BaseExpression) -> bool:
    """``str(n)``, ``"{}".format(n)``, ``f"{n}"`` or ``"%d" % n``: a number turned into text."""
    if isinstance(expr, cst.FormattedString):
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo):
        return isinstance(expr.left, cst.SimpleString)
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    if isinstance(func, cst.Name):
        return func.value == "str" and ctx.tf.names.callee(expr) is None
    return isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, cst.SimpleString)


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _unused_global(ctx: RuleContext, size: cst.BaseExpression) -> str | None:
    """The name of a global batch computed from ``size`` and never read: ``G = size *
    <strategy>.num_replicas_in_sync`` (either order) while ``size`` itself is what gets batched."""
    if not isinstance(size, cst.Name):
        return None
    for assign in ctx.index.assigns:
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
        ):
            continue
        value = assign.value
        if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply)):
            continue
        sides = (value.left, value.right)
        if not any(isinstance(side, cst.Name) and side.value == size.value for side in sides):
            continue
        if not any(isinstance(side, cst.Attribute) and side.attr.value == "num_replicas_in_sync" for side in sides):
            continue
        target = assign.targets[0].target
        semantic = ctx.tf.semantic
        if all(semantic.binding_at(use) is not None for use in ctx.index.names.get(target.value, [])):
            return target.value
    return None


def _environment_read(ctx: RuleContext, expr: cst.BaseExpression) -> bool:
    """``os.environ[...]``, ``os.environ.get(...)`` or ``os.getenv(...)``: a string."""
    if isinstance(expr, cst.Subscript):
        return ctx.tf.names.qualified(expr.value) == "os.environ"
    if isinstance(expr, cst.Call):
        return ctx.tf.names.callee(expr) in _ENVIRONMENT_READS
    return False
