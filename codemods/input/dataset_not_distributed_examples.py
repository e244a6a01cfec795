"""Examples of TFD201 (dataset-not-distributed).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(64)

        @tf.function
        def train_step(inputs):
            return strategy.run(step_fn, args=(inputs,))

        for batch in dataset:
            train_step(batch)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(64)

        @tf.function
        def train_step(inputs):
            return strategy.run(step_fn, args=(inputs,))

        for batch in strategy.experimental_distribute_dataset(dataset):
            train_step(batch)
        """,
        note="dataset name through a step",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        ds = tf.data.Dataset.range(8)
        batched = ds.shuffle(8).batch(4)

        for x in batched:
            strategy.run(replica_fn, args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        ds = tf.data.Dataset.range(8)
        batched = ds.shuffle(8).batch(4)

        for x in strategy.experimental_distribute_dataset(batched):
            strategy.run(replica_fn, args=(x,))
        """,
        note="derived dataset direct run",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(x, y):
            return strategy.run(replica_fn, args=(x, y))

        for x, y in tf.data.Dataset.from_tensor_slices((features, labels)).batch(8):
            step(x, y)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(x, y):
            return strategy.run(replica_fn, args=(x, y))

        for x, y in strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((features, labels)).batch(8)):
            step(x, y)
        """,
        note="inline dataset and tuple targets",
    ),
    Invalid(
        """
        from tensorflow import data as tfdata
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        records = tfdata.TFRecordDataset(files).map(parse).batch(32)

        def train():
            for batch in records:
                strategy.run(replica_fn, args=(batch,))
        """,
        after="""
        from tensorflow import data as tfdata
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        records = tfdata.TFRecordDataset(files).map(parse).batch(32)

        def train():
            for batch in strategy.experimental_distribute_dataset(records):
                strategy.run(replica_fn, args=(batch,))
        """,
        note="TFRecordDataset in a function",
    ),
    Valid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()

            def fit(self, dataset):
                data = dataset.batch(16)
                for batch in data:
                    self.strategy.run(self.replica_step, args=(batch,))
        """,
        note="dataset of unknown origin is not reported",
    ),
    Invalid(
        """
        import tensorflow as tf

        def train(strategy):
            ds = tf.data.Dataset.range(100).batch(10)
            for batch in ds:
                strategy.run(replica_fn, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        def train(strategy):
            ds = tf.data.Dataset.range(100).batch(10)
            for batch in strategy.experimental_distribute_dataset(ds):
                strategy.run(replica_fn, args=(batch,))
        """,
        note="strategy parameter",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.from_tensor_slices(x).batch(4)

        @tf.function
        def distributed_step(batch):
            return strategy.run(replica_fn, args=(batch,))

        for epoch in range(3):
            for batch in dataset:
                loss = distributed_step(batch)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.from_tensor_slices(x).batch(4)

        @tf.function
        def distributed_step(batch):
            return strategy.run(replica_fn, args=(batch,))

        for epoch in range(3):
            for batch in strategy.experimental_distribute_dataset(dataset):
                loss = distributed_step(batch)
        """,
        note="nested loops",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(8).batch(4)
        step = lambda b: strategy.run(replica_fn, args=(b,))

        for b in dataset:
            strategy.run(replica_fn, args=(b,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(8).batch(4)
        step = lambda b: strategy.run(replica_fn, args=(b,))

        for b in strategy.experimental_distribute_dataset(dataset):
            strategy.run(replica_fn, args=(b,))
        """,
        note="module-level loop",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(8).batch(4)

        for b in dataset:
            strategy.run(replica_fn, args=(b,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(8).batch(4)

        for b in strategy.experimental_distribute_dataset(dataset):
            strategy.run(replica_fn, args=(b,))
        """,
        note="range dataset",
    ),
    Invalid(
        """
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy()
        pipeline = tf.data.Dataset.from_tensor_slices(images).repeat().batch(128)
        batches = iter(pipeline)

        @tf.function
        def run_step(images):
            return mirrored.run(replica_step, args=(images,))

        for _ in range(1000):
            run_step(next(batches))
        """,
        after="""
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy()
        pipeline = tf.data.Dataset.from_tensor_slices(images).repeat().batch(128)
        batches = iter(mirrored.experimental_distribute_dataset(pipeline))

        @tf.function
        def run_step(images):
            return mirrored.run(replica_step, args=(images,))

        for _ in range(1000):
            run_step(next(batches))
        """,
        note="an iterator over the plain dataset",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def load(batch_size):
            ds = tf.data.TextLineDataset(paths).map(tokenize)
            return ds.padded_batch(batch_size)

        @tf.function
        def step(tokens):
            return strategy.run(replica_fn, args=(tokens,))

        def fit(data):
            for i, tokens in enumerate(data):
                step(tokens)

        fit(load(256))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def load(batch_size):
            ds = tf.data.TextLineDataset(paths).map(tokenize)
            return ds.padded_batch(batch_size)

        @tf.function
        def step(tokens):
            return strategy.run(replica_fn, args=(tokens,))

        def fit(data):
            for i, tokens in enumerate(strategy.experimental_distribute_dataset(data)):
                step(tokens)

        fit(load(256))
        """,
        note="enumerate over a parameter fed by a dataset factory",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Job:
            def __init__(self, strategy):
                self.strategy = strategy
                self.batches = tf.data.Dataset.range(512).batch(32).prefetch(2)

            @tf.function
            def distributed(self, batch):
                return self.strategy.run(self.replica, args=(batch,))

            def train(self):
                for batch in self.batches:
                    self.distributed(batch)
        """,
        after="""
        import tensorflow as tf


        class Job:
            def __init__(self, strategy):
                self.strategy = strategy
                self.batches = tf.data.Dataset.range(512).batch(32).prefetch(2)

            @tf.function
            def distributed(self, batch):
                return self.strategy.run(self.replica, args=(batch,))

            def train(self):
                for batch in self.strategy.experimental_distribute_dataset(self.batches):
                    self.distributed(batch)
        """,
        note="dataset in an attribute, step as a method",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train(dist_ds):
            @tf.function
            def step(b):
                return strategy.run(replica_fn, args=(b,))

            for b in dist_ds:
                step(b)

        def validate(plain_ds):
            @tf.function
            def step(b):
                return model(b, training=False)

            for b in plain_ds:
                step(b)

        train(strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(8)))
        validate(tf.data.Dataset.range(64).batch(8))
        """,
        note="two nested functions named step: only one runs strategy.run",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def make_input(strategy):
            return strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(8))

        it = iter(make_input(strategy))

        @tf.function
        def step(b):
            return strategy.run(replica_fn, args=(b,))

        step(next(it))
        """,
        note="iterator over a factory's distributed dataset",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        dataset = tf.data.Dataset.range(64).batch(8)

        @tf.function
        def step(b):
            return strategy.run(replica_fn, args=(b,))

        for b in dataset:
            step(b)
        """,
        note="OneDeviceStrategy: the single replica takes the whole batch",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(64)
        dist_dataset = strategy.experimental_distribute_dataset(dataset)

        for batch in dist_dataset:
            strategy.run(replica_fn, args=(batch,))
        """,
        note="distributed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.distribute_datasets_from_function(make_dataset)

        for batch in dist:
            strategy.run(replica_fn, args=(batch,))
        """,
        note="from function",
    ),
    Valid(
        """
        import tensorflow as tf

        dataset = tf.data.Dataset.range(8).batch(4)
        for batch in dataset:
            train_step(batch)
        """,
        note="no strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        eval_ds = tf.data.Dataset.range(8).batch(4)
        for batch in eval_ds:
            print(model(batch))
        """,
        note="evaluation loop without strategy.run",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        model.fit(tf.data.Dataset.range(8).batch(4))
        """,
        note="Keras fit distributes itself",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(8).batch(4)
        for b in dataset:  # distfix: ignore[TFD201]
            strategy.run(replica_fn, args=(b,))
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dataset = tf.data.Dataset.range(8).batch(4)
        for b in dataset:
            strategy.run(replica_fn, args=(constant,))
        """,
        note="loop values not given to the replicas",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(images, labels):
            return tf.reduce_sum(images) + tf.cast(tf.reduce_sum(labels), tf.float32)

        @tf.function
        def train_step(batches):
            images, (labels, _) = next(batches)
            return strategy.run(replica_fn, args=(images, labels))

        pairs = tf.data.Dataset.from_tensor_slices((images_np, (labels_np, weights_np))).batch(32)
        batches = iter(pairs)
        for _ in range(100):
            train_step(batches)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(images, labels):
            return tf.reduce_sum(images) + tf.cast(tf.reduce_sum(labels), tf.float32)

        @tf.function
        def train_step(batches):
            images, (labels, _) = next(batches)
            return strategy.run(replica_fn, args=(images, labels))

        pairs = tf.data.Dataset.from_tensor_slices((images_np, (labels_np, weights_np))).batch(32)
        batches = iter(strategy.experimental_distribute_dataset(pairs))
        for _ in range(100):
            train_step(batches)
        """,
        note="the element of `next(iterator)` unpacked (nested) in the step",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        batches = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).batch(8).map(split)))

        @tf.function
        def train_step(iterator):
            x, y = next(iterator)
            return strategy.run(replica_fn, args=(x, y))

        train_step(batches)
        """,
        note="unpacked element of an iterator over a distributed dataset",
    ),
)
