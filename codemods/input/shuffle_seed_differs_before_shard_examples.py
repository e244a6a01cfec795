"""Examples of TFD204 (shuffle-seed-differs-before-shard).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
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
