"""The cluster comes from the launcher's TF_CONFIG, which `distfix doctor` checks before launch."""

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)
