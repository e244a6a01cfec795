"""A custom loop that prints the loss strategy.run returns as a float (it is a PerReplica value)."""

import tensorflow as tf

GLOBAL_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)

features = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
labels = tf.constant([[1.0], [2.0], [3.0], [4.0]])
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(GLOBAL_BATCH)
dist_dataset = strategy.experimental_distribute_dataset(dataset)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(x) - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def train_step(x, y):
    return strategy.run(replica_step, args=(x, y))


for step, (x, y) in zip(range(3), dist_dataset):
    loss = train_step(x, y)
    print("step", step, "loss", float(loss))
