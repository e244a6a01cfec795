"""The same loop with XLA only on the per-replica forward pass, which runs on each replica's own
device; the outer step is a plain tf.function (benchmarks/probe_jit_compile_across_replicas.py)."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 8 * strategy.num_replicas_in_sync

features = tf.random.stateless_uniform((64, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function(jit_compile=True)
def per_example_loss(x, y):
    return tf.reduce_sum(tf.square(model(x) - y), axis=1)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        per_example = per_example_loss(x, y)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_step(x, y):
    losses = strategy.run(replica_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in dist_dataset:
    print("loss", float(distributed_step(x, y)))
