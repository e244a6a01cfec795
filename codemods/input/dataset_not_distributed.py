"""TFD201: a plain `tf.data` dataset feeds `strategy.run` or a distributed step."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from fixer.facts import RUN_CALL
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.test_files import assertion_free_test, is_test_file
from fixer.tf.dataflow import names_in
from fixer.tf.datasets import DatasetModel
from fixer.tf.evaluation_only import is_one_batch, only_evaluates
from fixer.tf.host_batches import NUMPY, HostBatches, unwrap_iteration
from fixer.tf.importer_uses import DISTRIBUTE, LOOP_RUN, Use
from fixer.tf.names import dotted_name
from fixer.tf.parameters import has_parameter, positional_parameters
from fixer.tf.per_replica_names import holds_run_result
from fixer.tf.strategies import visible_defs
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike
    from fixer.tf.replica import RunCall


class DatasetNotDistributed(Rule):
    """
    ## What it does
    Finds a `tf.data` dataset whose batches reach `strategy.run` — directly, or through a step
    function that calls `strategy.run` — without `strategy.experimental_distribute_dataset` or
    `strategy.distribute_datasets_from_function`, and batches made outside tf.data (NumPy slices,
    `ImageDataGenerator` or generator batches) passed on to `strategy.run`. The finding is at the
    call that hands the batch to the replicas and names the dataset and its line.

    ## Why is this bad in distributed training?
    A plain batch given to `strategy.run` is not split: every replica receives the whole batch.
    Measured on TensorFlow 2.21 with 2 replicas: both see rows `[1, 3, 5, 7]`, the reported loss
    is `107.0` instead of `53.5` and the weights take a double step. Nothing fails; the model just
    trains wrong, and the replicas do the same work twice. The same holds for NumPy batches
    (measured: a 4-row batch reached both replicas with 4 rows, where a distributed dataset gave
    2 each) and for a Python generator's batches.

    ## Fix safety
    Unsafe: the loop (or `iter(...)`) reads `strategy.experimental_distribute_dataset(ds)`
    instead of `ds`, where the strategy can be written there; otherwise the finding is advice.
    A batch made outside tf.data is advice: NumPy arrays go through
    `tf.data.Dataset.from_tensor_slices(...).batch(GLOBAL_BATCH)`, generators through
    `tf.data.Dataset.from_generator(...)` (their batches become global batches), then
    `strategy.experimental_distribute_dataset(...)`; rebuilding the input is the author's call.
    Each batch is then split across replicas, so batch the dataset with the *global* batch size
    (per-replica size × `strategy.num_replicas_in_sync`) and scale the loss to it.

    ## Known limits
    - Batches are followed from `for` loops (also over `enumerate(ds)` and progress bars such as
      `tqdm(ds)`), from `next(it)` with `it = iter(ds)` (also an iterator passed to the step, and an
      element unpacked as in `x, y = next(it)`).
    - The dataset is followed through names, `self` attributes, local factory functions, parameters
      (to the arguments of their calls), a pipeline rebound step by step however long
      (`ds = ds.map(...)` repeated), a callable loader object of the module (`loader = Loader(...)`,
      then `loader()`: what its `__call__` returns), `tfds.load(..., split=...)`, and functions of
      other modules of the project that return a `tf.data` dataset (`ds = utility.make_dataset(...)`,
      also with `.prefetch(...)`/`.map(...)` chained on it; followed as for TFD504).
    - A step is matched by Python's scoping, so a nested single-device `step` elsewhere is not
      confused with the distributed one.
    - Not reported: programs whose only strategy is `OneDeviceStrategy`, a test function of a
      test file that asserts nothing (a smoke test that the step runs, whatever batch each replica
      gets), and a replica function that reaches no gradient or optimizer step fed one batch taken
      by `next(iter(ds))`: it computes a statistic of that whole batch (an FID, an Inception Score), which
      a split batch changes (fixer/tf/evaluation_only.py).
    - The finding is at the call that hands the batch to the replicas (the step call, or
      `strategy.run` itself); the fix distributes the dataset where the loop or `iter(...)` reads it.
    - Not followed: loader objects of other modules or kept in attributes, and iteration wrappers
      other than `enumerate`/`iter`/`tqdm`.
    - Batches made outside tf.data: a slice of a NumPy array (`x[i:i + n]`, from
      `np.load`/`np.array`/... or `tf.keras.datasets.*.load_data()`), and the loop variable or
      `next(...)` of an `ImageDataGenerator.flow`/`flow_from_directory`/`flow_from_dataframe`
      iterator or of a local generator function, are found when the step passes them on to
      `strategy.run` unchanged (or unpacked). A whole array is not taken for a batch (it may be a
      constant every replica needs), nor is a Keras `Sequence` indexed by hand or data from another
      module.
    - A name rebound to the result of `strategy.run(...)` (`batch = strategy.run(split)`, where
      `split` returns `batch[replica_id_in_sync_group]`) holds one value per replica: handed on to
      `strategy.run(step, args=(batch,))`, each replica gets its own
      (`benchmarks/probe_run_result_fed_to_run.py`), so it is not reported.
    - Across modules (when `check` is given a folder, and in the language server for the
      workspace): a function of a module that builds no strategy and calls no `strategy.run` is
      reported at the plain `tf.data` dataset it returns when another script of the folder, under a
      strategy other than `OneDeviceStrategy`, loops over its result (directly, through one name,
      or through `enumerate`/`iter`/`tqdm`) and hands the loop's elements to that strategy's `run`
      or to a function of the script that calls it; the message names the script and its line
      (`fixer/tf/importers.py`), and there is no fix (the dataset is distributed in the script).
      Not followed across modules: a result passed through a second name, a function of the script
      or `next(iter(...))`, a `run` on a strategy the script does not assign to a name, and
      importers in notebooks or that do not mention a strategy.

    ## Runtime evidence
    `distfix validate` compares a 1-replica and an N-replica run: the original fails check
    `replica-count-invariant` (every replica trains on the full batch), the fixed script passes.

    Measured on TensorFlow 2.21 with 2 replicas, Keras 3 and tf-keras alike
    (`benchmarks/probe_replica_function_calls.py`, output in `docs/probes.md`): a plain
    `tf.data` batch and a NumPy batch of rows `[1, 3, 5, 7]` reach both replicas whole; from
    `experimental_distribute_dataset` the replicas get `[1, 3]` and `[5, 7]`.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#experimental_distribute_dataset
    - https://www.tensorflow.org/tutorials/distribute/input
    """

    code = "TFD201"
    name = "dataset-not-distributed"
    message = "a plain tf.data dataset feeds `strategy.run`"
    fix_title = "Distribute the dataset with the strategy"
    applicability = Applicability.UNSAFE
    triggers = (".run(", "experimental_run_v2")
    needs = (STRATEGY,)
    facts = (RUN_CALL,)
    importer_triggers = ("Dataset",)

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if not replica.run_calls and not ctx.tf.strategies.constructions:
            self._check_helper(ctx)
            return
        if not replica.run_calls or ctx.tf.strategies.single_replica:
            return  # no replicas, or a single one that rightly gets the whole batch
        datasets = DatasetModel(ctx.tf)
        steps = {f: run for run in replica.run_calls for f in [ctx.index.enclosing_function(run.call)] if f is not None}
        host = HostBatches(ctx.tf, datasets)
        # By dataset: the calls it feeds.
        fed: dict[int, tuple[cst.BaseExpression, list[tuple[cst.Call, RunCall]]]] = {}
        host_batches = []  # (call, batch, kind, run): one per call, reported after the loop
        smoke_test = is_test_file(ctx.path, ctx.module)
        for call in ctx.index.calls:
            run = self._entry(ctx, call, steps)
            if run is None or (smoke_test and assertion_free_test(ctx.index, call)):
                continue  # a test that asserts nothing only checks the step runs: which batch is irrelevant
            host_batch = None
            for position, arg in enumerate(self._fed_values(ctx, call, run)):
                source = self._source(ctx, datasets, arg, call)
                if source is not None and datasets.is_dataset(source, source):
                    if is_one_batch(ctx.tf, arg) and only_evaluates(ctx.tf, run):
                        continue  # a statistic of one whole batch (an FID): splitting it changes it
                    fed.setdefault(id(source), (source, []))[1].append((call, run))
                elif (
                    host_batch is None
                    and self._reaches_run(ctx, call, run, position)
                    and not holds_run_result(ctx.tf, arg)  # already one value per replica
                ):
                    kind = host.batch_kind(arg, call)
                    host_batch = (call, arg, kind, run) if kind is not None else None
            if host_batch is not None:
                host_batches.append(host_batch)
        for source, calls in fed.values():
            # The call in the loop's own function (the step call) over `strategy.run` inside the step.
            here = ctx.index.enclosing_function(source)
            call, run = next(((c, r) for c, r in calls if ctx.index.enclosing_function(c) is here), calls[0])
            self._report(ctx, source, run, call)
        # A step fed host batches is reported where it is called, not again at its `strategy.run`.
        fed_steps = {ctx.index.enclosing_function(r.call) for c, _, _, r in host_batches if c is not r.call}
        for call, batch, kind, run in host_batches:
            if call is run.call and ctx.index.enclosing_function(call) in fed_steps:
                continue
            self._report_host(ctx, batch, kind, run)

    def _check_helper(self, ctx: RuleContext) -> None:
        """A function of a module that builds no strategy and runs no replicas, returning a plain
        `tf.data` dataset that another script of the project iterates and hands to `strategy.run`
        without distributing it: reported at the returned dataset, naming the script."""
        importers = ctx.tf.importers
        if importers is None:
            return
        datasets = None
        for func in ctx.module.body:
            if not isinstance(func, cst.FunctionDef):
                continue
            uses = [u for u in importers.uses(func.name.value) if _iterated_into_run(u)]
            if not uses:
                continue
            datasets = datasets or DatasetModel(ctx.tf)
            where = uses[0].where(importers.root)
            for ret in _returns(ctx, func):
                assert ret.value is not None  # _returns keeps the returns with a value
                if not datasets.is_dataset(ret.value, ret):
                    continue
                ctx.report(
                    ret.value,
                    f"every replica gets the whole batch of this plain tf.data dataset: {where} iterates "
                    f"`{func.name.value}()` and hands its batches to `strategy.run`; distribute it there with "
                    "`strategy.experimental_distribute_dataset(...)`, batched by the global size",
                )

    def _entry(self, ctx: RuleContext, call: cst.Call, steps: dict[FunctionLike, RunCall]) -> RunCall | None:
        """The run call that ``call`` feeds: itself, or the one in the step it calls."""
        for run in ctx.tf.replica.run_calls:
            if run.call is call:
                return run
        func = call.func
        if isinstance(func, cst.Name):
            for target in visible_defs(ctx.index, func.value, call):
                if target in steps:
                    return steps[target]
        elif (
            isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls")
        ):
            for target in ctx.index.functions_by_name.get(func.attr.value, []):
                if target in steps and ctx.index.method_class(target) is not None:
                    return steps[target]
        return None

    def _fed_values(self, ctx: RuleContext, call: cst.Call, run: RunCall) -> list[cst.BaseExpression]:
        """The expressions ``call`` hands to the replicas (a run's ``args``, a step's arguments)."""
        if run.call is call:
            args = run.args
            if args is None:
                return []
            if isinstance(args, (cst.Tuple, cst.List)):
                return [e.value for e in args.elements]
            return [args]
        return [a.value for a in call.args]

    def _source(
        self, ctx: RuleContext, datasets: DatasetModel, value: cst.BaseExpression, near: cst.CSTNode, depth: int = 0
    ) -> cst.BaseExpression | None:
        """The dataset expression whose elements ``value`` is: a loop's iterable or `iter(...)`'s argument."""
        if depth > 4:
            return None
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value == "next"
            and value.args
        ):
            return self._iterated(ctx, datasets, value.args[0].value, near, depth + 1)
        if isinstance(value, cst.Subscript):
            return self._source(ctx, datasets, value.value, near, depth + 1)
        if not isinstance(value, cst.Name):
            return None
        name = value.value
        func = ctx.index.enclosing_function(near)
        for ancestor in ctx.index.ancestors(near):
            if ancestor is func:
                break
            if isinstance(ancestor, cst.For) and name in names_in(ancestor.target):
                return unwrap_iteration(ancestor.iter)
        for bound, where in datasets.bindings(name, near):
            source = self._source(ctx, datasets, bound, where, depth + 1)
            if source is not None:
                return source
        return None

    def _iterated(
        self, ctx: RuleContext, datasets: DatasetModel, iterator: cst.BaseExpression, near: cst.CSTNode, depth: int
    ) -> cst.BaseExpression | None:
        """What ``next(iterator)`` reads: ``X`` of the ``iter(X)`` the iterator came from."""
        if depth > 4:
            return None
        if (
            isinstance(iterator, cst.Call)
            and isinstance(iterator.func, cst.Name)
            and iterator.func.value == "iter"
            and iterator.args
        ):
            return iterator.args[0].value
        if isinstance(iterator, (cst.Name, cst.Attribute)):
            key = dotted_name(iterator)
            for bound, where in datasets.bindings(key, near) if key else []:
                source = self._iterated(ctx, datasets, bound, where, depth + 1)
                if source is not None:
                    return source
        return None

    def _reaches_run(self, ctx: RuleContext, call: cst.Call, run: RunCall, position: int) -> bool:
        """The value at ``position`` of ``call`` is handed to the replicas as it is: an argument of
        the run itself, or a parameter of the step that the step passes on in the run's ``args``
        (a step that builds a distributed dataset from it is not fed batches)."""
        if run.call is call:
            return True
        step = ctx.index.enclosing_function(run.call)
        argument = call.args[position] if position < len(call.args) else None
        if not isinstance(step, cst.FunctionDef) or argument is None or argument.star:
            return False
        params = [p.name.value for p in positional_parameters(step)]
        if params and params[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            params = params[1:]
        if argument.keyword is not None:
            name = argument.keyword.value
        elif position < len(params):
            name = params[position]
        else:
            return False
        fed = run.args
        if fed is None:
            return False
        values = [e.value for e in fed.elements] if isinstance(fed, (cst.Tuple, cst.List)) else [fed]
        assigns = [a for a in ctx.index.in_function("assigns", step) if isinstance(a, cst.Assign)]
        if any(name in names_in(t.target) for a in assigns for t in a.targets):
            return False  # the parameter is replaced before the run
        passed = {name}
        for assign in assigns:  # `images, labels = inputs`: its parts are passed on
            if isinstance(assign.value, cst.Name) and assign.value.value == name:
                passed |= {n for t in assign.targets for n in names_in(t.target)}
        return any(isinstance(v, cst.Name) and v.value in passed for v in values)

    def _report_host(self, ctx: RuleContext, batch: cst.BaseExpression, kind: str, run: RunCall) -> None:
        """Advice for a batch made on the host: only the input pipeline's author can rebuild it."""
        strategy = ctx.source(run.strategy)
        if kind == NUMPY:
            how = (
                "build the input with `tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)` and "
                f"iterate `{strategy}.experimental_distribute_dataset(...)`"
            )
        else:
            how = (
                "wrap it with `tf.data.Dataset.from_generator(..., output_signature=...)` (its batches "
                f"become global batches) and iterate `{strategy}.experimental_distribute_dataset(...)`"
            )
        ctx.report(
            batch,
            f"every replica gets the whole of {kind}: `strategy.run` does not split arrays made outside "
            f"tf.data (each replica trains on all of its rows); {how}",
        )

    def _report(self, ctx: RuleContext, source: cst.BaseExpression, run: RunCall, call: cst.Call) -> None:
        """Reported at ``call``, the call that hands the batch to the replicas (the step call or
        `strategy.run` itself), where the mistake takes effect; the fix distributes the dataset
        where the loop or `iter(...)` reads it."""
        strategy = ctx.source(run.strategy)
        shown = ctx.source(source)
        line = ctx.range(source).start.line
        where = f"`{shown}` (line {line})" if len(shown) <= 40 else f"line {line}"
        message = (
            f"every replica gets the whole batch of the plain tf.data dataset {where}; distribute it with "
            f"`{strategy}.experimental_distribute_dataset(...)`, batched by the global size"
        )
        if not self._reachable(ctx, source, run):
            ctx.report(call, message)
            return
        replacement = f"{strategy}.experimental_distribute_dataset({shown})"
        ctx.report(call, message, edits=[ctx.replace(source, replacement)])

    def _reachable(self, ctx: RuleContext, source: cst.CSTNode, run: RunCall) -> bool:
        """The run's strategy expression can be written where the dataset is."""
        key = ctx.source(run.strategy)
        here = ctx.index.enclosing_function(source)
        if ctx.index.enclosing_function(run.call) is here:
            return True
        if key.startswith("self."):
            run_func = ctx.index.enclosing_function(run.call)
            # A lambda is never a method: its parent is an expression, not a class body.
            while run_func is not None and not (
                isinstance(run_func, cst.FunctionDef) and ctx.index.method_class(run_func) is not None
            ):
                run_func = ctx.index.enclosing_function(run_func)
            return (
                isinstance(here, cst.FunctionDef)
                and isinstance(run_func, cst.FunctionDef)
                and ctx.index.method_class(here) is ctx.index.method_class(run_func)
            )
        scope = here
        while scope is not None:
            if isinstance(scope, cst.FunctionDef) and has_parameter(scope, key):
                return True
            if any(
                isinstance(a, cst.Assign) and any(ctx.source(t.target) == key for t in a.targets)
                for a in ctx.index.in_function("assigns", scope)
            ):
                return True
            scope = ctx.index.enclosing_function(scope)
        return any(
            isinstance(a, cst.Assign) and any(ctx.source(t.target) == key for t in a.targets)
            for a in ctx.index.in_function("assigns", None)
        )


def _iterated_into_run(use: Use) -> bool:
    """The importer loops over the result and gives its batches to `strategy.run` undistributed,
    under a strategy with more than one replica."""
    return LOOP_RUN in use.feeds and DISTRIBUTE not in use.feeds and bool(use.strategies - {"OneDeviceStrategy"})


def _returns(ctx: RuleContext, func: cst.FunctionDef) -> list[cst.Return]:
    """The `return <value>` statements of ``func`` itself (not of functions nested in it)."""
    return [
        ret
        for ret in m.findall(func, m.Return(value=m.DoNotCare()))
        if isinstance(ret, cst.Return) and ret.value is not None and ctx.index.enclosing_function(ret) is func
    ]
