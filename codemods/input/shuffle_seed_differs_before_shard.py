"""TFD204: a shuffle that differs between workers runs before the data is split between them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
import libcst.matchers as m

from fixer.rule import Rule
from fixer.test_files import is_fixture_script
from fixer.tf.importer_uses import DISTRIBUTE, FIT, Use
from fixer.tf.list_shuffles import ListShuffle, list_shuffles
from fixer.tf.pipelines import (
    SHUFFLE_SEED,
    Pipeline,
    data_sharded,
    distributed_inputs,
    pipeline,
    seed_argument,
    task_dependent,
)
from fixer.tf.strategies import MULTI_WORKER_CLASSES

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.types import Edit

_GLOBAL_SEEDERS = frozenset(
    {
        "tensorflow.random.set_seed",
        "keras.utils.set_random_seed",
        "tensorflow.compat.v1.set_random_seed",
        "tensorflow.compat.v1.random.set_random_seed",
    }
)
_GENERIC_STRATEGY = "tensorflow.distribute.Strategy"
# What seeds the global generator of an in-place list shuffle (advice: they take no seed of their own).
_GLOBAL_SEED_CALLS = {
    "numpy.random.shuffle": f"np.random.seed({SHUFFLE_SEED})",
    "random.shuffle": f"random.seed({SHUFFLE_SEED})",
}


class ShuffleSeedDiffersBeforeShard(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds a dataset `shuffle` that runs before the point where
    the data is split between workers and that is not the same on every worker: a `shuffle` with no
    seed (and no global seed), a `shuffle` seeded by the task index, or any `shuffle` when the
    global seed (`tf.random.set_seed`, `keras.utils.set_random_seed`) differs per worker.

    ## Why is this bad in distributed training?
    Sharding by data keeps worker `i`'s slice of one shared order: each worker runs the whole
    pipeline and takes its part of every global batch (or every `n`-th element). That is only a
    partition when every worker produces the same order. With a shuffle that differs per worker,
    each worker takes its slice of a different permutation, so the workers train on overlapping
    examples and never see others, silently, every epoch. Measured on TensorFlow 2.21 with two
    workers and `Dataset.range(16).shuffle(16).batch(4)` distributed by the strategy: in each of
    four runs (two under Keras 3, two under tf-keras) 3 to 6 of the 16 examples were read by
    both workers and as many by neither; 2 to 5 with `AutoShardPolicy.DATA`,
    `shuffle(16, seed=task_id)`, `.shuffle(16).shard(2, task)` or a `dataset_fn` that shuffles
    before `shard(ctx...)` (`benchmarks/probe_shuffle_before_shard.py`, output in `docs/probes.md`). With
    `shuffle(16, seed=7)`, or an unseeded shuffle after `tf.random.set_seed(42)` on every worker,
    the workers' examples were disjoint and covered all 16. Sharding by file is not affected:
    over 8 TFRecord files, `list_files`' default (unseeded) shuffle and an unseeded `.shuffle`
    of the file names before the reader still gave each worker its own 4 files, because
    auto-sharding splits the file list at its source. Nor is a shuffle of whole batches
    (`.batch(4).shuffle(4)`, unseeded): auto-sharding gives each worker its part of every batch,
    so the workers were disjoint in all four runs. The same holds one step earlier: a list of
    paths reordered by an unseeded `tf.random.shuffle`, `np.random.shuffle` or `random.shuffle`
    before `from_tensor_slices(list)` gives each worker its own list, and the slices overlap even
    with a seeded dataset shuffle or none at all (3 to 6 of 16 read twice; under tf-keras an
    `evaluate` of such a list read some twice: `benchmarks/probe_upstream_list_shuffle.py`).

    ## Fix safety
    Unsafe: the shuffle gets one constant seed, `seed=42` (a seed taken from the task index is
    replaced by it), so every worker produces the same order and sharding partitions it. The
    order now repeats from run to run (with `reshuffle_each_iteration` the epochs still differ
    from each other, identically on every worker). When the global seed differs per worker,
    a constant op seed does not help: TensorFlow derives the shuffle's seeds from the pair
    (global seed, op seed), and `shuffle(16, seed=7)` after `tf.random.set_seed(42 + task)`
    duplicated and dropped 4 of 16 examples (measured). The finding then explains instead of
    editing: shard before shuffling, or use one global seed. This rule and TFD501
    (same-seed-on-every-worker) never pull against each other: TFD501 gives per-worker seeds
    only when no shuffle runs before the shard point, and otherwise explains; this rule only
    ever adds one constant seed on the shuffle itself. When the list the dataset is built from was
    shuffled unseeded, the rewrite gives `tf.random.shuffle` the same `seed=42` (measured: disjoint);
    an in-place `np.random.shuffle` / `random.shuffle` takes no seed, so the finding only advises
    seeding its generator (`np.random.seed(42)`), which would change every later draw of it.

    ## Known limits
    - The shard point is either auto-sharding by data or an explicit `.shard(num_workers,
      task_index)` (also `.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)` in a
      `dataset_fn`). Auto-sharding by data happens when the pipeline is given to
      `strategy.experimental_distribute_dataset` or to Keras `fit`/`evaluate` (which distribute it
      the same way; counted only when every strategy the module builds is a
      `MultiWorkerMirroredStrategy`, and under Keras 3 such a `fit` fails first, see TFD504) and
      either sets `AutoShardPolicy.DATA`, or keeps the default policy (AUTO) over a source not read
      from files (`range`, `from_tensor_slices`, `from_generator`...), where sharding by file fails
      and TensorFlow falls back to data.
    - Across modules: when `check` is given a folder (and in the language server, for the
      workspace), a function of a module that builds no strategy itself is reported at its shuffle
      when another script of the folder calls it and hands the result, directly or through one name
      and after dataset methods such as `batch`, to `fit`/`evaluate` or
      `experimental_distribute_dataset` while every strategy that script builds is a
      `MultiWorkerMirroredStrategy`; the pipeline the function returns is read here (an element
      shuffle before its batching, a source not read from files, no auto-shard policy of its own)
      and the message names the script and its line (`fixer/tf/importers.py`).
    - Not followed across modules: a script that sets an auto-shard policy or a global seed, or
      shards, unbatches or sets options on the result itself; a result passed through a function of
      the script or a second name; importers in notebooks or that do not mention a strategy; an
      explicit `.shard` in the helper.
    - Not reported: a shuffle after the shard point (`ds.shard(n, i).shuffle(...)`: each worker
      shuffles its own examples, as intended); a shuffle with a constant seed, or an unseeded one
      when a global seed not taken from the task is set (measured: identical on every worker);
      pipelines sharded by file (AUTO over `TFRecordDataset`/`list_files`..., or
      `AutoShardPolicy.FILE`), where each worker reads its own files; auto-sharding turned off
      (TFD202's case); a shard whose index does not come from the task (`ds.shard(10, 0)` to hold
      out a split); datasets built by libraries (`tfds.load`, `image_dataset_from_directory`, whose
      internal shuffles are not visible here); a `.shuffle()` of a Keras folder loader's batches
      (whole batches, as after `.batch()`; not after `.unbatch()` or with `batch_size=None`).
    - A `tfds.load(..., split=...)` split is followed for the shuffles written after it, but counts
      as sharded by data only under an explicit `AutoShardPolicy.DATA`: it is read from TFRecord
      files, so the default policy shards it by file when there are enough of them. Sharding by data
      does not depend on the source or on the elements' structure (a dict of features is split like
      a tensor).
    - Not followed: a split unpacked with its info (`ds, info = tfds.load(..., with_info=True)`).
    - Not reported: a shuffle of whole batches (`.batch(4).shuffle(4)`, unseeded), which leaves the
      workers disjoint (measured, above).
    - A list's shuffle is followed only in this file, through a name given to the source
      (`from_tensor_slices(paths)`, `((paths, labels))`) and bound to `tf.random.shuffle(...)` or
      shuffled in place before it, followed through slices and indexing (`paths[:n]`), methods
      (`.numpy()`) and conversions (`np.array`, `list`); `sorted(...)` restores one order. Not
      seen as a shuffle: an unseeded index array (`paths[np.random.permutation(n)]`) or a
      generator's method (`rng.shuffle`); not followed into a pipeline sharded by hand. Evaluation and validation sets
      (`evaluate`, `validation_data=`) built this way are reported at the list's shuffle.
    - Not reported in a fixture script: a script kept among a test suite's data (under `testdata/`,
      `test_data/` or `fixtures/`, or `data/`, `resources/` or `scripts/` directly in `test/` or
      `tests/`). A test runs it to show that a launcher, container or cloud job starts the
      workers and finishes; the overlap changes only what the model learns, which such a test does
      not look at. A `data/` folder outside a test folder (a collection of scripts) is not one.

    ## Runtime evidence
    `distfix validate --workers 2` records the batches each worker draws from the distributed
    dataset; with a per-worker batch of one example, an example read by both workers fails the
    `inputs-distinct` check. The fixed script passes it.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/data/Dataset#shard
    - https://www.tensorflow.org/tutorials/distribute/input#sharding
    - https://www.tensorflow.org/api_docs/python/tf/random/set_seed
    """

    code = "TFD204"
    name = "shuffle-seed-differs-before-shard"
    message = "a shuffle that differs between workers runs before the shard point"
    fix_title = "Seed the shuffle with one constant"
    triggers = ("MultiWorkerMirroredStrategy",)
    importer_triggers = (".shuffle(",)

    def check(self, ctx: RuleContext) -> None:
        if is_fixture_script(ctx.path):
            return  # run by a test that checks the job starts and ends: which examples it reads cannot matter
        if not ctx.tf.strategies.uses_multi_worker:
            self._check_helper(ctx)
            return
        per_worker_seed, constant_seed = self._global_seeds(ctx)
        reported: set[cst.Call] = set()
        covered: set[cst.Call] = set()  # list shuffles named by a dataset shuffle's finding
        for shuffle, point in self._shuffles_before_shard(ctx):
            if shuffle in reported:
                continue
            seed = seed_argument(shuffle)
            where = f"runs before {point}"
            if per_worker_seed is not None:
                reported.add(shuffle)
                line = ctx.range(per_worker_seed).start.line
                ctx.report(
                    _method(shuffle),
                    f"this shuffle {where} and the global seed differs per worker (line {line}), so even `seed=` "
                    "differs; shuffle after the shard, or set one global seed",
                )
                continue
            unseeded = seed is None or (isinstance(seed, cst.Name) and seed.value == "None")
            if unseeded and constant_seed:
                continue  # one global seed on every worker: the shuffle is identical (measured)
            if not unseeded and seed is not None and not task_dependent(ctx.tf, seed):
                continue
            reported.add(shuffle)
            cause = "is unseeded" if unseeded else "is seeded by the task index"
            message = f"this shuffle {where} and {cause}: the workers' shards overlap and miss examples; "
            edits = self._seed(ctx, shuffle, seed)
            upstream = self._list_shuffles_upstream(ctx, shuffle)
            if upstream:
                covered.update(item.call for item in upstream)
                self._report_with_list_shuffles(ctx, shuffle, f"this shuffle {where} and {cause}", edits, upstream)
                continue
            if edits is None:
                ctx.report(_method(shuffle), message + f"give it one constant seed (`seed={SHUFFLE_SEED}`)")
            else:
                ctx.report(
                    _method(shuffle), message + f"seed it with one constant (`seed={SHUFFLE_SEED}`)", edits=edits
                )
        if per_worker_seed is None:
            self._sharded_shuffled_lists(ctx, covered)

    def _list_shuffles_upstream(self, ctx: RuleContext, shuffle: cst.Call) -> list[ListShuffle]:
        """The unseeded shuffles of the lists the dataset ``shuffle`` reorders was built from."""
        upstream = pipeline(ctx.tf, cst.ensure_type(shuffle.func, cst.Attribute).value)
        if upstream is None or upstream.source is None:
            return []
        return list_shuffles(ctx.tf, upstream.source)

    def _report_with_list_shuffles(
        self,
        ctx: RuleContext,
        shuffle: cst.Call,
        what: str,
        edits: list[Edit] | None,
        upstream: list[ListShuffle],
    ) -> None:
        """A dataset shuffle whose list was itself reordered unseeded: one seed on the dataset's
        shuffle still slices different lists (probe_upstream_list_shuffle.py), so the rewrite seeds
        both, or, when the list's shuffle takes no seed of its own, the finding only advises."""
        lines = ", ".join(str(ctx.range(item.call).start.line) for item in upstream)
        message = f"{what}, as is the shuffle of its list (line {lines}): the workers' shards overlap; "
        if edits is not None and all(item.seedable for item in upstream):
            for item in upstream:
                more = self._seed(ctx, item.call, seed_argument(item.call))
                if more is None:
                    break
                edits = [*edits, *more]
            else:
                ctx.report(_method(shuffle), message + f"seed both (`seed={SHUFFLE_SEED}`)", edits=edits)
                return
        seeders = ", ".join(_GLOBAL_SEED_CALLS[item.callee] for item in upstream if not item.seedable)
        ctx.report(_method(shuffle), message + f"seed both (`seed={SHUFFLE_SEED}`, `{seeders}` once)")

    def _sharded_shuffled_lists(self, ctx: RuleContext, covered: set[cst.Call]) -> None:
        """A dataset sharded by data (by `fit`, `evaluate`, `validation_data=` or
        `experimental_distribute_dataset` under MultiWorkerMirroredStrategy) built from a list an
        unseeded shuffle reordered in each worker's process: each worker slices its own order, even
        with no dataset shuffle at all (an evaluation set). Reported at the list's shuffle."""
        for call, dataset in distributed_inputs(ctx.tf):
            if not self._multi_worker_call(ctx, call):
                continue
            distributed = pipeline(ctx.tf, dataset, call)
            if distributed is None or distributed.source is None or not data_sharded(ctx.tf, distributed):
                continue
            for item in list_shuffles(ctx.tf, distributed.source):
                if item.call in covered:
                    continue
                covered.add(item.call)
                line = ctx.range(call).start.line
                message = (
                    f"unseeded, this shuffle orders the list of a dataset sharded by data (line {line}) "
                    "differently on each worker: the shards overlap; "
                )
                target = item.call.func.attr if isinstance(item.call.func, cst.Attribute) else item.call.func
                if item.seedable and (edits := self._seed(ctx, item.call, seed_argument(item.call))) is not None:
                    ctx.report(target, message + f"seed it (`seed={SHUFFLE_SEED}`)", edits=edits)
                else:
                    seeder = _GLOBAL_SEED_CALLS.get(item.callee, f"seed={SHUFFLE_SEED}")
                    ctx.report(target, message + f"seed its generator alike on every worker (`{seeder}`)")

    def _check_helper(self, ctx: RuleContext) -> None:
        """A dataset builder of a module that another script of the project calls and hands to
        `fit` or `experimental_distribute_dataset` under MultiWorkerMirroredStrategy: its
        returned pipeline is auto-sharded there, so an element shuffle in it runs before the
        shard point (reported here, naming the importer)."""
        importers = ctx.tf.importers
        if importers is None or ctx.tf.strategies.constructions:
            return
        if any(self._global_seeds(ctx)):
            return  # a global seed set here: see the in-file case; not followed across files
        for func in ctx.module.body:
            if not isinstance(func, cst.FunctionDef):
                continue
            uses = [u for u in importers.uses(func.name.value) if _auto_sharded_by(u)]
            if not uses:
                continue
            use = uses[0]
            feed = "`fit`" if FIT in use.feeds else "`experimental_distribute_dataset`"
            where = (
                f"{use.where(importers.root)} passes `{func.name.value}()` to {feed} under MultiWorkerMirroredStrategy"
            )
            for ret in _returns(ctx, func):
                assert ret.value is not None  # _returns keeps the returns with a value
                found = pipeline(ctx.tf, ret.value, ret)
                if found is None or not data_sharded(ctx.tf, found):
                    continue
                for shuffle in _element_shuffles(ctx, found):
                    seed = seed_argument(shuffle)
                    unseeded = seed is None or (isinstance(seed, cst.Name) and seed.value == "None")
                    if not unseeded and seed is not None and not task_dependent(ctx.tf, seed):
                        continue
                    cause = "is unseeded" if unseeded else "is seeded by the task index"
                    message = (
                        f"this shuffle runs before auto-sharding by data ({where}) and {cause}: "
                        "the workers' shards overlap and miss examples; "
                    )
                    edits = self._seed(ctx, shuffle, seed)
                    if edits is None:
                        ctx.report(_method(shuffle), message + f"give it one constant seed (`seed={SHUFFLE_SEED}`)")
                    else:
                        ctx.report(
                            _method(shuffle),
                            message + f"seed it with one constant (`seed={SHUFFLE_SEED}`)",
                            edits=edits,
                        )

    def _global_seeds(self, ctx: RuleContext) -> tuple[cst.Call | None, bool]:
        """A global seed call that differs per worker (or None), and whether one constant global
        seed is set (the same on every worker)."""
        per_worker, constant = None, False
        for call in ctx.index.calls:
            if (ctx.tf.names.callee(call) or "") not in _GLOBAL_SEEDERS or not call.args:
                continue
            if task_dependent(ctx.tf, call.args[0].value):
                per_worker = per_worker or call
            elif not (isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "None"):
                constant = True
        return per_worker, constant

    def _shuffles_before_shard(self, ctx: RuleContext) -> list[tuple[cst.Call, str]]:
        """Every dataset ``shuffle`` with a shard point by worker after it (described for the
        message), in source order."""
        found: list[tuple[cst.Call, str]] = []
        for call in ctx.index.calls:
            func = call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value == "shard" and len(call.args) >= 2):
                continue
            if ctx.tf.names.callee(call) is not None or not task_dependent(ctx.tf, call.args[1].value):
                continue  # not a dataset method, or a held-out split (`shard(10, 0)`) rather than a worker's part
            upstream = pipeline(ctx.tf, func.value)
            if upstream is not None:
                point = f"`.shard(...)` at line {ctx.range(call).start.line}"
                found.extend((shuffle, point) for shuffle in upstream.before_shard("shuffle"))
        for call, dataset in distributed_inputs(ctx.tf):
            if not self._multi_worker_call(ctx, call):
                continue
            distributed = pipeline(ctx.tf, dataset, call)
            if distributed is None or not data_sharded(ctx.tf, distributed):
                continue
            line = ctx.range(call).start.line
            point = f"auto-sharding by data (line {line})"
            found.extend((shuffle, point) for shuffle in _element_shuffles(ctx, distributed))
        return sorted(found, key=lambda pair: ctx.index.order[pair[0]])

    @staticmethod
    def _multi_worker_call(ctx: RuleContext, call: cst.Call) -> bool:
        """The call distributes across the workers of a MultiWorkerMirroredStrategy: its
        `experimental_distribute_dataset` (a strategy of unknown class counts when every strategy
        the module builds is one), or Keras `fit`/`evaluate` in a module whose strategies are all
        MultiWorkerMirroredStrategy (a ParameterServerStrategy's workers do not shard by data)."""
        strategies = ctx.tf.strategies
        built = {kind for _, kind in strategies.constructions}
        only_multi_worker = bool(built) and built <= MULTI_WORKER_CLASSES
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "experimental_distribute_dataset":
            known = strategies.kinds(func.value) - {_GENERIC_STRATEGY}  # the class, where it is known
            return known <= MULTI_WORKER_CLASSES if known else only_multi_worker
        return only_multi_worker

    @staticmethod
    def _seed(ctx: RuleContext, shuffle: cst.Call, seed: cst.BaseExpression | None) -> list[Edit] | None:
        """The edit that gives ``shuffle`` one constant seed, or None when its arguments cannot take one."""
        if seed is not None:
            return [ctx.replace(seed, SHUFFLE_SEED)]
        if not shuffle.args or any(arg.star for arg in shuffle.args):
            return None
        return [ctx.insert_after(shuffle.args[-1].value, f", seed={SHUFFLE_SEED}")]


