"""Keras `fit` under MultiWorkerMirroredStrategy with tf-keras (Keras 2).

Keras 3's `fit` raises under MultiWorkerMirroredStrategy on TensorFlow 2.21, tf-keras trains:
`TF_USE_LEGACY_KERAS=1` must be set before TensorFlow is imported. Synthetic data.
"""

import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
GLOBAL_BATCH_SIZE = 16 * strategy.num_replicas_in_sync

rng = np.random.default_rng(5)
features = rng.random((512, 10), dtype=np.float32)
labels = rng.integers(0, 2, 512).astype(np.int64)
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(GLOBAL_BATCH_SIZE)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(10,)), tf.keras.layers.Dense(2)])
    model.compile(
        optimizer=tf.keras.optimizers.Adam(1e-3),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )

model.fit(dataset, epochs=2, verbose=0)
print("keras:", tf.keras.__name__, "trained on worker", strategy.cluster_resolver.task_id)
