"""A model built under one MirroredStrategy, then compiled and trained under a second one."""

import numpy as np
import tensorflow as tf

x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], dtype="float32")
y = np.array([[1.0], [2.0], [3.0], [4.0]], dtype="float32")

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])

# Later in the script, a second strategy "for training".
train_strategy = tf.distribute.MirroredStrategy()
with train_strategy.scope():
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, batch_size=4, epochs=2, verbose=2)
