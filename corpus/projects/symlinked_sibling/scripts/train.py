"""A custom training loop under MirroredStrategy; its data comes from a sibling module reached through a symlink."""

import tensorflow as tf

from helpers import regression_data

GLOBAL_BATCH = 32
strategy = tf.distribute.MirroredStrategy()
x, y = regression_data(256, 4)
dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    optimizer.build(model.trainable_variables)


def step(batch):
    features, labels = batch
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(features) - labels), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


@tf.function
def train_step(batch):
    return strategy.reduce("SUM", strategy.run(step, args=(batch,)), axis=None)


for batch in dist:
    train_step(batch)
