"""Training on "the four GPUs" of the machine the script was written on. On a machine with
fewer devices nothing fails: the replicas that have no device of their own all run on the first
one, and the global batch is still split four ways."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1", "/gpu:2", "/gpu:3"])
GLOBAL_BATCH = 16 * strategy.num_replicas_in_sync

features = tf.random.stateless_uniform((256, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")

model.fit(dataset, epochs=2)
