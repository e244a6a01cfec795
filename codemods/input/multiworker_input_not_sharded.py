"""TFD202: under MultiWorkerMirroredStrategy, input that every worker reads whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.fixes.pipeline_edits import add_helper, seed_shuffles
from fixer.rule import Rule
from fixer.semantic import Binding, BindingKind
from fixer.tf.callee_shards import hands_shard_arguments
from fixer.tf.cluster_signs import launched_on_executors, shows_a_cluster
from fixer.tf.dataflow import names_in, result_never_read
from fixer.tf.dataset_api import DATASET_CONSTRUCTORS, DATASET_METHODS
from fixer.tf.drawn_data import arguments_for, drawn_per_process
from fixer.tf.evaluation_input import only_evaluated
from fixer.tf.file_sources import file_count, literal_worker_count
from fixer.tf.handed_in_data import framework_handed, handed_in_with_sharding_off
from fixer.tf.importer_uses import DISTRIBUTE, FIT, Use
from fixer.tf.parameters import positional_parameters
from fixer.tf.pipelines import (
    SHUFFLE_SEED,
    Pipeline,
    nondeterministic,
    pipeline,
    reads_file_list,
    reads_task_selection,
    task_dependent,
)
from fixer.tf.reach import strategy_in_reach
from fixer.tf.strategies import MULTI_WORKER_CLASSES, Membership, visible_defs
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_KERAS_STEPS = frozenset({"train_on_batch", "fit"})
# Calls that make a function a training step: evaluation or logging loops over a whole dataset
# on every worker are redundant, not wrong.
_TRAINING_CALLS = frozenset({"apply_gradients", "minimize", "gradient", "train_on_batch", "fit"})
_BUILTINS = frozenset(
    {
        "print",
        "len",
        "str",
        "int",
        "float",
        "bool",
        "list",
        "tuple",
        "dict",
        "set",
        "isinstance",
        "range",
        "enumerate",
        "zip",
        "sum",
        "min",
        "max",
        "abs",
        "repr",
        "format",
        "sorted",
        "any",
        "all",
        "next",
        "iter",
        "type",
        "getattr",
        "hasattr",
        "setattr",
        "round",
        "id",
        "hash",
        "open",
        "map",
        "filter",
    }
)
_DISTRIBUTE = "tensorflow.distribute."
_FROM_FUNCTION = frozenset({"distribute_datasets_from_function", "experimental_distribute_datasets_from_function"})


class MultiworkerInputNotSharded(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds input that every worker reads whole: auto-sharding
    turned off (`AutoShardPolicy.OFF`) with no `.shard(...)` anywhere, a `dataset_fn(input_context)`
    that never shards by the context, `ds.options().experimental_distribute...` assignments (which
    change a copy and have no effect), and a plain `tf.data` dataset that each worker iterates
    itself (`for x, y in dataset:`) into a training step.

    ## Why is this bad in distributed training?
    Every worker then trains on the same examples in the same order: measured on TensorFlow
    2.21 with two workers, `AutoShardPolicy.OFF` gives both workers all four batches
    `[0, 1], [2, 3], [4, 5], [6, 7]`, and a per-worker pipeline without `.shard` gives both
    `[[5, 2, 1, 4], [3, 7, 6, 0]]`. The job does N times the work for one worker's worth of
    data. `distribute_datasets_from_function` never shards for you.

    ## Fix safety
    Unsafe. In a `dataset_fn(ctx)`, `.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)` is
    inserted right after the source dataset, before any shuffle or batch (verified to give
    disjoint batches). `AutoShardPolicy.OFF` becomes `AutoShardPolicy.DATA`, which keeps each
    worker's slice of every batch of one shared order. That order must be the same on every
    worker: an unseeded `shuffle` before the shard point duplicates and drops examples (ground
    truth G7b), so the fix also gives it one constant seed (`seed=42`, the same on every worker);
    a shuffle seeded per worker, or a per-worker global seed, gets advice instead. When the
    options also make the order nondeterministic (`experimental_deterministic = False`, or
    `deterministic=False` on `map`/`interleave`), DATA would overlap: a pipeline that reads a list
    of files gets `AutoShardPolicy.FILE`, anything else advice. When the source reads fewer files
    than workers (TFD205's count), OFF is the usual way around `Could not apply FILE based
    sharding`; DATA is still the fix and the message says why: it splits one file by element
    (measured with 2 workers, `benchmarks/probe_file_sharding_too_few_files.py`: `[0, 2]` and
    `[1, 3]`, where OFF gives both all four). A dataset iterated into
    `strategy.run` is iterated through `strategy.experimental_distribute_dataset(...)` instead
    (the same edit as TFD201, which auto-shards it, with the same shuffle seeding); one iterated
    into a step called directly gets
    `.shard(*_input_shard(strategy))` after its source, a helper added from a template that
    counts the chief and the workers as TensorFlow does (chief first). Each worker then sees
    1/N of the data, so its batches are per-worker batches. The `options()` case is explained,
    not rewritten.

    ## Known limits
    - The `dataset_fn(input_context)` is one given to `distribute_datasets_from_function`.
    - The training step is one called directly, one that calls `strategy.run`, or `train_on_batch`.
      A step defined in the file must train (take or apply gradients); a loop that only evaluates
      or logs on every worker is redundant, not wrong.
    - The dataset is followed through the variables and module functions that build it, and into
      functions of other modules of the project that the file imports (followed as for TFD504): a
      builder there that shards or reads a task index or an input context is taken as this worker's
      share, and one that shuffles gets advice only (its shuffle cannot be seeded from here).
    - Not reported: a pipeline with a `.shard(...)`, or one that reads what the task index selects
      (`files[task_id]`, `files[r.task_id::num_workers]`, or a slice by a variable read from the
      resolver or from TF_CONFIG's `task.index`), and neither is `AutoShardPolicy.OFF` then.
    - Not reported: a `dataset_fn` that hands two values (its context's `num_input_pipelines` and
      `input_pipeline_id`, or a worker count and index it read itself) to a helper of the module, a
      function or a method called on `self`, that shards with the parameters receiving them
      (`ds.shard(num_shards, shard_index)`, also in a function nested in the helper or one more
      helper down); a `None` passed there is the helper's "no shard" and does not count.
    - Not reported: a `dataset_fn` that ignores its context when the dataset it returns comes from
      module helpers that already shard by worker (`make_worker_dataset()` doing
      `.shard(NUM_WORKERS, WORKER_ID)` with both read from TF_CONFIG).
    - Not reported: a loop in a plain function that no strategy reaches (nothing in it or in the
      module functions it calls is a strategy, calls `tf.distribute` or reads a name bound under a
      scope, it is not called in one nor given what one made, and, with no caller in the module,
      nothing is called on its parameters): a single-device reference run, whose whole-data read
      is the baseline it exists for. Methods are still reported.
    - Not reported: a `dataset_fn` (or a dataset every worker iterates) whose data (its `tf.data`
      source's arguments, or the helper call it returns) comes from a path or seed holding the
      task index, or is drawn by the process itself with no constant seed (`np.random.*`,
      `tf.random.*`, `random.*`, an unseeded generator, a module or project helper returning such
      draws), or that the worker also saves under its task index (`np.save(f"x_{rank}.npy", x)`),
      followed through names, closures, call-site arguments and a helper of an imported module
      that turns it into the dataset: each worker's process has its own data
      (`benchmarks/probe_per_process_random_data.py`: two processes draw different samples). Any
      constant seed (a draw's, a generator's, or the program's `np.random.seed(0)`,
      `set_random_seed(0)`) makes every worker draw the same: reported. The same holds for
      `AutoShardPolicy.OFF` on a pipeline built from such draws (`np.random.random(...)` rows in
      an input function the launcher runs on every worker): not reported.
    - Not reported (neither the `dataset_fn` nor its `AutoShardPolicy.OFF`): a `dataset_fn` nested
      in a function that sets `AutoShardPolicy.OFF` itself and builds its `tf.data` source only
      from that function's parameters or what a call of the project (not a TensorFlow, NumPy,
      pandas or TFDS loader) made of one: a platform runner's closure over the slice each worker
      was handed (a Spark barrier task's partition), which sharding again would cut to 1/N.
    - Not reported: `AutoShardPolicy.OFF` on a stream a framework hands each worker: every
      pipeline the options are applied to is rooted in a method of an object that the module's
      entry (a function nothing in the module calls or names: the framework calls it) was given,
      or built by a non-loader call from what it was given (`TFContext(context)` then
      `.get_tfdataset_from_flink()`), or in a module function's parameter that every call passes
      such a stream. Each worker reads only its own records; DATA would keep 1/N of them
      (`benchmarks/probe_ledger20a_premises.py`, part 2).
    - Not reported: `AutoShardPolicy.OFF` on a dataset that is only evaluation input, followed
      through its names and the pipeline steps rebound onto it (`ds = ds.map(...).batch(...)`) to
      `model.evaluate(ds)`/`model.predict(ds)` and nothing else: every worker evaluates the whole
      set and the all-reduced mean metrics come out the same (redundant work, no wrong number;
      `benchmarks/probe_noise42_premises.py`). A dataset also passed to `fit`, iterated or
      distributed stays reported.
    - Not reported: input of a `MultiWorkerMirroredStrategy` that nothing shows runs on several
      workers (no TF_CONFIG written or read, no cluster resolver, no multi-node launcher or job in
      the project, no Hopsworks `experiment.mirrored(train_fn)`: fixer/tf/cluster_signs.py,
      TFD504's premise): one worker on its local devices
      has one input pipeline (`num_input_pipelines` is 1), so there is nothing to shard.
    - A `dataset_fn` handed over by several calls is reported once.
    - Across modules (when `check` is given a folder, and in the language server for the
      workspace): a function of a module that builds no strategy and sets `AutoShardPolicy.OFF`
      (with no `.shard(...)` or task selection in the module) is reported at the policy when
      another script of the folder hands its result, directly or through one name, to
      `fit`/`evaluate` or `experimental_distribute_dataset` while every strategy that script
      builds is a `MultiWorkerMirroredStrategy`; the message names the script and its line
      (`fixer/tf/importers.py`) and is advice (no fix). Not followed across modules: a script
      that sets an auto-shard policy or shards the result itself, a result passed through a
      function of the script or a second name, per-worker iteration of a helper's dataset, and
      importers in notebooks or that do not mention a strategy.

    ## Runtime evidence
    `distfix validate --workers 2` records the batches each worker feeds to `strategy.run`:
    the original fails check `inputs-distinct`, the fixed script passes.

    Measured on TensorFlow 2.21 with two workers on 127.0.0.1
    (`benchmarks/probe_worker_inputs_and_seeds.py`, output in `docs/probes.md`): with
    `AutoShardPolicy.OFF`, and from a `distribute_datasets_from_function` pipeline without
    `.shard`, both workers read all 8 elements of `Dataset.range(8)`; the default AUTO policy,
    or `.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)`, splits them between the
    workers.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/input#sharding
    - https://www.tensorflow.org/api_docs/python/tf/distribute/InputContext
    """

    code = "TFD202"
    name = "multiworker-input-not-sharded"
    message = "every worker reads the whole input"
    fix_title = "Shard the input across workers"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)
    importer_triggers = ("AutoShardPolicy.OFF",)

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            self._check_helper(ctx)
            return
        if not shows_a_cluster(ctx.tf) and not launched_on_executors(ctx.tf):
            return  # one worker on its local devices: one input pipeline, nothing to shard
        self._auto_shard_off(ctx)
        self._options_copy(ctx)
        self._dataset_fns(ctx)
        self._iterated_per_worker(ctx)

    def _check_helper(self, ctx: RuleContext) -> None:
        """A function of a module that builds no strategy, setting `AutoShardPolicy.OFF` with
        nothing sharding, whose result another script of the project hands to `fit`
        or `experimental_distribute_dataset` under MultiWorkerMirroredStrategy:
        reported at the policy, naming the script (advice: the script shows the strategy)."""
        importers = ctx.tf.importers
        if importers is None or ctx.tf.strategies.constructions:
            return
        # The policies first: few modules turn auto-sharding off, and what follows reads every
        # dataset of the module and asks the importers.
        policies = {
            func: found
            for func in ctx.module.body
            if isinstance(func, cst.FunctionDef) and (found := _auto_shard_offs(ctx, func))
        }
        if not policies:
            return
        shards = any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "shard" for c in ctx.index.calls)
        if shards or reads_task_selection(ctx.tf):
            return  # sharded by hand, as in the single-file case
        for func, offs in policies.items():
            uses = [u for u in importers.uses(func.name.value) if _read_whole_by_workers(u)]
            if not uses:
                continue
            name = func.name.value
            where = f"{uses[0].where(importers.root)} hands `{name}()` to the workers of a MultiWorkerMirroredStrategy"
            for value in offs:
                ctx.report(
                    value,
                    f"auto-sharding is off and nothing shards ({where}): every worker reads all the data; "
                    "use AutoShardPolicy.DATA (or shard by the task index)",
                )

    def _iterated_per_worker(self, ctx: RuleContext) -> None:
        """A plain dataset that every worker iterates itself, feeding a training step."""
        semantic = ctx.tf.semantic
        for loop in ctx.index.fors:
            if semantic.never_runs(loop):
                continue
            iterated = _unwrap(loop.iter)
            found = pipeline(ctx.tf, iterated, loop)
            if found is None or found.per_task(ctx.tf):
                continue
            if found.source is not None and _own_data(ctx, found.source):
                continue  # samples each worker's process draws itself: nothing is read twice
            if _single_device_reference(ctx, loop):
                continue  # a plain-TF baseline reads the whole data on purpose
            # A fix never edits dead code: a pipeline read from an `if False:` arm is not this loop's.
            dead_source = found.source is not None and semantic.never_runs(found.source)
            feeds = self._feeds(ctx, loop)
            if feeds is None:
                continue
            message = "every worker iterates this whole dataset (not distributed nor sharded); "
            statement = ctx.index.statement_of(loop)
            strategy = strategy_in_reach(ctx.tf, statement)
            if feeds == "run":
                message += "iterate `strategy.experimental_distribute_dataset(...)`"
                edits = None
                seeded = seed_shuffles(ctx, found)
                if seeded is None:
                    message += " once every worker shuffles identically (one constant seed)"
                elif strategy is not None and not (seeded and dead_source):
                    distributed = f"{strategy}.experimental_distribute_dataset({ctx.source(iterated)})"
                    edits = [ctx.replace(iterated, distributed), *seeded]
                    if seeded:
                        message += f"; its shuffle gets one constant seed (`seed={SHUFFLE_SEED}`)"
                ctx.report(iterated, message, edits=edits)
                continue
            message += "shard it by worker before shuffle and batch (`.shard(num_workers, worker_index)`)"
            edits = None
            if found.source is not None and not dead_source:
                at = ctx.index.statement_of(found.source)
                strategy = strategy_in_reach(ctx.tf, at)
                if strategy is not None:
                    helper = add_helper(ctx, "snippets/input_shard.py.j2", "_input_shard")
                    edits = [*helper, ctx.insert_after(found.source, f".shard(*_input_shard({strategy}))")]
            ctx.report(iterated, message, edits=edits)

    def _feeds(self, ctx: RuleContext, loop: cst.For) -> str | None:
        """``"run"`` when the loop's values reach `strategy.run`, ``"step"`` when they go to a training
        step called directly (a function of the module or an unknown one), else None."""
        targets = names_in(loop.target)
        replica = ctx.tf.replica
        steps = set(replica.steps())
        runs = {r.call for r in replica.run_calls}
        kind = None
        for call in ctx.index.calls:
            if not ctx.index.is_within(call, loop.body) or not (names_in(call) & targets):
                continue
            if ctx.index.enclosing_function(call) is not ctx.index.enclosing_function(loop):
                continue
            func = call.func
            # The functions this call reaches, by Python's scoping (two nested `step`s differ).
            called = set(visible_defs(ctx.index, func.value, call)) if isinstance(func, cst.Name) else set()
            if call in runs or called & steps:
                return "run"
            if isinstance(func, cst.Attribute) and func.attr.value in _KERAS_STEPS:
                kind = "step"
            if isinstance(func, cst.Name) and func.value not in _BUILTINS and ctx.tf.names.qualified(func) is None:
                # A function of this module must train; one imported from elsewhere is taken to.
                if not called or (not called & replica.replica_functions and _trains(ctx, called)):
                    kind = "step"
        return kind

    def _auto_shard_off(self, ctx: RuleContext) -> None:
        shards = any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "shard" for c in ctx.index.calls)
        if shards or reads_task_selection(ctx.tf):
            return  # sharded by hand: `.shard(...)`, or files picked by the task index
        for assign in ctx.index.assigns:
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
                continue
            target = assign.targets[0].target
            if not (isinstance(target, cst.Attribute) and target.attr.value == "auto_shard_policy"):
                continue
            if _is_options_copy(target):
                continue
            value = ctx.tf.names.qualified(assign.value) or ""
            if not value.endswith("AutoShardPolicy.OFF"):
                continue
            applications = _options_applications(ctx, assign)
            if applications and all(result_never_read(ctx.index, call) for call in applications):
                continue  # the datasets given these options are never iterated, fitted or distributed
            if _only_evaluated(ctx, assign, applications):
                continue  # evaluation input only: every worker computes the same, right metrics
            if _off_for_handed_in_data(ctx, assign):
                continue  # a worker's own slice (a Spark partition) handed to its dataset_fn
            if applications and all(framework_handed(ctx.tf, _options_receiver(call)) for call in applications):
                continue  # each worker's own stream, handed in by the framework that started it
            pipelines = _options_pipelines(ctx, assign)
            if _all_drawn_per_worker(ctx, pipelines):
                continue  # each worker's process draws its own rows: OFF reads no example twice
            message = "auto-sharding is off and nothing shards: every worker reads all the data; "
            if not isinstance(assign.value, cst.Attribute):
                ctx.report(assign.value, message + "use AutoShardPolicy.DATA (or shard by the task index)")
                continue
            unordered = _unordered(ctx, assign, pipelines)
            if unordered is not None:
                # DATA sharding keeps each worker's slice of one shared order: with a nondeterministic
                # order the slices overlap and miss examples.
                if pipelines and all(reads_file_list(ctx.tf, p) for p in pipelines):
                    ctx.report(
                        assign.value,
                        message + f"{unordered} makes the order differ per worker: use AutoShardPolicy.FILE",
                        edits=[ctx.replace(assign.value.attr, "FILE")],
                    )
                else:
                    ctx.report(
                        assign.value,
                        message + f"{unordered} makes the order differ per worker: shard files by task index, "
                        "or make it deterministic",
                    )
                continue
            edits = [ctx.replace(assign.value.attr, "DATA")]
            unseeded = False
            for found in pipelines:
                seeded = seed_shuffles(ctx, found)
                if seeded is None:
                    unseeded = True
                    break
                edits += seeded
            if unseeded:
                ctx.report(
                    assign.value,
                    message + "use AutoShardPolicy.DATA after making the shuffle identical on every worker (one "
                    "constant seed)",
                )
                continue
            tail = "use AutoShardPolicy.DATA (or shard by the task index)"
            few = _too_few_files(ctx, pipelines)
            if few is not None:
                # OFF is the usual way around `Could not apply FILE based sharding`; DATA is the
                # measured one that keeps the workers disjoint (probe_file_sharding_too_few_files.py).
                tail = (
                    f"use AutoShardPolicy.DATA, which splits {few} by element (AUTO would shard them by file "
                    "and fail with `Could not apply FILE based sharding`)"
                )
            if len(edits) > 1:
                tail += f"; the shuffle gets one constant seed (`seed={SHUFFLE_SEED}`)"
            ctx.report(assign.value, message + tail, edits=edits)

    def _options_copy(self, ctx: RuleContext) -> None:
        for assign in ctx.index.assigns:
            if (
                isinstance(assign, cst.Assign)
                and len(assign.targets) == 1
                and _is_options_copy(assign.targets[0].target)
            ):
                ctx.report(
                    assign.targets[0].target,
                    "`ds.options()` returns a copy: this assignment changes nothing; build `tf.data.Options()`, set "
                    "it there and apply it with `ds = ds.with_options(options)`",
                )

    def _dataset_fns(self, ctx: RuleContext) -> None:
        for fn in _dataset_functions(ctx):
            self._check_dataset_fn(ctx, fn)

    def _check_dataset_fn(self, ctx: RuleContext, fn: FunctionLike) -> None:
        params = positional_parameters(fn)
        if not params:
            return
        context = params[0].name.value
        body_calls = [c for c in ctx.index.calls if ctx.index.is_within(c, fn)]
        if any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "shard" for c in body_calls):
            return
        if any(context in {a.value.value for a in c.args if isinstance(a.value, cst.Name)} for c in body_calls):
            return  # the context is handed to a helper that may shard
        if any(hands_shard_arguments(ctx.tf, c) for c in body_calls):
            return  # its pipeline values (or the worker's index) go to a helper that shards with them
        if _returns_per_task(ctx, fn):
            return  # built by module helpers that shard by worker (or read the worker's files)
        sources = _sources(ctx, body_calls)
        if _per_worker_data(ctx, fn, sources):
            return  # each worker's process builds its own data: a path or seed holds its task index
        if handed_in_with_sharding_off(ctx.tf, fn, sources):
            return  # the worker's own slice, handed in; the author turned auto-sharding off for it
        message = (
            f"`{context}` is never used to shard: every worker reads the whole dataset; add "
            f"`.shard({context}.num_input_pipelines, {context}.input_pipeline_id)` before shuffle and batch"
        )
        if len(sources) != 1:
            ctx.report(fn.params, message)
            return
        shard = f".shard({context}.num_input_pipelines, {context}.input_pipeline_id)"
        ctx.report(sources[0], message, edits=[ctx.insert_after(sources[0], shard)])


