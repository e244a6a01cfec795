"""A Keras 2 ImageNet-style block written for several GPUs: synchronised batch normalisation from
`layers.experimental`. Under Keras 3 (TensorFlow 2.16+) building the model raises AttributeError."""

import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 8 * strategy.num_replicas_in_sync

with strategy.scope():
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(8, 8, 3)),
            tf.keras.layers.Conv2D(8, 3, padding="same"),
            tf.keras.layers.BatchNormalization(momentum=0.9, synchronized=True),
            tf.keras.layers.ReLU(),
            tf.keras.layers.GlobalAveragePooling2D(),
            tf.keras.layers.Dense(4),
        ]
    )
    model.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))

images = np.random.random((64, 8, 8, 3)).astype("float32")
labels = np.random.randint(0, 4, size=(64,))
model.fit(images, labels, batch_size=GLOBAL_BATCH, epochs=1, verbose=0)
print("trained")
