"""Seed article 004: a multi-worker job whose cluster is written into the script.

Do not run this directly: it names addresses of a cluster that is not here. `distfix validate
--workers 2` maps them to free 127.0.0.1 ports.
"""

import json
import os

import tensorflow as tf

os.environ["TF_CONFIG"] = json.dumps(
    {
        "cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]},
        "task": {"type": "worker", "index": 0},
    }
)
strategy = tf.distribute.MultiWorkerMirroredStrategy()

with strategy.scope():
    w = tf.Variable([1.0, 1.0])
    optimizer = tf.keras.optimizers.SGD(0.01)

GLOBAL_BATCH = 4
features = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
labels = tf.constant([1.0, 2.0, 3.0, 4.0])
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(GLOBAL_BATCH)
dist_dataset = strategy.experimental_distribute_dataset(dataset)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.square(tf.reduce_sum(w * x, axis=1) - y)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return loss


@tf.function
def train_step(x, y):
    per_replica = strategy.run(replica_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for step, (x, y) in zip(range(3), dist_dataset):
    print("step", step, "loss", float(train_step(x, y)))
