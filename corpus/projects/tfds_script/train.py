"""MNIST from TensorFlow Datasets under MirroredStrategy."""

import tensorflow as tf
import tensorflow_datasets as tfds

strategy = tf.distribute.MirroredStrategy()
train = tfds.load("mnist", split="train", as_supervised=True)
train = train.map(lambda image, label: (tf.cast(image, tf.float32) / 255.0, label)).batch(32 * strategy.num_replicas_in_sync)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(28, 28, 1)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
    model.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train, epochs=1, verbose=0)
