"""A launcher helper that writes an index the cluster does not have, as a string."""

import json
import os

import tensorflow as tf

# distfix TFD601: TF_CONFIG comes from each task's launcher now; the cluster removed here was
# {"worker": ["node-a:2222", "node-b:2222"]}
strategy = tf.distribute.MultiWorkerMirroredStrategy()