def _dataset_functions(ctx: RuleContext) -> list[FunctionLike]:
    """Each function handed to `distribute_datasets_from_function`, once however many calls hand
    it over; a name is resolved by Python's scoping from the call, so two nested `_dataset_fn`s of
    different functions stay apart."""
    fns: dict[FunctionLike, None] = {}
    for call in ctx.index.calls:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in _FROM_FUNCTION and call.args):
            continue
        if not ctx.tf.strategies.is_strategy(func.value):
            continue
        fns.update(dict.fromkeys(ctx.tf.replica.resolve_callable(call.args[0].value, call)))
    return list(fns)


def _sources(ctx: RuleContext, calls: list[cst.Call]) -> list[cst.Call]:
    """The `tf.data` sources among ``calls``."""
    return [c for c in calls if (ctx.tf.names.callee(c) or "").startswith(_DATASET_SOURCES)]


def _off_for_handed_in_data(ctx: RuleContext, assign: cst.Assign) -> bool:
    """``assign`` (an `AutoShardPolicy.OFF`) is in a `dataset_fn` built from data its enclosing
    function was handed (fixer/tf/handed_in_data.py): the worker's own slice."""
    fn = ctx.index.enclosing_function(assign)
    if fn is None or fn not in _dataset_functions(ctx):
        return False
    body_calls = [c for c in ctx.index.calls if ctx.index.is_within(c, fn)]
    return handed_in_with_sharding_off(ctx.tf, fn, _sources(ctx, body_calls))


