"""The same job with the cluster given by the launcher (distfix reports nothing)."""

import os

import tensorflow as tf

task_index = int(os.environ.get("TASK_INDEX", "0"))
worker_addresses = ["10.0.0.1:2222", "10.0.0.2:2222"]
cluster_resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({"worker": worker_addresses}), task_type="worker", task_id=task_index)
strategy = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=cluster_resolver)
