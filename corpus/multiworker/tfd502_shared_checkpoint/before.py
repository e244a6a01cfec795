"""Every worker writes the same checkpoint path: the writes race."""

import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)
with strategy.scope():
    w = tf.Variable([1.0, 2.0])
    checkpoint = tf.train.Checkpoint(w=w)

out_dir = os.environ.get("OUT_DIR", "/tmp/distfix-ckpt")
checkpoint.write(os.path.join(out_dir, "ckpt"))