_MULTI_WORKER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in MULTI_WORKER_CLASSES)
# The sources a `dataset_fn` builds its pipeline from, which `.shard(...)` follows.
_DATASET_SOURCES = ("tensorflow.data.Dataset.", "tensorflow.data.TFRecordDataset", "tensorflow.data.TextLineDataset")


def _read_whole_by_workers(use: Use) -> bool:
    """The importer hands the result to `fit` or `experimental_distribute_dataset` under
    MultiWorkerMirroredStrategy alone, without a shard policy or a `shard` of its own."""
    return (
        bool(use.strategies)
        and use.strategies <= _MULTI_WORKER_NAMES
        and bool(use.feeds & {FIT, DISTRIBUTE})
        and not use.shard_policy
        and "shard" not in use.after
    )


def _returns_per_task(ctx: RuleContext, fn: FunctionLike) -> bool:
    """True when what ``dataset_fn`` returns is already this worker's share, built outside its
    body: the returned pipeline, followed through variables and the module functions that build
    it (``return make_worker_dataset()``), shards or reads what the task index selects; or, when
    that pipeline cannot be followed to its source, a module helper the function calls (directly
    or through a few more) calls ``.shard(...)`` or reads such a selection."""
    if isinstance(fn, cst.Lambda):
        returned = [fn.body]
    else:
        returned = [r.value for r in ctx.index.in_function("returns", fn) if r.value is not None]
    traced = [pipeline(ctx.tf, value) for value in returned]
    if any(found is not None and found.per_task(ctx.tf) for found in traced):
        return True
    if traced and all(found is not None and found.source is not None for found in traced):
        return False  # every returned pipeline is known down to its source, and none is per task
    return _helpers_shard(ctx, fn, set())


