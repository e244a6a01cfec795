"""Training on every worker from one TFRecord file. The strategy auto-shards the input by file
(the default policy for a file source), and one file cannot give each of two workers its own:
the first worker raises and the others abort."""

import os
import tempfile

import tensorflow as tf

GLOBAL_BATCH = 4

TRAIN_FILE = "train.tfrecord"

strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)

# The training file (written here so the example is self-contained: every worker writes the same
# records to a file of its own, then moves it into place, so a reader never sees half a file).
with tempfile.NamedTemporaryFile(dir=".", suffix=".part", delete=False) as part:
    pass
with tf.io.TFRecordWriter(part.name) as writer:
    for i in range(16):
        writer.write(tf.io.serialize_tensor(tf.constant(float(i))).numpy())
os.replace(part.name, TRAIN_FILE)
with strategy.scope():
    w = tf.Variable([0.0])
    optimizer = tf.keras.optimizers.SGD(0.01)

dataset = tf.data.TFRecordDataset(TRAIN_FILE).map(lambda r: tf.io.parse_tensor(r, tf.float32))
dataset = dataset.map(lambda x: tf.reshape(x, [1])).batch(GLOBAL_BATCH)


def replica_fn(batch):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(tf.square(batch * w - 1.0), global_batch_size=GLOBAL_BATCH)
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


@tf.function
def train_step(batch):
    return strategy.run(replica_fn, args=(batch,))


for batch in strategy.experimental_distribute_dataset(dataset):
    train_step(batch)
print("w", w.numpy())
