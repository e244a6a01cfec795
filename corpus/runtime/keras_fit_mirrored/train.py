"""Keras `compile`/`fit` under MirroredStrategy, shaped like TensorFlow's Keras distributed tutorial.

The model is created and compiled in the scope, the batch size is derived from the replica count,
and the data is synthetic.
"""

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
BATCH_SIZE = 16 * strategy.num_replicas_in_sync
print("replicas:", strategy.num_replicas_in_sync)

rng = np.random.default_rng(11)
features = rng.random((512, 20), dtype=np.float32)
targets = rng.integers(0, 3, 512).astype(np.int64)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(512, seed=5).batch(BATCH_SIZE)

with strategy.scope():
    model = tf.keras.Sequential(
        [tf.keras.Input(shape=(20,)), tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(3)]
    )
    model.compile(
        optimizer=tf.keras.optimizers.Adam(1e-3),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )

history = model.fit(dataset, epochs=2, verbose=0)
print("final loss:", history.history["loss"][-1])