def _per_worker_data(ctx: RuleContext, fn: FunctionLike, sources: list[cst.Call]) -> bool:
    """The data a ``dataset_fn`` builds its pipeline from holds this worker's task index: the
    arguments of its `tf.data` sources, or (built by a helper) of the call that makes what it
    returns. Method arguments (a `shuffle` seed) are not data: a per-worker shuffle seed of the
    whole data still reads all of it."""
    if sources:
        return all(_own_data(ctx, source) for source in sources)
    if isinstance(fn, cst.Lambda):
        returned = [fn.body]
    else:
        returned = [r.value for r in ctx.index.in_function("returns", fn) if r.value is not None]
    made = [_made_by(ctx, value) for value in returned]
    return bool(made) and all(call is not None and _own_data(ctx, call) for call in made)


def _own_data(ctx: RuleContext, call: cst.Call) -> bool:
    """``call`` (a `tf.data` source, or the helper that makes the dataset) is given this worker's
    own data: an argument holding its task index (a path, a seed), or data that every process
    draws itself with no constant seed (fixer/tf/drawn_data.py) or saves under its task index."""
    if any(_task_data(ctx, a.value) for a in call.args):
        return True
    data = [a.value for a in call.args if a.keyword is None]
    return bool(data) and all(drawn_per_process(ctx.tf, value) or _saved_per_task(ctx, value) for value in data)


