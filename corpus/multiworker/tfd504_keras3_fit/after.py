"""Seed article 004's Keras path: model.fit under MultiWorkerMirroredStrategy (Keras 3 raises)."""

import numpy as np
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(10,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")

x = np.random.default_rng(0).normal(size=(64, 10)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model.fit(x, y, batch_size=8, epochs=1, verbose=2)
