"""A custom training loop written against TensorFlow 2.0-era names."""

import tensorflow as tf

GLOBAL_BATCH = 8

strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    model.build((None, 4))
    optimizer.build(model.trainable_variables)


def make_dataset(ctx):
    batch = ctx.get_per_replica_batch_size(GLOBAL_BATCH)
    features = tf.random.stateless_normal((64, 4), seed=(1, 2))
    labels = tf.reduce_sum(features, axis=1, keepdims=True)
    return tf.data.Dataset.from_tensor_slices((features, labels)).batch(batch)


dist_dataset = strategy.distribute_datasets_from_function(make_dataset)


def replica_step(features, labels):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(features) - labels), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def train_step(features, labels):
    per_replica = strategy.run(replica_step, args=(features, labels))  # old name
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for step, (x, y) in enumerate(dist_dataset):
    print(step, float(train_step(x, y)))