def _saved_per_task(ctx: RuleContext, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """Every part of ``expr`` is data the worker also saves under its task index
    (``keys = make_samples()`` then ``save(f"samples_{task_id}.file", keys)``), followed through
    tuples, names and a parameter's arguments at its function's call sites: whatever made it,
    the program keeps it as this worker's own."""
    if depth > 6:
        return False
    if isinstance(expr, cst.Tuple | cst.List):
        parts = [element.value for element in expr.elements]
        return bool(parts) and all(_saved_per_task(ctx, part, depth + 1) for part in parts)
    if not isinstance(expr, cst.Name):
        return False
    found = ctx.tf.semantic.resolve(expr)
    for bound in found:
        if bound.kind is BindingKind.PARAMETER and isinstance(bound.scope.node, cst.FunctionDef):
            given = arguments_for(ctx.tf, bound.scope.node, bound.name)
            if not given or not all(_saved_per_task(ctx, arg, depth + 1) for arg in given):
                return False
        elif bound.kind is not BindingKind.ASSIGNMENT or not _saved_under_task(ctx, bound):
            return False
    return bool(found)


def _saved_under_task(ctx: RuleContext, bound: Binding) -> bool:
    """A read of ``bound`` is an argument (or a part of one) of a call that another argument
    names by the task index (``np.save(f"x_{rank}.npy", x)``)."""
    for use in ctx.index.names.get(bound.name, []):
        if bound not in ctx.tf.semantic.resolve(use):
            continue
        for ancestor in ctx.index.ancestors(use):
            if isinstance(ancestor, cst.Call):
                inside = [a for a in ancestor.args if ctx.index.is_within(use, a.value)]
                others = [a for a in ancestor.args if a not in inside]
                if inside and any(task_dependent(ctx.tf, a.value) for a in others):
                    return True
                break  # only the innermost call the read is given to
            if isinstance(ancestor, cst.BaseSmallStatement | cst.BaseCompoundStatement):
                break
    return False


def _made_by(ctx: RuleContext, value: cst.BaseExpression) -> cst.Call | None:
    """The helper call ``value`` is (``return make(...)``, ``return data_utils.make(...)``), or the
    one its name is bound to (``ds = make(...)`` then ``return ds``). Not a method of a dataset
    (``ds.batch(8)``)."""
    if isinstance(value, cst.Name):
        bound = ctx.tf.semantic.value_of(value)
        value = bound if bound is not None else value
    if not isinstance(value, cst.Call):
        return None
    func = value.func
    if isinstance(func, cst.Attribute):
        root: cst.BaseExpression = func
        while isinstance(root, cst.Attribute):
            root = root.value
        imported = isinstance(root, cst.Name) and any(
            b.kind is BindingKind.IMPORT for b in ctx.tf.semantic.resolve(root)
        )
        return value if imported and func.attr.value not in DATASET_METHODS else None
    return value


def _task_data(ctx: RuleContext, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """True when ``expr`` is made from a value that holds this worker's task index: a path or a
    seed (``np.load(f"part_{task_id}.npy")``, ``default_rng(seed=task_index)``), followed through
    the bindings of its names, closures, and a parameter's arguments at the function's call sites.
    Random draws without one are judged by `_own_data` (fixer/tf/drawn_data.py)."""
    if task_dependent(ctx.tf, expr):
        return True
    if depth >= 4:
        return False
    for use in _names_read(ctx, expr):
        for bound in ctx.tf.semantic.resolve(use):
            if bound.kind is BindingKind.PARAMETER and isinstance(bound.scope.node, cst.FunctionDef):
                func = bound.scope.node
                if any(_task_data(ctx, arg, depth + 1) for arg in arguments_for(ctx.tf, func, bound.name)):
                    return True
            elif bound.value is not None and bound.value is not expr and _task_data(ctx, bound.value, depth + 1):
                return True
    return False


def _names_read(ctx: RuleContext, expr: cst.BaseExpression) -> list[cst.Name]:
    """The names ``expr`` reads (not attribute names after a dot, nor keyword names)."""
    found = []
    for name in names_in(expr):
        for use in ctx.index.names.get(name, []):
            parent = ctx.index.parent.get(use)
            if ctx.index.is_within(use, expr) and not (isinstance(parent, cst.Attribute) and parent.attr is use):
                if not (isinstance(parent, cst.Arg) and parent.keyword is use):
                    found.append(use)
    return found


def _helpers_shard(ctx: RuleContext, fn: FunctionLike, seen: set[cst.FunctionDef], depth: int = 0) -> bool:
    """A module function called from ``fn`` (or from those it calls, a few levels deep) shards a
    dataset or builds one from what the task index selects."""
    if depth > 3:
        return False
    for call in ctx.index.calls:
        if not ctx.index.is_within(call, fn) or not isinstance(call.func, cst.Name):
            continue
        for helper in visible_defs(ctx.index, call.func.value, call):
            if helper in seen or helper is fn:
                continue
            seen.add(helper)
            inner = [c for c in ctx.index.calls if ctx.index.is_within(c, helper)]
            if any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "shard" for c in inner):
                return True
            if any(
                (ctx.tf.names.callee(c) or "").startswith(DATASET_CONSTRUCTORS)
                and any(task_dependent(ctx.tf, a.value) for a in c.args)
                for c in inner
            ):
                return True
            if _helpers_shard(ctx, helper, seen, depth + 1):
                return True
    return False


def _single_device_reference(ctx: RuleContext, loop: cst.For) -> bool:
    """The loop is in a plain function that no strategy reaches: a single-device reference run
    (the baseline a test or notebook compares the distributed result with), which reads the whole
    data on purpose. Nothing in the function, nor in the module functions it calls, is a strategy,
    calls `tf.distribute`, or reads a name bound under a strategy scope (a model made there), and
    the function itself is not called inside a scope. Methods are left out (``self`` may carry
    what the scope made)."""
    func = ctx.index.enclosing_function(loop)
    if not isinstance(func, cst.FunctionDef) or ctx.index.method_class(func) is not None:
        return False
    strategies = ctx.tf.strategies
    # Never called inside a scope, nor given what the scope made; a function nobody calls here may
    # be handed the distributed model, unless its parameters are plain data (nothing is called on
    # them: it builds what it trains itself).
    sites = strategies.call_sites(func)
    if any(strategies.membership(site) is Membership.INSIDE for site in sites):
        return False
    if not sites and _parameter_called(ctx, func):
        return False
    for site in sites:
        for arg in site.args:
            if strategies.is_strategy(arg.value) or _made_in_scope(ctx, arg.value):
                return False
    bodies: list[cst.FunctionDef] = [func]
    for call in ctx.index.calls:
        if ctx.index.is_within(call, func) and isinstance(call.func, cst.Name):
            bodies += [f for f in visible_defs(ctx.index, call.func.value, call) if f not in bodies]
    for body in bodies:
        for call in ctx.index.calls:
            if ctx.index.is_within(call, body) and (ctx.tf.names.callee(call) or "").startswith(_DISTRIBUTE):
                return False
        for attribute in ctx.index.attributes:
            if ctx.index.is_within(attribute, body) and strategies.is_strategy(attribute):
                return False
        for uses in ctx.index.names.values():
            for use in uses:
                parent = ctx.index.parent.get(use)
                if not ctx.index.is_within(use, body) or (isinstance(parent, cst.Attribute) and parent.attr is use):
                    continue
                if strategies.is_strategy(use):
                    return False
                outer = [b for b in ctx.tf.semantic.resolve(use) if not ctx.index.is_within(b.statement, body)]
                if any(strategies.membership(b.statement) is Membership.INSIDE for b in outer):
                    return False  # a model or optimizer the scope made
    return True


def _parameter_called(ctx: RuleContext, func: cst.FunctionDef) -> bool:
    """A parameter of ``func`` is called or has a method called on it (``model.fit``, ``step(x)``)."""
    for call in ctx.index.calls:
        if not ctx.index.is_within(call, func):
            continue
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        if isinstance(receiver, cst.Name) and any(
            b.kind is BindingKind.PARAMETER and b.scope.node is func for b in ctx.tf.semantic.resolve(receiver)
        ):
            return True
    return False


def _made_in_scope(ctx: RuleContext, value: cst.BaseExpression) -> bool:
    """A name in ``value`` is bound inside a strategy scope (a model or optimizer made there)."""
    return any(
        ctx.tf.strategies.membership(b.statement) is Membership.INSIDE
        for use in _names_read(ctx, value)
        for b in ctx.tf.semantic.resolve(use)
    )


def _unwrap(node: cst.BaseExpression) -> cst.BaseExpression:
    """The dataset in ``enumerate(ds)``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "enumerate" and node.args:
        return node.args[0].value
    return node


def _auto_shard_offs(ctx: RuleContext, func: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The values of ``func``'s assignments ``<options>.auto_shard_policy = AutoShardPolicy.OFF``
    (not into a copy made by ``<ds>.options()``)."""
    found = []
    for assign in ctx.index.in_function("assigns", func):
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            continue
        target = assign.targets[0].target
        if not (isinstance(target, cst.Attribute) and target.attr.value == "auto_shard_policy"):
            continue
        policy = ctx.tf.names.qualified(assign.value) or ""
        if not _is_options_copy(target) and policy.endswith("AutoShardPolicy.OFF"):
            found.append(assign.value)
    return found


def _is_options_copy(target: cst.BaseExpression) -> bool:
    """``<ds>.options().experimental_distribute.<x>``: an assignment into a copy."""
    node = target
    while isinstance(node, cst.Attribute):
        node = node.value
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "options":
            return True
    return False


def _trains(ctx: RuleContext, functions: set[cst.FunctionDef]) -> bool:
    """True when one of ``functions`` computes or applies gradients (it is a training step)."""
    return any(
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value in _TRAINING_CALLS
        and any(ctx.index.is_within(call, f) for f in functions)
        for call in ctx.index.calls
    )


def _options_receiver(call: cst.Call) -> cst.BaseExpression:
    """``ds`` in ``ds.with_options(opts)``."""
    return cst.ensure_type(call.func, cst.Attribute).value


def _options_root(target: cst.BaseExpression) -> cst.Name | None:
    """``opts`` in ``opts.experimental_distribute.auto_shard_policy``."""
    node = target
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _all_drawn_per_worker(ctx: RuleContext, pipelines: list[Pipeline]) -> bool:
    """Every pipeline these options are applied to starts from rows its worker's process draws
    itself with no constant seed (``np.random.random(...)`` with no program seed): like `tf.random`
    draws, each worker holds samples of its own (benchmarks/probe_per_process_random_data.py)."""
    sources = [found.source for found in pipelines]
    return bool(sources) and all(source is not None and _own_data(ctx, source) for source in sources)


def _too_few_files(ctx: RuleContext, pipelines: list[Pipeline]) -> str | None:
    """ "N file(s) for M workers" when a pipeline reads fewer files than the cluster has workers
    (TFD205's count: a single file when no literal TF_CONFIG says how many), else None."""
    workers = literal_worker_count(ctx.tf)
    for found in pipelines:
        files = file_count(ctx.tf, found.source) if found.source is not None else None
        if files is not None and (files < workers if workers is not None else files == 1):
            return f"{files} file(s) for {workers or 'several'} workers"
    return None


def _options_pipelines(ctx: RuleContext, assign: cst.Assign) -> list[Pipeline]:
    """The pipelines these options are applied to (see :func:`_options_applications`)."""
    found = []
    for call in _options_applications(ctx, assign):
        found_pipeline = pipeline(ctx.tf, call)
        if found_pipeline is not None:
            found.append(found_pipeline)
    return found


def _options_applications(ctx: RuleContext, assign: cst.Assign) -> list[cst.Call]:
    """``ds.with_options(opts)`` calls in the same function, or ``ds.with_options(make_options())``
    of the function that builds and returns these options."""
    root = _options_root(assign.targets[0].target)
    if root is None:
        return []
    owner = ctx.index.enclosing_function(assign)
    found = []
    for call in ctx.index.calls:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "with_options" and call.args):
            continue
        arg = call.args[0].value
        same = isinstance(arg, cst.Name) and arg.value == root.value and ctx.index.enclosing_function(call) is owner
        built = (
            isinstance(arg, cst.Call)
            and isinstance(owner, cst.FunctionDef)
            and isinstance(arg.func, (cst.Name, cst.Attribute))
            and (arg.func.value if isinstance(arg.func, cst.Name) else arg.func.attr.value) == owner.name.value
        )
        if same or built:
            found.append(call)
    return found


