"""MNIST from TensorFlow Datasets under MirroredStrategy, sized from the dataset's info."""

import tensorflow as tf
import tensorflow_datasets as tfds

strategy = tf.distribute.MirroredStrategy()
(train, test), info = tfds.load("mnist", split=["train", "test"], as_supervised=True, with_info=True)
batch_size = 32 * strategy.num_replicas_in_sync
steps_per_epoch = info.splits["train"].num_examples // batch_size
classes = info.features["label"].num_classes


def scale(image, label):
    return tf.cast(image, tf.float32) / 255.0, label


train = train.map(scale).shuffle(1024, seed=1).batch(batch_size)
test = test.map(scale).batch(batch_size)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(28, 28, 1)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(classes)])
    model.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train, epochs=1, steps_per_epoch=steps_per_epoch, verbose=0)
model.evaluate(test, verbose=0)
