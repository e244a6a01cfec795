"""The same tf-keras custom loop with the reduced loss accumulated in Python: the metric made
in the scope is no longer updated in cross-replica code, and the loop runs
(benchmarks/probe_metric_updated_cross_replica.py)."""

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
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_step(x, y):
    losses = strategy.run(replica_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


total, steps = 0.0, 0
for x, y in dist_dataset:
    total += float(distributed_step(x, y))
    steps += 1
print("mean loss", total / steps)
