"""The same training on every device the machine has: the replica count follows the hardware
(benchmarks/probe_hard_coded_device_list.py)."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 16 * strategy.num_replicas_in_sync

features = tf.random.stateless_uniform((256, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")

model.fit(dataset, epochs=2)
