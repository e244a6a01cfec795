"""Examples of TFD501 (same-seed-on-every-worker).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        r"""
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(x):
            noise = tf.random.normal(tf.shape(x), stddev=0.1)
            return model(x + noise)

        strategy.run(replica_fn, args=(batch,))
        """,
        after=r'''
        import tensorflow as tf


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index


        tf.random.set_seed(_worker_seed(42))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(x):
            noise = tf.random.normal(tf.shape(x), stddev=0.1)
            return model(x + noise)

        strategy.run(replica_fn, args=(batch,))
        ''',
        note="noise in the replica fn",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        SEED = 7
        tf.keras.utils.set_random_seed(SEED)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def augment(image, label):
            return tf.image.random_flip_left_right(image), label

        dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(32)
        """,
        after=r'''
        import tensorflow as tf


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index


        SEED = 7
        tf.keras.utils.set_random_seed(_worker_seed(SEED))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def augment(image, label):
            return tf.image.random_flip_left_right(image), label

        dataset = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(32)
        ''',
        note="augmentation in a map function",
    ),
    Invalid(
        r"""
        import keras
        import tensorflow as tf

        keras.utils.set_random_seed(1)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        flip = keras.layers.RandomFlip("horizontal")

        def dataset_fn(ctx):
            ds = tf.data.Dataset.from_tensor_slices(images).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
            return ds.map(lambda x: flip(x, training=True)).batch(8)
        """,
        after=r'''
        import keras
        import tensorflow as tf


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index


        keras.utils.set_random_seed(_worker_seed(1))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        flip = keras.layers.RandomFlip("horizontal")

        def dataset_fn(ctx):
            ds = tf.data.Dataset.from_tensor_slices(images).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
            return ds.map(lambda x: flip(x, training=True)).batch(8)
        ''',
        note="Keras seeds a layer made outside the scope from Python's random",
    ),
    Valid(
        r"""
        import tensorflow as tf

        tf.random.set_seed(3)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def dataset_fn(ctx):
            ds = tf.data.Dataset.range(100)
            ds = ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
            ds = ds.shuffle(100)
            return ds.batch(10)
        """,
        note="a shuffle after the shard: one permutation of disjoint shards repeats no example "
        "(benchmarks/probe_same_seed_shuffle_after_shard.py)",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.Dataset.range(100).shuffle(100).batch(10)
        dist = strategy.experimental_distribute_dataset(dataset)

        def replica_fn(x):
            return tf.cast(x, tf.float32) + tf.random.uniform([])

        for x in dist:
            strategy.run(replica_fn, args=(x,))
        """,
        after=None,
        note="an unseeded shuffle before auto-sharding: advice",
    ),
    Valid(
        r"""
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        dataset = tf.data.Dataset.range(100).shuffle(100).batch(10).map(lambda x: x + tf.random.uniform([]))
        dist = strategy.experimental_distribute_dataset(dataset)
        """,
        note="random draws in a map before auto-sharding by data: each example drawn once, as on one machine",
    ),
    Valid(
        r"""
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def augment(image, label):
            return tf.image.random_flip_left_right(image), label

        train = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(50000, seed=42).map(augment).batch(64)
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="mse")
        model.fit(train, epochs=3)
        """,
        note="fit distributes its dataset by data like experimental_distribute_dataset: one augmentation per example",
    ),
    Invalid(
        r"""
        import tensorflow as tf
        from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

        def main():
            tf.random.set_seed(10)
            strategy = MWMS()

            def step_fn(x):
                return tf.nn.dropout(x, rate=0.5) * tf.random.uniform([])

            strategy.run(step_fn, args=(x,))
        """,
        after=r'''
        import tensorflow as tf
        from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index


        def main():
            tf.random.set_seed(_worker_seed(10))
            strategy = MWMS()

            def step_fn(x):
                return tf.nn.dropout(x, rate=0.5) * tf.random.uniform([])

            strategy.run(step_fn, args=(x,))
        ''',
        note="inside main",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def fn(x):
            return model(x + tf.random.normal(tf.shape(x), stddev=0.1))

        ds = tf.data.Dataset.from_tensor_slices(features).shuffle(1024, seed=7).batch(64)
        for x in strategy.experimental_distribute_dataset(ds):
            strategy.run(fn, args=(x,))
        """,
        after=None,
        note="a seeded shuffle before auto-sharding also follows the global seed: advice",
    ),
    Invalid(
        r"""
        import random

        import tensorflow as tf
        from tensorflow import keras

        random.seed(5)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        augment = keras.Sequential([keras.layers.RandomRotation(0.1), keras.layers.RandomZoom(0.1)])
        """,
        after=r'''
        import random

        import tensorflow as tf
        from tensorflow import keras


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index


        random.seed(_worker_seed(5))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        augment = keras.Sequential([keras.layers.RandomRotation(0.1), keras.layers.RandomZoom(0.1)])
        ''',
        note="Python's random.seed seeds Keras layers",
    ),
    Invalid(
        r"""
        import tensorflow as tf
        from tensorflow.keras import layers

        tf.keras.utils.set_random_seed(123)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        augment = tf.keras.Sequential([layers.RandomRotation(0.1), layers.RandomZoom(0.1)])
        """,
        after=r'''
        import tensorflow as tf
        from tensorflow.keras import layers


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index


        tf.keras.utils.set_random_seed(_worker_seed(123))
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        augment = tf.keras.Sequential([layers.RandomRotation(0.1), layers.RandomZoom(0.1)])
        ''',
        note="layers imported from tensorflow.keras",
    ),
    Invalid(
        r"""
        import tensorflow as tf

        tf.random.set_seed(0)
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()

        def replica_fn(x):
            return tf.random.shuffle(x)

        strategy.run(replica_fn, args=(x,))
        """,
        after=r'''
        import tensorflow as tf


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index


        tf.random.set_seed(_worker_seed(0))
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()

        def replica_fn(x):
            return tf.random.shuffle(x)

        strategy.run(replica_fn, args=(x,))
        ''',
        note="experimental class",
    ),
    Valid(
        r"""
        import tensorflow as tf
        from tensorflow import keras

        tf.random.set_seed(0)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        augment = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.RandomContrast(0.2)])
        """,
        note="tf.random.set_seed does not seed Keras layers (Python's random does)",
    ),
    Valid(
        r"""
        import keras
        import tensorflow as tf

        keras.utils.set_random_seed(1)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.RandomFlip("horizontal"), keras.layers.Dense(1)])
        """,
        note="a layer made in the scope keeps its seed state in a variable broadcast from worker 0",
    ),
    Valid(
        r"""
        import keras
        import tensorflow as tf

        keras.utils.set_random_seed(1)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        flip = keras.layers.RandomFlip("horizontal", seed=3)
        """,
        note="a layer with its own seed",
    ),
    Valid(
        r"""
        import keras
        import tensorflow as tf

        tf.random.set_seed(4)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        gen = keras.random.SeedGenerator(4)

        def replica_fn(x):
            return x + keras.random.normal(keras.ops.shape(x), seed=gen)

        strategy.run(replica_fn, args=(x,))
        """,
        note="keras.random with its own SeedGenerator",
    ),
    Valid(
        """
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(16), tf.keras.layers.Dropout(0.5), tf.keras.layers.Dense(1)])
        """,
        note="only weights and Dropout, which the seed does not split",
    ),
    Valid(
        """
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            return x + tf.random.normal(tf.shape(x))

        strategy.run(replica_fn, args=(x,))
        """,
        note="single machine",
    ),
    Valid(
        """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        tf.random.set_seed(42 + resolver.task_id)
        strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)

        def replica_fn(x):
            return x + tf.random.normal(tf.shape(x))
        """,
        note="seed already per worker",
    ),
    Valid(
        """
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        x_train = tf.random.normal((100, 10))
        dataset = tf.data.Dataset.from_tensor_slices(x_train).shuffle(100, seed=1).batch(10)
        """,
        note="synthetic data that must be equal on every worker",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(x):
            return x + tf.random.normal(tf.shape(x))
        """,
        note="no seed at all",
    ),
    Valid(
        """
        import tensorflow as tf

        tf.random.set_seed(args.seed)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(x):
            return x + tf.random.normal(tf.shape(x))
        """,
        note="seed from a flag",
    ),
    Valid(
        """
        import tensorflow as tf

        tf.random.set_seed(42)  # distfix: ignore[TFD501]
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(x):
            return x + tf.random.normal(tf.shape(x))

        strategy.run(replica_fn, args=(x,))
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        tf.random.set_seed(42)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def replica_fn(x, seed):
            return x + tf.random.stateless_normal(tf.shape(x), seed=seed)

        strategy.run(replica_fn, args=(x, seeds))
        """,
        note="stateless ops take their own seed",
    ),
    Valid(
        r"""
        import tensorflow as tf

        tf.keras.utils.set_random_seed(3)
        strategy = tf.distribute.MultiWorkerMirroredStrategy()


        def jitter(image, label):
            image = tf.image.random_brightness(image, 0.2)
            return tf.image.random_flip_up_down(image), label


        images = tf.data.Dataset.from_tensor_slices((pixels, classes)).map(jitter).batch(256)
        policy = tf.data.Options()
        policy.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
        batches = strategy.experimental_distribute_dataset(images.with_options(policy))
        """,
        note="augmentation before explicit DATA auto-sharding: every worker augments alike and keeps its slice",
    ),
    Invalid(
        r"""
        import tensorflow as tf


        def augment(image, label):
            return tf.image.random_crop(image, [28, 28, 3]), label


        def run(seed=1234):
            tf.random.set_seed(seed)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            records = tf.data.TFRecordDataset(tf.io.gfile.glob("/data/*.tfrecord")).map(parse).map(augment)
            return strategy.experimental_distribute_dataset(records.batch(64))
        """,
        after=r'''
        import tensorflow as tf


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index



        def augment(image, label):
            return tf.image.random_crop(image, [28, 28, 3]), label


        def run(seed=1234):
            tf.random.set_seed(_worker_seed(seed))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            records = tf.data.TFRecordDataset(tf.io.gfile.glob("/data/*.tfrecord")).map(parse).map(augment)
            return strategy.experimental_distribute_dataset(records.batch(64))
        ''',
        note="a constant seed from a parameter default; files are sharded by file, so each worker augments its own",
    ),
    Invalid(
        r"""
        import dataclasses

        import tensorflow as tf


        @dataclasses.dataclass
        class Settings:
            lr: float = 0.01
            seed: int = 7


        def main(settings: Settings):
            tf.keras.utils.set_random_seed(settings.seed)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return x * tf.random.uniform(tf.shape(x))

            return strategy.run(replica_fn, args=(1.0,))


        main(Settings(lr=0.1))
        """,
        after=r'''
        import dataclasses

        import tensorflow as tf


        def _worker_seed(seed):
            """``seed`` made different on every task of the cluster, read from TF_CONFIG (which exists
            before the strategy does). Added by distfix (TFD501).
            """
            resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
            index = resolver.task_id or 0
            if resolver.task_type == "worker" and "chief" in resolver.cluster_spec().as_dict():
                index += 1  # the chief is task 0 of its own job
            return seed + index



        @dataclasses.dataclass
        class Settings:
            lr: float = 0.01
            seed: int = 7


        def main(settings: Settings):
            tf.keras.utils.set_random_seed(_worker_seed(settings.seed))
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return x * tf.random.uniform(tf.shape(x))

            return strategy.run(replica_fn, args=(1.0,))


        main(Settings(lr=0.1))
        ''',
        note="a constant seed from a config dataclass default",
    ),
    Valid(
        r"""
        import dataclasses

        import tensorflow as tf


        @dataclasses.dataclass
        class Settings:
            seed: int = 7


        def main(settings: Settings):
            tf.keras.utils.set_random_seed(settings.seed)
            strategy = tf.distribute.MultiWorkerMirroredStrategy()

            def replica_fn(x):
                return x * tf.random.uniform(tf.shape(x))

            return strategy.run(replica_fn, args=(1.0,))


        main(Settings(seed=int(os.environ["SEED"])))
        """,
        note="the config default is replaced where it is built",
    ),
)
