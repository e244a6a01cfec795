"""TFD202: under MultiWorkerMirroredStrategy, input that every worker reads whole."""

from __future__ import annotations

import libcst as cst

from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability

_FROM_FUNCTION = frozenset({"distribute_datasets_from_function", "experimental_distribute_datasets_from_function"})


class MultiworkerInputNotSharded(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds input that every worker reads whole:
    auto-sharding turned off (`AutoShardPolicy.OFF`) with no `.shard(...)` anywhere, a
    `dataset_fn(input_context)` given to `distribute_datasets_from_function` that never shards
    by the context, and `ds.options().experimental_distribute...` assignments, which change a
    copy and have no effect.

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
    worker's slice of every batch; a shuffle before it must be seeded identically on every
    worker (TFD204). The `options()` case is explained, not rewritten.

    ## Runtime evidence
    `distfix validate --workers 2` records the batches each worker feeds to `strategy.run`:
    the original fails check `inputs-distinct`, the fixed script passes.

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

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
            dataset = tf.data.Dataset.range(8).batch(4).with_options(options)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
            dataset = tf.data.Dataset.range(8).batch(4).with_options(options)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            note="auto-sharding off",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(input_context):
                batch = input_context.get_per_replica_batch_size(64)
                ds = tf.data.Dataset.from_tensor_slices((x, y))
                return ds.shuffle(1000).batch(batch)

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(input_context):
                batch = input_context.get_per_replica_batch_size(64)
                ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
                return ds.shuffle(1000).batch(batch)

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="dataset_fn shards nothing",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def make(ctx):
                return tf.data.TFRecordDataset(files).map(parse).batch(32)

            dist = strategy.distribute_datasets_from_function(make)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def make(ctx):
                return tf.data.TFRecordDataset(files).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).map(parse).batch(32)

            dist = strategy.distribute_datasets_from_function(make)
            """,
            note="context ignored entirely",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
            dist = strategy.distribute_datasets_from_function(
                lambda ctx: tf.data.Dataset.range(100).batch(ctx.get_per_replica_batch_size(8))
            )
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
            dist = strategy.distribute_datasets_from_function(
                lambda ctx: tf.data.Dataset.range(100).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(ctx.get_per_replica_batch_size(8))
            )
            """,
            note="lambda dataset_fn",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            dataset = tf.data.Dataset.range(8).batch(4)
            dataset.options().experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
            """,
            after=None,
            note="options of a copy",
        ),
        Invalid(
            """
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

            strategy = MWMS()
            opts = tf.data.Options()
            opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
            """,
            after="""
            import tensorflow as tf
            from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

            strategy = MWMS()
            opts = tf.data.Options()
            opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
            """,
            note="aliased strategy",
        ),
        Invalid(
            """
            import tensorflow as tf

            def train(strategy: tf.distribute.MultiWorkerMirroredStrategy):
                def dataset_fn(input_context):
                    return tf.data.Dataset.from_tensor_slices(features).repeat().batch(16)

                return strategy.distribute_datasets_from_function(dataset_fn)
            """,
            after="""
            import tensorflow as tf

            def train(strategy: tf.distribute.MultiWorkerMirroredStrategy):
                def dataset_fn(input_context):
                    return tf.data.Dataset.from_tensor_slices(features).shard(input_context.num_input_pipelines, input_context.input_pipeline_id).repeat().batch(16)

                return strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="typed strategy parameter",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(input_context):
                return load_dataset()

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            after=None,
            note="unknown source: advice",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(ctx):
                ds = tf.data.Dataset.range(8).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
                return ds.batch(ctx.get_per_replica_batch_size(4))

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="sharded by the context",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            dataset = tf.data.Dataset.range(8).shuffle(8, seed=7).batch(4)
            dist = strategy.experimental_distribute_dataset(dataset)
            """,
            note="auto-sharding on",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            resolver = strategy.cluster_resolver
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
            ds = tf.data.Dataset.range(8).shard(2, resolver.task_id).batch(2).with_options(options)
            """,
            note="off with a manual shard",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def dataset_fn(ctx):
                return tf.data.Dataset.range(8).batch(4)

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="single machine",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
            """,
            note="DATA policy",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(ctx):
                files = tf.data.Dataset.list_files(pattern).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
                return files.interleave(tf.data.TFRecordDataset).batch(8)

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="file-level shard",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            options = tf.data.Options()
            options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF  # distfix: ignore[TFD202]
            """,
            note="suppressed",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def dataset_fn(ctx):
                return make_input(ctx)

            dist = strategy.distribute_datasets_from_function(dataset_fn)
            """,
            note="context handed to a helper",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        self._auto_shard_off(ctx)
        self._options_copy(ctx)
        self._dataset_fns(ctx)

    def _auto_shard_off(self, ctx: RuleContext) -> None:
        shards = any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "shard" for c in ctx.index.calls)
        for assign in ctx.index.assigns:
            if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
                continue
            target = assign.targets[0].target
            if not (isinstance(target, cst.Attribute) and target.attr.value == "auto_shard_policy"):
                continue
            if _is_options_copy(target):
                continue
            value = ctx.tf.names.qualified(assign.value) or ""
            if not value.endswith("AutoShardPolicy.OFF") or shards:
                continue
            ctx.report(
                assign.value,
                "auto-sharding is off and nothing calls `.shard(...)`: every worker reads the whole dataset; "
                "use AutoShardPolicy.DATA (or shard by the task index)",
                edits=[ctx.replace(assign.value.attr, "DATA")] if isinstance(assign.value, cst.Attribute) else None,
            )

    def _options_copy(self, ctx: RuleContext) -> None:
        for assign in ctx.index.assigns:
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and _is_options_copy(assign.targets[0].target):
                ctx.report(
                    assign.targets[0].target,
                    "`ds.options()` returns a copy: this assignment changes nothing; build `tf.data.Options()`, set "
                    "it there and apply it with `ds = ds.with_options(options)`",
                )

    def _dataset_fns(self, ctx: RuleContext) -> None:
        for call in ctx.index.calls:
            func = call.func
            if not (isinstance(func, cst.Attribute) and func.attr.value in _FROM_FUNCTION and call.args):
                continue
            if not ctx.tf.strategies.is_strategy(func.value):
                continue
            for fn in ctx.tf.replica.resolve_callable(call.args[0].value):
                self._check_dataset_fn(ctx, fn)

    def _check_dataset_fn(self, ctx: RuleContext, fn) -> None:
        params = fn.params.params
        if not params:
            return
        context = params[0].name.value
        body_calls = [c for c in ctx.index.calls if ctx.index.is_within(c, fn) and c is not fn]
        if any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "shard" for c in body_calls):
            return
        if any(
            context in {a.value.value for a in c.args if isinstance(a.value, cst.Name)} for c in body_calls
        ):
            return  # the context is handed to a helper that may shard
        sources = [
            c for c in body_calls
            if (ctx.tf.names.callee(c) or "").startswith(("tensorflow.data.Dataset.", "tensorflow.data.TFRecordDataset", "tensorflow.data.TextLineDataset"))
        ]
        message = (
            f"`{context}` is never used to shard: with distribute_datasets_from_function every worker reads the "
            f"whole dataset; add `.shard({context}.num_input_pipelines, {context}.input_pipeline_id)` before "
            "shuffle and batch"
        )
        if len(sources) != 1:
            ctx.report(fn.params, message)
            return
        shard = f".shard({context}.num_input_pipelines, {context}.input_pipeline_id)"
        ctx.report(sources[0], message, edits=[ctx.insert_after(sources[0], shard)])


def _is_options_copy(target: cst.BaseExpression) -> bool:
    """``<ds>.options().experimental_distribute.<x>``: an assignment into a copy."""
    node = target
    while isinstance(node, cst.Attribute):
        node = node.value
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "options":
            return True
    return False
