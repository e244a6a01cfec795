"""The same job written correctly for several workers (distfix reports nothing)."""

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)
print("devices:", tf.config.list_logical_devices())
features = tf.random.normal((16, 4))
print("replicas:", strategy.num_replicas_in_sync)
