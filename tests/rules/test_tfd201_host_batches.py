"""TFD201 on batches made outside tf.data: NumPy slices, `ImageDataGenerator` iterators and
Python generators fed to `strategy.run` reach every replica whole (measured on TensorFlow 2.21
with 2 replicas: a 4-row NumPy batch gave each replica 4 rows, a distributed dataset 2)."""

from __future__ import annotations

import textwrap

import pytest

from fixer.engine import check_source


def tfd201(source: str) -> list:
    return [f for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == "TFD201"]


FOUND = {
    "numpy slices of keras load_data": (
        """
        import numpy as np
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
        x_train = x_train.astype("float32") / 255.0
        BATCH = 64

        @tf.function
        def distributed_train_step(images, labels):
            return strategy.run(train_step, args=(images, labels))

        for epoch in range(3):
            for i in range(0, len(x_train), BATCH):
                xb = x_train[i:i + BATCH]
                yb = y_train[i:i + BATCH]
                distributed_train_step(xb, yb)
        """,
        "a NumPy batch",
    ),
    "next of an ImageDataGenerator flow": (
        """
        import tensorflow as tf
        from tensorflow.keras.preprocessing.image import ImageDataGenerator

        strategy = tf.distribute.MirroredStrategy()
        datagen = ImageDataGenerator(rescale=1.0 / 255, horizontal_flip=True)
        train_gen = datagen.flow_from_directory("data/train", target_size=(224, 224), batch_size=32)

        @tf.function
        def step(x, y):
            strategy.run(replica_step, args=(x, y))

        for epoch in range(10):
            for _ in range(len(train_gen)):
                x, y = next(train_gen)
                step(x, y)
        """,
        "`ImageDataGenerator`",
    ),
    "loop over a flow with a direct run": (
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        aug = tf.keras.preprocessing.image.ImageDataGenerator(rotation_range=10)
        for batch_x, batch_y in aug.flow(train_x, train_y, batch_size=128):
            strategy.run(replica_fn, args=(batch_x, batch_y))
        """,
        "`ImageDataGenerator`",
    ),
    "python generator unpacked in the step": (
        """
        import numpy as np
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def batches(paths, size):
            while True:
                idx = np.random.choice(len(paths), size)
                yield load_images(paths[idx]), labels[idx]

        it = batches(all_paths, 32)

        @tf.function
        def train_step(inputs):
            images, labels = inputs
            return strategy.run(step_fn, args=(images, labels))

        for step in range(1000):
            batch = next(it)
            train_step(batch)
        """,
        "Python generator",
    ),
}

NOT_FOUND = {
    "arrays turned into a distributed dataset inside": """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        (x_train, y_train), _ = tf.keras.datasets.cifar10.load_data()

        def train(x, y):
            dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(256))
            for features, labels in dist:
                strategy.run(replica_fn, args=(features, labels))

        train(x_train[:5000], y_train[:5000])
    """,
    "generator wrapped in from_generator and distributed": """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def rows():
            for i in range(1000):
                yield [float(i)], [float(i % 2)]

        ds = tf.data.Dataset.from_generator(rows, output_signature=(tf.TensorSpec([1]), tf.TensorSpec([1]))).batch(64)
        for x, y in strategy.experimental_distribute_dataset(ds):
            strategy.run(replica_fn, args=(x, y))
    """,
    "a whole constant array every replica needs": """
        import numpy as np
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        class_weights = np.array([1.0, 4.0, 2.5])
        for x, y in strategy.experimental_distribute_dataset(dataset):
            strategy.run(replica_fn, args=(x, y, class_weights))
    """,
    "numpy batches on one device": """
        import numpy as np
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        data = np.load("train.npy")
        for i in range(0, len(data), 32):
            strategy.run(replica_fn, args=(data[i:i + 32],))
    """,
    "values split per replica by the user": """
        import numpy as np
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        data = np.load("train.npy")
        for i in range(0, len(data), 64):
            chunk = data[i:i + 64]
            per_replica = strategy.experimental_distribute_values_from_function(
                lambda ctx: chunk[ctx.replica_id_in_sync_group::ctx.num_replicas_in_sync]
            )
            strategy.run(replica_fn, args=(per_replica,))
    """,
}


@pytest.mark.parametrize(("source", "kind"), FOUND.values(), ids=FOUND.keys())
def test_host_batch_given_to_the_replicas_is_found_once(source, kind):
    (finding,) = tfd201(source)
    assert kind in finding.message and "experimental_distribute_dataset" in finding.message
    assert finding.fix is None or not finding.fix.edits  # advice: the input pipeline must be rebuilt


@pytest.mark.parametrize("source", NOT_FOUND.values(), ids=NOT_FOUND.keys())
def test_split_or_constant_input_is_not_reported(source):
    assert tfd201(source) == []
