"""A custom loop whose replica function trains with Keras' train_on_batch (it needs cross-replica context)."""

import tensorflow as tf

GLOBAL_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")

features = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
labels = tf.constant([[1.0], [2.0], [3.0], [4.0]])
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(GLOBAL_BATCH)
dist_dataset = strategy.experimental_distribute_dataset(dataset)


def replica_step(x, y):
    model.train_on_batch(x, y)


@tf.function
def train_step(x, y):
    strategy.run(replica_step, args=(x, y))


for step, (x, y) in zip(range(3), dist_dataset):
    train_step(x, y)
