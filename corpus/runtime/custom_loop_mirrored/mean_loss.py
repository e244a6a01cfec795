"""Mistake (TFD303): `train.py` with a per-replica mean loss, whose gradients the strategy sums.

With 2 replicas every update is made of twice the gradient; Adam hides most of it in the
weights, the first update's gradient shows it.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

BATCH_SIZE_PER_REPLICA = 16
EPOCHS = 1

strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync
print("replicas:", strategy.num_replicas_in_sync)

rng = np.random.default_rng(7)
images = rng.random((256, 12, 12, 1), dtype=np.float32)
labels = rng.integers(0, 10, 256).astype(np.int64)
train_dataset = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(256, seed=3).batch(GLOBAL_BATCH_SIZE)
train_dist_dataset = strategy.experimental_distribute_dataset(train_dataset)

with strategy.scope():
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Conv2D(8, 3, activation="relu"),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    model.build((None, 12, 12, 1))
    optimizer = tf.keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    checkpoint = tf.train.Checkpoint(optimizer=optimizer, model=model)


def compute_loss(labels, predictions):
    per_example_loss = loss_object(labels, predictions)
    return tf.reduce_mean(per_example_loss)


def train_step(inputs):
    images, labels = inputs
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = compute_loss(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    train_accuracy.update_state(labels, predictions)
    return loss


@tf.function
def distributed_train_step(dataset_inputs):
    per_replica_losses = strategy.run(train_step, args=(dataset_inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


for epoch in range(EPOCHS):
    total_loss, batches = 0.0, 0
    for batch in train_dist_dataset:
        total_loss += distributed_train_step(batch)
        batches += 1
    print(f"epoch {epoch + 1}: loss {float(total_loss) / batches:.4f}, accuracy {float(train_accuracy.result()):.4f}")
    train_accuracy.reset_state()

checkpoint.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
print("checkpoint written")
