"""Examples of TFD202 (multiworker-input-not-sharded).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
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
    Valid(
        """
        import json
        import os

        import tensorflow as tf

        config = json.loads(os.environ["TF_CONFIG"])
        NUM_WORKERS = len(config["cluster"]["worker"])
        WORKER_ID = config["task"]["index"]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def make_worker_dataset():
            files = sorted(tf.io.gfile.glob(pattern))
            ds = tf.data.Dataset.from_tensor_slices(files).shard(NUM_WORKERS, WORKER_ID)
            ds = ds.interleave(tf.data.TFRecordDataset)
            return ds.map(parse).batch(32)

        def dataset_fn(ctx):
            return make_worker_dataset()

        dist = strategy.distribute_datasets_from_function(dataset_fn)
        """,
        note="context ignored, but a module helper shards by the worker from TF_CONFIG",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def make_dataset():
            ds = tf.data.Dataset.from_tensor_slices((x, y))
            return ds.shuffle(1000).batch(32)

        def dataset_fn(ctx):
            return make_dataset()

        dist = strategy.distribute_datasets_from_function(dataset_fn)
        """,
        after=None,
        note="a module helper that shards nothing: advice",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(256, seed=1).batch(32)
            for xb, yb in dataset:
                loss = train_step(xb, yb)
        """,
        after=r'''
        import tensorflow as tf


        def _input_shard(strategy):
            """This worker's share of the input: (number of input pipelines, this worker's pipeline id).

            Under MultiWorkerMirroredStrategy every worker (the chief too) must read its own part of
            the data. Added by distfix (TFD202).
            """
            resolver = strategy.cluster_resolver
            cluster = resolver.cluster_spec().as_dict() if resolver is not None else {}
            chiefs = len(cluster.get("chief", []))
            workers = chiefs + len(cluster.get("worker", []))
            if not workers:
                return 1, 0
            index = resolver.task_id or 0
            if resolver.task_type == "worker":
                index += chiefs
            return workers, index


        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shard(*_input_shard(strategy)).shuffle(256, seed=1).batch(32)
            for xb, yb in dataset:
                loss = train_step(xb, yb)
        ''',
        note="iterated on every worker into a step called directly: sharded",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        ds = tf.data.TFRecordDataset(files)
        ds = ds.map(parse).batch(64)


        @tf.function
        def distributed_step(batch):
            return strategy.run(step_fn, args=(batch,))


        for epoch in range(5):
            for batch in ds:
                distributed_step(batch)
        """,
        after=r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        ds = tf.data.TFRecordDataset(files)
        ds = ds.map(parse).batch(64)


        @tf.function
        def distributed_step(batch):
            return strategy.run(step_fn, args=(batch,))


        for epoch in range(5):
            for batch in strategy.experimental_distribute_dataset(ds):
                distributed_step(batch)
        """,
        note="iterated into strategy.run through a step: distributed",
    ),
    Invalid(
        r"""
        import tensorflow as tf


        def make_input():
            return tf.data.Dataset.range(1000).map(to_features).batch(10)


        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        for step, (x, y) in enumerate(make_input()):
            fit_batch(x, y)
        """,
        after=r'''
        import tensorflow as tf


        def _input_shard(strategy):
            """This worker's share of the input: (number of input pipelines, this worker's pipeline id).

            Under MultiWorkerMirroredStrategy every worker (the chief too) must read its own part of
            the data. Added by distfix (TFD202).
            """
            resolver = strategy.cluster_resolver
            cluster = resolver.cluster_spec().as_dict() if resolver is not None else {}
            chiefs = len(cluster.get("chief", []))
            workers = chiefs + len(cluster.get("worker", []))
            if not workers:
                return 1, 0
            index = resolver.task_id or 0
            if resolver.task_type == "worker":
                index += chiefs
            return workers, index



        def make_input():
            return tf.data.Dataset.range(1000).shard(*_input_shard(strategy)).map(to_features).batch(10)


        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        for step, (x, y) in enumerate(make_input()):
            fit_batch(x, y)
        ''',
        note="enumerate over a dataset from a factory",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        data = tf.data.Dataset.from_tensor_slices(rows).batch(16)


        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            for batch in data:
                update(batch)
        """,
        after=None,
        note="the strategy is not in reach of the dataset: advice",
    ),
    Valid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()


        def evaluate(model):
            test_ds = tf.data.Dataset.range(64).batch(8)

            def step(batch):
                return model(batch)

            for batch in test_ds:
                step(batch)
        """,
        note="an evaluation loop over the whole dataset on every worker is redundant, not wrong",
    ),
    Valid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        task = strategy.cluster_resolver.task_id
        ds = tf.data.Dataset.from_tensor_slices(rows)
        ds = ds.shard(2, task)
        ds = ds.batch(16)
        for batch in ds:
            update(batch)
        """,
        note="sharded by the task on another line",
    ),
    Valid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        worker_index = strategy.cluster_resolver.task_id
        ds = tf.data.TFRecordDataset(shards[worker_index]).batch(16)
        for batch in ds:
            update(batch)
        """,
        note="files chosen by the task index",
    ),
    Valid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        ds = tf.data.Dataset.range(10).batch(2)
        for batch in ds.take(1):
            print(batch.shape, len(batch))
        """,
        note="only printed, not trained on",
    ),
    Valid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()


        def train(dataset):
            for x, y in dataset:
                step(x, y)
        """,
        note="a dataset passed in: unknown",
    ),
    Valid(
        r"""
        import glob
        import json
        import os

        import tensorflow as tf

        config = json.loads(os.environ["TF_CONFIG"])
        me = config["task"]["index"]
        count = len(config["cluster"]["worker"])
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        mine = sorted(glob.glob("/records/*.tfrecord"))[me::count]
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        ds = tf.data.TFRecordDataset(mine).batch(32).with_options(options)
        dist = strategy.experimental_distribute_dataset(ds)
        """,
        note="auto-sharding off, files sliced by the task index read from TF_CONFIG",
    ),
    Valid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        resolver = strategy.cluster_resolver
        paths = tf.io.gfile.glob("gs://bucket/shards/*")[resolver.task_id::4]
        opts = tf.data.Options()
        opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        dist = strategy.experimental_distribute_dataset(tf.data.TFRecordDataset(paths).batch(8).with_options(opts))
        """,
        note="auto-sharding off, files sliced by the resolver's task id",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()


        def input_options():
            opts = tf.data.Options()
            opts.experimental_deterministic = False
            opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
            return opts


        names = tf.data.Dataset.list_files("/records/train-*", shuffle=False)
        ds = names.interleave(tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE).batch(64)
        dist = strategy.experimental_distribute_dataset(ds.with_options(input_options()))
        """,
        after=r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()


        def input_options():
            opts = tf.data.Options()
            opts.experimental_deterministic = False
            opts.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.FILE
            return opts


        names = tf.data.Dataset.list_files("/records/train-*", shuffle=False)
        ds = names.interleave(tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE).batch(64)
        dist = strategy.experimental_distribute_dataset(ds.with_options(input_options()))
        """,
        note="off with a nondeterministic order over files: FILE, not DATA",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        ds = tf.data.Dataset.from_tensor_slices(rows).map(decode, num_parallel_calls=8, deterministic=False)
        dist = strategy.experimental_distribute_dataset(ds.batch(16).with_options(options))
        """,
        after=None,
        note="off with a nondeterministic map over data in memory: advice",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        ds = tf.data.Dataset.from_tensor_slices(rows).shuffle(4096).batch(16).with_options(options)
        dist = strategy.experimental_distribute_dataset(ds)
        """,
        after=r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
        ds = tf.data.Dataset.from_tensor_slices(rows).shuffle(4096, seed=42).batch(16).with_options(options)
        dist = strategy.experimental_distribute_dataset(ds)
        """,
        note="DATA after an unseeded shuffle: the shuffle gets one constant seed",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        pairs = tf.data.Dataset.from_tensor_slices((images, labels))
        pairs = pairs.shuffle(10000, reshuffle_each_iteration=True).batch(128)


        @tf.function
        def train_step(images, labels):
            return strategy.run(replica_step, args=(images, labels))


        for images, labels in pairs:
            train_step(images, labels)
        """,
        after=r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        pairs = tf.data.Dataset.from_tensor_slices((images, labels))
        pairs = pairs.shuffle(10000, reshuffle_each_iteration=True, seed=42).batch(128)


        @tf.function
        def train_step(images, labels):
            return strategy.run(replica_step, args=(images, labels))


        for images, labels in strategy.experimental_distribute_dataset(pairs):
            train_step(images, labels)
        """,
        note="distributed after an unseeded shuffle: seeded with one constant too",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        tf.random.set_seed(100 + strategy.cluster_resolver.task_id)
        ds = tf.data.Dataset.range(64).shuffle(64).batch(8)


        @tf.function
        def train_step(batch):
            return strategy.run(replica_step, args=(batch,))


        for batch in ds:
            train_step(batch)
        """,
        after=None,
        note="a per-worker global seed changes every shuffle: advice",
    ),
    Invalid(
        r"""
        import json
        import os

        import tensorflow as tf

        config = json.loads(os.environ["TF_CONFIG"])
        print("serving on", config["cluster"]["worker"][config["task"]["index"]])
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(8).with_options(options))
        """,
        after=r"""
        import json
        import os

        import tensorflow as tf

        config = json.loads(os.environ["TF_CONFIG"])
        print("serving on", config["cluster"]["worker"][config["task"]["index"]])
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
        dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(8).with_options(options))
        """,
        note="the task index selects an address, not the input: still unsharded",
    ),
)
