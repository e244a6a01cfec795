"""Each replica clips its own share of the gradients; the optimizer then sums the clipped shares."""

import tensorflow as tf

GLOBAL_BATCH = 4
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    w = tf.Variable([1.0, 1.0])
    optimizer = tf.keras.optimizers.SGD(0.01)

features = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
targets = tf.constant([1.0, 2.0, 3.0, 4.0])
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)


def replica_fn(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.square(tf.linalg.matvec(x, w) - y)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, [w])
    grads, _ = tf.clip_by_global_norm(grads, 10.0)
    optimizer.apply_gradients(zip(grads, [w]))
    return loss


@tf.function
def train_step(x, y):
    return strategy.run(replica_fn, args=(x, y))


for x, y in strategy.experimental_distribute_dataset(dataset):
    train_step(x, y)
print("w", w.numpy())
