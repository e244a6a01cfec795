"""A launcher helper that writes an index the cluster does not have, as a string."""

import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps(
    {"cluster": {"worker": ["node-a:2222", "node-b:2222"]}, "task": {"type": "worker", "index": "2"}}
)
strategy = tf.distribute.MultiWorkerMirroredStrategy()
