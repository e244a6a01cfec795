"""A tf-keras model whose overridden train_step is decorated with tf.function, trained by fit under a strategy."""

import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf


class Regressor(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def call(self, inputs):
        return self.dense(inputs)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.compiled_loss(y, self(x, training=True))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


x = np.random.default_rng(0).normal(size=(64, 2)).astype("float32")
y = x.sum(axis=1, keepdims=True)

strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = Regressor()
    model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, batch_size=8, epochs=1, verbose=2)