# Importer methods after which the helper's order no longer decides the shard point.
_RESHARDING = frozenset({"shard", "with_options", "unbatch", "rebatch"})


def _auto_sharded_by(use: Use) -> bool:
    """The importer hands the result to auto-sharding by data under MultiWorkerMirroredStrategy
    alone, leaving its policy and the global seed as they are."""
    return (
        bool(use.strategies)
        and use.strategies <= _MULTI_WORKER_NAMES
        and bool(use.feeds & {FIT, DISTRIBUTE})
        and not use.shard_policy
        and not use.global_seed
        and not _RESHARDING & set(use.after)
    )


_MULTI_WORKER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in MULTI_WORKER_CLASSES)


def _method(shuffle: cst.Call) -> cst.Name:
    """The method name of a ``ds.shuffle(...)`` call: where its findings point."""
    return cst.ensure_type(shuffle.func, cst.Attribute).attr


def _returns(ctx: RuleContext, func: cst.FunctionDef) -> list[cst.Return]:
    """The `return <value>` statements of ``func`` itself (not of functions nested in it)."""
    return [
        ret
        for ret in m.findall(func, m.Return(value=m.DoNotCare()))
        if isinstance(ret, cst.Return) and ret.value is not None and ctx.index.enclosing_function(ret) is func
    ]


