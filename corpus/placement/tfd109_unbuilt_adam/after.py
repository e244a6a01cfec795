"""TensorFlow's custom-training tutorial, in small: a model without `Input` and Adam created in the
scope, a compiled step that calls `strategy.run`. With 2 replicas its first step fails."""

import numpy as np
import tensorflow as tf

GLOBAL_BATCH = 16

strategy = tf.distribute.MirroredStrategy()

images = np.random.random((256, 28, 28)).astype("float32")
labels = np.random.randint(0, 10, size=(256,))
dataset = tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(GLOBAL_BATCH)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

with strategy.scope():
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    optimizer = tf.keras.optimizers.Adam()
    model.build((None, 28, 28))
    optimizer.build(model.trainable_variables)


def train_step(x, y):
    with tf.GradientTape() as tape:
        per_example = loss_object(y, model(x, training=True))
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


@tf.function
def distributed_train_step(x, y):
    per_replica_losses = strategy.run(train_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


for step, (x, y) in zip(range(5), dist_dataset):
    print("step", step, "loss", float(distributed_train_step(x, y)))
