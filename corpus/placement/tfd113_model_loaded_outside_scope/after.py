"""Fine-tuning a saved model on every local device. The model is loaded before the strategy's
scope is entered, so its variables are plain single-device variables, and training it under
the strategy fails."""

import os
import tempfile

import tensorflow as tf

features = tf.random.stateless_uniform((64, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)

# A model saved by an earlier run (made here so the example is self-contained).
path = os.path.join(tempfile.mkdtemp(), "pretrained.keras")
pretrained = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
pretrained.compile(optimizer="sgd", loss="mse")
pretrained.save(path)

strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 8 * strategy.num_replicas_in_sync
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)

with strategy.scope():
    model = tf.keras.models.load_model(path)
with strategy.scope():
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")

model.fit(dataset, epochs=2)
