"""MNIST with Keras `fit` under MultiWorkerMirroredStrategy (TensorFlow 2.15, Keras 2)."""

import json
import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
(x, y), _ = tf.keras.datasets.mnist.load_data()
x = x[:2048].reshape(-1, 784).astype("float32") / 255.0
dataset = tf.data.Dataset.from_tensor_slices((x, y[:2048])).batch(32 * strategy.num_replicas_in_sync)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(784,)), tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(10)])
    model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(dataset, epochs=1, verbose=0)

task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
is_chief = task.get("index", 0) == 0
# Every worker saves (the save is collective); only the chief keeps its copy at the real path.
path = "model/weights.h5" if is_chief else f"model/worker-{task.get('index')}/weights.h5"
os.makedirs(os.path.dirname(path), exist_ok=True)
model.save_weights(path)
