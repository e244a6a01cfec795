"""A cluster spec that worked on one laptop: the chief is "localhost" next to real hosts."""

import tensorflow as tf

cluster = tf.train.ClusterSpec({"chief": ["localhost:2222"], "worker": ["gpu-node-1:2222", "gpu-node-2:2222"]})
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(cluster, task_type="chief", task_id=0)
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