# Methods that group elements into the batches auto-sharding by data hands out.
_BATCHING = frozenset({"batch", "padded_batch", "ragged_batch"})


def _element_shuffles(ctx: RuleContext, found: Pipeline) -> list[cst.Call]:
    """The shuffles of an auto-sharded pipeline that reorder elements, not whole batches.

    Measured (benchmarks/probe_shuffle_before_shard.py, `.batch(4).shuffle(4)`): auto-sharding
    gives each worker its own part of every batch, so an unseeded shuffle of whole batches only
    changes the order each worker reads its part in; the workers stay disjoint. A Keras folder
    loader (`image_dataset_from_directory`) gives batches already, unless `batch_size=None`.
    """
    batches = found.source is not None and _batching_loader(ctx, found.source)
    shuffles = []
    for method in reversed(found.methods):  # in the order they run
        name = method.func.attr.value if isinstance(method.func, cst.Attribute) else ""
        if name in _BATCHING or name == "shard":
            break
        if name == "unbatch":
            batches = False  # the loader's batches split into elements again
        if name == "shuffle" and not batches:
            shuffles.append(method)
    return shuffles


# Keras loaders whose dataset is made of batches (`batch_size` defaults to 32).
_BATCHING_LOADERS = frozenset(
    {
        "keras.utils.image_dataset_from_directory",
        "keras.utils.text_dataset_from_directory",
        "keras.preprocessing.image_dataset_from_directory",
    }
)


def _batching_loader(ctx: RuleContext, source: cst.Call) -> bool:
    """``source`` is a Keras folder loader that batches (no ``batch_size=None``)."""
    if ctx.tf.names.callee(source) not in _BATCHING_LOADERS:
        return False
    size = next((a.value for a in source.args if a.keyword is not None and a.keyword.value == "batch_size"), None)
    return not (isinstance(size, cst.Name) and size.value == "None")
