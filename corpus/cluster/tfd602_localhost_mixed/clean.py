"""A cluster spec naming every machine by a reachable address."""

import tensorflow as tf

cluster = tf.train.ClusterSpec({"chief": ["chief-node:2222"], "worker": ["gpu-node-1:2222", "gpu-node-2:2222"]})
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(cluster, task_type="chief", task_id=0)
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver)
