"""The per-replica batch size is given to experimental_distribute_dataset, which splits it again."""

import tensorflow as tf

BATCH_SIZE_PER_REPLICA = 8
strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync

with strategy.scope():
    w = tf.Variable([0.0])
    optimizer = tf.keras.optimizers.SGD(0.01)

dataset = tf.data.Dataset.range(64).map(lambda i: tf.cast(i, tf.float32))
dataset = dataset.shuffle(64, seed=1).batch(BATCH_SIZE_PER_REPLICA)


def replica_fn(batch):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.square(batch * w - 1.0), global_batch_size=GLOBAL_BATCH_SIZE)
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


@tf.function
def train_step(batch):
    return strategy.run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    train_step(batch)
print("w", w.numpy())
