"""Every worker shuffles with the same seed, so auto-sharding splits one shared order."""

import tensorflow as tf

GLOBAL_BATCH = 2
strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)
with strategy.scope():
    w = tf.Variable([0.0])
    optimizer = tf.keras.optimizers.SGD(0.01)

# In memory: auto-sharding splits it by data, so every worker runs this whole pipeline.
dataset = tf.data.Dataset.range(20).map(lambda i: tf.cast(i, tf.float32))
dataset = dataset.shuffle(20, seed=7).batch(GLOBAL_BATCH)


def replica_fn(batch):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.square(batch * w - 1.0), global_batch_size=GLOBAL_BATCH)
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


@tf.function
def train_step(batch):
    return strategy.run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    train_step(batch)
print("w", w.numpy())
