"""A custom training loop under MultiWorkerMirroredStrategy, one process per worker.

Each worker gets its TF_CONFIG from the launcher (here, `distfix validate --workers 2`). The global
batch is derived from the replica count, the dataset is auto-sharded by the strategy, the loss is
scaled with `compute_average_loss`, and the model and Adam are built in the scope. Synthetic data.
"""

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
PER_REPLICA_BATCH = 16
GLOBAL_BATCH_SIZE = PER_REPLICA_BATCH * strategy.num_replicas_in_sync

rng = np.random.default_rng(3)
features = rng.random((512, 8), dtype=np.float32)
targets = (features @ np.arange(1, 9, dtype=np.float32))[:, None] / 10.0
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH_SIZE)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)])
    model.build((None, 8))
    optimizer = tf.keras.optimizers.Adam(1e-2)
    optimizer.build(model.trainable_variables)


def train_step(inputs):
    x, y = inputs
    with tf.GradientTape() as tape:
        per_example_loss = tf.reduce_mean(tf.square(model(x, training=True) - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH_SIZE)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


@tf.function
def distributed_train_step(inputs):
    per_replica_losses = strategy.run(train_step, args=(inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


for step, batch in enumerate(dist_dataset):
    loss = distributed_train_step(batch)
    if step % 4 == 0:
        print(f"worker {strategy.cluster_resolver.task_id} step {step}: loss {float(loss):.4f}")
