"""A tf-keras custom loop that tracks the mean training loss with a Keras metric made in the
strategy's scope, and updates it with the loss `strategy.reduce` returned, in the outer
`tf.function`. That update runs in cross-replica context, where tf-keras metrics (summed
on-read variables) cannot be added to: the first step raises."""

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
    train_loss = tf_keras.metrics.Mean()


def replica_step(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(x) - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_step(x, y):
    losses = strategy.run(replica_step, args=(x, y))
    loss = strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)
    train_loss.update_state(loss)
    return loss


for x, y in dist_dataset:
    distributed_step(x, y)
print("mean loss", float(train_loss.result()))
