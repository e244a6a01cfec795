"""TFD204: a shuffle that differs between workers runs before the data is split between them."""

from __future__ import annotations

import libcst as cst

from fixer.tf.pipelines import (
    SHUFFLE_SEED,
    data_sharded,
    distributed_inputs,
    pipeline,
    seed_argument,
    task_dependent,
)
from fixer.context import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.strategies import MULTI_WORKER_CLASSES
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


class ShuffleSeedDiffersBeforeShard(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds a dataset `shuffle` that runs before the point
    where the data is split between workers and that is not the same on every worker: a
    `shuffle` with no seed (and no global seed), a `shuffle` seeded by the task index, or any
    `shuffle` when the global seed (`tf.random.set_seed`, `keras.utils.set_random_seed`)
    differs per worker. The shard point is either auto-sharding by data or an explicit
    `.shard(num_workers, task_index)` (also `.shard(ctx.num_input_pipelines,
    ctx.input_pipeline_id)` in a `dataset_fn`). Auto-sharding by data happens when the pipeline
    is given to `strategy.experimental_distribute_dataset` or to Keras `fit`/`evaluate` (which
    distribute it the same way; counted only when every strategy the module builds is a
    `MultiWorkerMirroredStrategy`, and under Keras 3 such a `fit` fails first, see TFD504) and
    either sets `AutoShardPolicy.DATA`, or keeps the default
    policy (AUTO) over a source not read from files (`range`, `from_tensor_slices`,
    `from_generator`...), where sharding by file fails and TensorFlow falls back to data.

    Not reported: a shuffle after the shard point (`ds.shard(n, i).shuffle(...)`: each worker
    shuffles its own examples, as intended); a shuffle with a constant seed, or an unseeded one
    when a global seed not taken from the task is set (measured: identical on every worker);
    pipelines sharded by file (AUTO over `TFRecordDataset`/`list_files`..., or
    `AutoShardPolicy.FILE`), where each worker reads its own files; auto-sharding turned off
    (TFD202's case); a shard whose index does not come from the task (`ds.shard(10, 0)` to hold
    out a split); datasets built by libraries (`tfds.load`, `image_dataset_from_directory`,
    whose internal shuffles are not visible here).

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
    auto-sharding splits the file list at its source.

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
    ever adds one constant seed on the shuffle itself.

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

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024).batch(64)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024, seed=42).batch(64)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            note="unseeded shuffle before auto-sharding by data",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            ds = tf.data.Dataset.range(100)
            ds = ds.shuffle(100, reshuffle_each_iteration=True)
            ds = ds.batch(10)
            for batch in strategy.experimental_distribute_dataset(ds):
                strategy.run(step, args=(batch,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            ds = tf.data.Dataset.range(100)
            ds = ds.shuffle(100, reshuffle_each_iteration=True, seed=42)
            ds = ds.batch(10)
            for batch in strategy.experimental_distribute_dataset(ds):
                strategy.run(step, args=(batch,))
            """,
            note="pipeline over several statements",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
            files = tf.data.Dataset.list_files("/data/*.tfrecord", shuffle=False)
            ds = tf.data.TFRecordDataset(files).shuffle(4096).batch(32).with_options(options)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
            files = tf.data.Dataset.list_files("/data/*.tfrecord", shuffle=False)
            ds = tf.data.TFRecordDataset(files).shuffle(4096, seed=42).batch(32).with_options(options)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            note="files sharded by data because the policy says DATA",
        ),
        Invalid(
            """
            import tensorflow as tf

            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
            ds = tf.data.Dataset.range(64).shuffle(64, seed=resolver.task_id).batch(8)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            after="""
            import tensorflow as tf

            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
            ds = tf.data.Dataset.range(64).shuffle(64, seed=42).batch(8)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            note="a shuffle seeded by the task index",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(ctx):
                ds = tf.data.Dataset.from_tensor_slices(features).shuffle(10000)
                ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
                return ds.batch(ctx.get_per_replica_batch_size(64))

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(ctx):
                ds = tf.data.Dataset.from_tensor_slices(features).shuffle(10000, seed=42)
                ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
                return ds.batch(ctx.get_per_replica_batch_size(64))

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="dataset_fn shuffles before its shard",
        ),
        Invalid(
            """
            import tensorflow as tf

            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
            num_workers = len(resolver.cluster_spec().as_dict()["worker"])
            ds = tf.data.Dataset.range(1000).shuffle(1000).shard(num_workers, resolver.task_id).batch(16)
            for batch in ds:
                train_step(batch)
            """,
            after="""
            import tensorflow as tf

            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
            num_workers = len(resolver.cluster_spec().as_dict()["worker"])
            ds = tf.data.Dataset.range(1000).shuffle(1000, seed=42).shard(num_workers, resolver.task_id).batch(16)
            for batch in ds:
                train_step(batch)
            """,
            note="explicit shard by the task after the shuffle",
        ),
        Invalid(
            """
            import os

            import tensorflow as tf

            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            strategy = tf.distribute.MultiWorkerMirroredStrategy()


            def make_dataset(batch_size):
                return tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(60000).repeat().batch(batch_size)


            with strategy.scope():
                model = build_model()
            model.fit(make_dataset(128), epochs=3, steps_per_epoch=70)
            """,
            after="""
            import os

            import tensorflow as tf

            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            strategy = tf.distribute.MultiWorkerMirroredStrategy()


            def make_dataset(batch_size):
                return tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(60000, seed=42).repeat().batch(batch_size)


            with strategy.scope():
                model = build_model()
            model.fit(make_dataset(128), epochs=3, steps_per_epoch=70)
            """,
            note="Keras fit auto-shards the dataset a helper builds",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            tf.random.set_seed(1234 + strategy.cluster_resolver.task_id)
            ds = tf.data.Dataset.range(256).shuffle(256, seed=7).batch(32)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            after=None,
            note="per-worker global seed: advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            ds = tf.data.Dataset.range(64).shuffle(64, seed=None).batch(8)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            ds = tf.data.Dataset.range(64).shuffle(64, seed=42).batch(8)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            note="seed=None is unseeded",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy

            def main():
                strategy = MultiWorkerMirroredStrategy()
                train = tf.data.Dataset.from_tensor_slices(images).map(parse).shuffle(buffer_size=512)
                train = train.batch(64).prefetch(2)
                return strategy.experimental_distribute_dataset(train)
            """,
            after="""
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy

            def main():
                strategy = MultiWorkerMirroredStrategy()
                train = tf.data.Dataset.from_tensor_slices(images).map(parse).shuffle(buffer_size=512, seed=42)
                train = train.batch(64).prefetch(2)
                return strategy.experimental_distribute_dataset(train)
            """,
            note="imported class, keyword buffer size",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024, seed=7).batch(64)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            note="constant seed",
        ),
        Valid(
            """
            import tensorflow as tf

            tf.random.set_seed(42)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024).batch(64)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            note="one global seed on every worker makes the shuffle identical",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(ctx):
                ds = tf.data.Dataset.from_tensor_slices(features)
                ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).shuffle(10000)
                return ds.batch(ctx.get_per_replica_batch_size(64))

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="shuffle after the shard",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            files = tf.data.Dataset.list_files("/data/train-*.tfrecord", shuffle=False)
            ds = tf.data.TFRecordDataset(files).shuffle(4096).batch(32)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            note="AUTO over files shards by file",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1024).batch(64)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            note="one machine: one pipeline feeds every replica",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.FILE
            ds = tf.data.TFRecordDataset(tf.io.gfile.glob("/data/*.rec")).shuffle(512).batch(8).with_options(options)
            dist = strategy.experimental_distribute_dataset(ds)
            """,
            note="FILE policy",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            full = tf.data.Dataset.range(1000).shuffle(1000)
            validation = full.shard(10, 0)
            for batch in validation.batch(10):
                evaluate(batch)
            """,
            note="a held-out split, not a shard by worker",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
            ds = tf.data.Dataset.range(64).shuffle(64).batch(8).with_options(options)
            for batch in strategy.experimental_distribute_dataset(ds):
                strategy.run(step, args=(batch,))
            """,
            note="auto-sharding off: not sharded at all, TFD202's finding",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            ds = tf.data.Dataset.range(64).batch(8).shuffle(8)
            dist = strategy.experimental_distribute_dataset(make_pipeline(ds))
            """,
            note="a pipeline built elsewhere cannot be followed",
        ),
        Valid(
            """
            import tensorflow as tf

            keras_seed = 17
            tf.keras.utils.set_random_seed(keras_seed)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            ds = tf.data.Dataset.range(64).shuffle(64).batch(8)
            model.fit(ds, epochs=2)
            """,
            note="keras.utils.set_random_seed with one constant seeds TensorFlow too",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.experimental.ParameterServerStrategy(cluster_resolver)
            dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(10).repeat().batch(64)
            with strategy.scope():
                model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
                model.compile("adagrad", "mse")
            model.fit(dataset, epochs=5, steps_per_epoch=10)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            """,
            note="fit under a ParameterServerStrategy in a notebook that later builds MWMS",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        per_worker_seed, constant_seed = self._global_seeds(ctx)
        reported: set[cst.Call] = set()
        for shuffle, point in self._shuffles_before_shard(ctx):
            if shuffle in reported:
                continue
            seed = seed_argument(shuffle)
            where = f"runs before {point}"
            if per_worker_seed is not None:
                reported.add(shuffle)
                line = ctx.range(per_worker_seed).start.line
                ctx.report(
                    shuffle.func.attr,
                    f"this shuffle {where} and the global seed differs per worker (line {line}), so even `seed=` "
                    "differs; shuffle after the shard, or set one global seed",
                )
                continue
            unseeded = seed is None or (isinstance(seed, cst.Name) and seed.value == "None")
            if unseeded and constant_seed:
                continue  # one global seed on every worker: the shuffle is identical (measured)
            if not unseeded and not task_dependent(ctx, seed):
                continue
            reported.add(shuffle)
            cause = "is unseeded" if unseeded else "is seeded by the task index"
            message = (
                f"this shuffle {where} and {cause}: the workers' shards overlap and miss examples; "
            )
            edits = self._seed(ctx, shuffle, seed)
            if edits is None:
                ctx.report(shuffle.func.attr, message + f"give it one constant seed (`seed={SHUFFLE_SEED}`)")
            else:
                ctx.report(shuffle.func.attr, message + f"seed it with one constant (`seed={SHUFFLE_SEED}`)", edits=edits)

    def _global_seeds(self, ctx: RuleContext) -> tuple[cst.Call | None, bool]:
        """A global seed call that differs per worker (or None), and whether one constant global
        seed is set (the same on every worker)."""
        per_worker, constant = None, False
        for call in ctx.index.calls:
            if (ctx.tf.names.callee(call) or "") not in _GLOBAL_SEEDERS or not call.args:
                continue
            if task_dependent(ctx, call.args[0].value):
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
            if ctx.tf.names.callee(call) is not None or not task_dependent(ctx, call.args[1].value):
                continue  # not a dataset method, or a held-out split (`shard(10, 0)`) rather than a worker's part
            upstream = pipeline(ctx, func.value)
            if upstream is not None:
                point = f"`.shard(...)` at line {ctx.range(call).start.line}"
                found.extend((shuffle, point) for shuffle in _unsharded_shuffles(upstream))
        for call, dataset in distributed_inputs(ctx):
            if not self._multi_worker_call(ctx, call):
                continue
            distributed = pipeline(ctx, dataset, call)
            if distributed is None or not data_sharded(ctx, distributed):
                continue
            line = ctx.range(call).start.line
            point = f"auto-sharding by data (line {line})"
            found.extend((shuffle, point) for shuffle in _unsharded_shuffles(distributed))
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


def _unsharded_shuffles(found) -> list[cst.Call]:
    """The ``shuffle`` calls of a pipeline that run before any ``.shard`` in it (its methods are
    listed last applied first: a shuffle met before a shard in that list runs after it)."""
    shuffles = []
    for method in reversed(found.methods):
        name = method.func.attr.value if isinstance(method.func, cst.Attribute) else ""
        if name == "shard":
            break
        if name == "shuffle":
            shuffles.append(method)
    return shuffles
