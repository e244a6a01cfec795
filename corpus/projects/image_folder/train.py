"""Classify the images of `data/flowers/<class>/` under MirroredStrategy (the folder is not in the repository)."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
images = tf.keras.utils.image_dataset_from_directory("data/flowers", image_size=(32, 32), batch_size=8 * strategy.num_replicas_in_sync, seed=1)
classes = len(images.class_names)
with strategy.scope():
    model = tf.keras.Sequential(
        [tf.keras.Input(shape=(32, 32, 3)), tf.keras.layers.Rescaling(1 / 255), tf.keras.layers.Flatten(), tf.keras.layers.Dense(classes)]
    )
    model.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(images, epochs=1, verbose=0)