def _only_evaluated(ctx: RuleContext, assign: cst.Assign, applications: list[cst.Call]) -> bool:
    """The datasets given these very options (``ds.with_options(opts)`` where the ``opts`` this
    assignment sets reaches; the name may be reused for other options) are read only by
    `evaluate`/`predict`: with OFF every worker evaluates the whole set and gets the same metrics."""
    root = _options_root(assign.targets[0].target)
    if root is None:
        return False
    semantic = ctx.tf.semantic
    options = {id(b) for b in semantic.resolve(root)}
    if not options:
        return False
    mine = [
        call
        for call in applications
        if isinstance(arg := call.args[0].value, cst.Name) and {id(b) for b in semantic.resolve(arg)} == options
    ]
    return bool(mine) and all(only_evaluated(ctx.tf, call) for call in mine)


def _unordered(ctx: RuleContext, assign: cst.Assign, pipelines: list[Pipeline]) -> str | None:
    """What makes the order of these options' datasets vary from run to run, if anything:
    ``opts.experimental_deterministic = False`` (or ``deterministic``) on the same options, or a
    pipeline method run with ``deterministic=False``."""
    root = _options_root(assign.targets[0].target)
    owner = ctx.index.enclosing_function(assign)
    for other in ctx.index.assigns:
        if (
            not isinstance(other, cst.Assign)
            or len(other.targets) != 1
            or ctx.index.enclosing_function(other) is not owner
        ):
            continue
        target = other.targets[0].target
        if (
            isinstance(target, cst.Attribute)
            and target.attr.value in ("experimental_deterministic", "deterministic")
            and root is not None
            and (target_root := _options_root(target)) is not None
            and target_root.value == root.value
            and isinstance(other.value, cst.Name)
            and other.value.value == "False"
        ):
            return f"`{ctx.source(target)} = False`"
    for found in pipelines:
        method = nondeterministic(found)
        if method is not None:
            return f"`{cst.ensure_type(method.func, cst.Attribute).attr.value}(..., deterministic=False)`"
    return None
