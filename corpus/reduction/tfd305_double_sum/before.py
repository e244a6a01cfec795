"""A tf-keras custom loop that clips the whole gradient: it all-reduces the gradients by hand,
clips them by their global norm, then calls `apply_gradients`, which sums the replicas'
(already summed) gradients again. With 2 replicas every step is twice as long as on one device."""

import tensorflow as tf
import tf_keras

GLOBAL_BATCH = 8

strategy = tf.distribute.MirroredStrategy()

features = tf.random.stateless_uniform((64, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

with strategy.scope():
    model = tf_keras.Sequential([tf_keras.Input(shape=(4,)), tf_keras.layers.Dense(1)])
    optimizer = tf_keras.optimizers.SGD(0.05)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(x) - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
    grads, _ = tf.clip_by_global_norm(grads, 100.0)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_step(x, y):
    losses = strategy.run(replica_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in dist_dataset:
    print("loss", float(distributed_step(x, y)))
