"""Examples of TFD203 (batch-size-not-global).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        BATCH_SIZE_PER_REPLICA = 64
        strategy = tf.distribute.MirroredStrategy()
        GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(BATCH_SIZE_PER_REPLICA)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="the per-replica size where the global one is expected",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        ds = tf.data.TFRecordDataset(files).map(parse)
        ds = ds.batch(args.per_device_batch_size, drop_remainder=True)
        train = strategy.experimental_distribute_dataset(ds)
        """,
        note="a config field named per device",
    ),
    Invalid(
        """
        import tensorflow as tf

        def make(strategy, per_gpu_batch):
            ds = tf.data.Dataset.range(100)
            ds = ds.padded_batch(per_gpu_batch)
            return strategy.experimental_distribute_dataset(ds)

        make(tf.distribute.MirroredStrategy(), 16)
        """,
        note="padded_batch with a per-GPU parameter",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        per_worker_batch_size = 64
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(per_worker_batch_size)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="per-worker size under MultiWorkerMirroredStrategy",
    ),
    Invalid(
        """
        import tensorflow as tf

        GLOBAL_BATCH = 256
        strategy = tf.distribute.MirroredStrategy()

        def dataset_fn(input_context):
            batch_size = input_context.get_per_replica_batch_size(GLOBAL_BATCH)
            ds = tf.data.Dataset.from_tensor_slices(data)
            ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
            return ds.batch(GLOBAL_BATCH)

        dist = strategy.distribute_datasets_from_function(dataset_fn)
        """,
        note="computes the per-replica size and batches with the global one",
    ),
    Invalid(
        """
        import tensorflow as tf

        GLOBAL_BATCH_SIZE = 128
        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.distribute_datasets_from_function(
            lambda ctx: tf.data.Dataset.range(1000).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(GLOBAL_BATCH_SIZE)
        )
        """,
        note="a lambda dataset_fn batching the global size",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        batch_size = 32 * strategy.num_replicas_in_sync

        def input_fn(ctx):
            ds = tf.data.Dataset.from_tensor_slices(images)
            return ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(batch_size)

        train = strategy.experimental_distribute_datasets_from_function(input_fn)
        """,
        note="dataset_fn batching a size multiplied by the replicas",
    ),
    Invalid(
        """
        import os

        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        num_workers = os.environ.get("NUM_WORKERS", "1")
        global_batch = 64 * num_workers
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(global_batch)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="worker count read as a string",
    ),
    Invalid(
        """
        import os

        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        num_workers = len(os.environ["TF_CONFIG"])
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(64 * num_workers)
        model.fit(dataset, epochs=2)
        """,
        note="worker count as the length of the TF_CONFIG text",
    ),
    Invalid(
        """
        import tensorflow as tf

        BATCH_SIZE_PER_REPLICA = 32
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="mse")
        train = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH_SIZE_PER_REPLICA)
        model.fit(train, epochs=2)
        """,
        note="fit of a model built in the scope",
    ),
    Valid(
        """
        import tensorflow as tf

        BATCH_SIZE_PER_REPLICA = 64
        strategy = tf.distribute.MirroredStrategy()
        GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH_SIZE)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="the global size",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(64).batch(PER_REPLICA * strategy.num_replicas_in_sync)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="per-replica size multiplied by the replicas",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(64).batch(BATCH_SIZE)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="a neutral name: intent unknown",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(args.batch_size))
        """,
        note="a config value of unknown meaning",
    ),
    Valid(
        """
        import tensorflow as tf

        GLOBAL_BATCH_SIZE = 64
        strategy = tf.distribute.MirroredStrategy()

        def dataset_fn(input_context):
            batch_size = input_context.get_per_replica_batch_size(GLOBAL_BATCH_SIZE)
            ds = tf.data.Dataset.range(100).shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
            return ds.batch(batch_size)

        dist = strategy.distribute_datasets_from_function(dataset_fn)
        """,
        note="the documented dataset_fn",
    ),
    Valid(
        """
        import tensorflow as tf

        GLOBAL_BATCH_SIZE = 64
        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.distribute_datasets_from_function(
            lambda ctx: tf.data.Dataset.range(100).batch(GLOBAL_BATCH_SIZE // ctx.num_replicas_in_sync)
        )
        """,
        note="global size divided by the context's replicas",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        dataset = tf.data.Dataset.range(64).batch(BATCH_SIZE_PER_REPLICA)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="one replica",
    ),
    Valid(
        """
        import os

        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        num_workers = int(os.environ["NUM_WORKERS"])
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(64 * num_workers)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="worker count converted with int",
    ),
    Valid(
        """
        import json
        import os

        import tensorflow as tf

        tf_config = json.loads(os.environ["TF_CONFIG"])
        num_workers = len(tf_config["cluster"]["worker"])
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        per_worker_batch_size = 64
        global_batch_size = per_worker_batch_size * num_workers
        with strategy.scope():
            model = build_and_compile_model()
        model.fit(make_dataset(global_batch_size), epochs=3)
        """,
        note="the multi-worker Keras tutorial",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        per_worker_batch = 64
        dataset = tf.data.Dataset.range(640).batch(per_worker_batch)
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="per worker on one machine is the global batch",
    ),
    Valid(
        """
        import tensorflow as tf

        mirrored_strategy = tf.distribute.MirroredStrategy()

        def dataset_fn(input_context):
            batch_size = input_context.get_per_replica_batch_size(global_batch_size)
            dataset = tf.data.Dataset.from_tensors(([1.], [1.])).repeat(64).batch(16)
            dataset = dataset.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
            dataset = dataset.batch(batch_size)
            return dataset.prefetch(2)

        dist_dataset = mirrored_strategy.distribute_datasets_from_function(dataset_fn)
        """,
        note="input tutorial: batches of batches, the last by the per-replica size",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
        probe = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        probe.compile(optimizer="sgd", loss="mse")
        probe.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(per_replica_batch), epochs=1)
        """,
        note="fit of a model built outside any scope",
    ),
)
