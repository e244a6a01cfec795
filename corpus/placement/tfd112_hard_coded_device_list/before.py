"""Training on four CPUs listed by hand, in a script that makes no logical devices: the process
has one CPU device, so the four replicas all run on `CPU:0` and the first all-reduce waits forever
(benchmarks/probe_device_list_other_machines.py), nothing raised."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"])
GLOBAL_BATCH = 16 * strategy.num_replicas_in_sync

features = tf.random.stateless_uniform((256, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")

model.fit(dataset, epochs=2)
