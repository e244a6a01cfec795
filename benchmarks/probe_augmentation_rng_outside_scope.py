"""Probe for a TFD101 premise (ledger9a): random augmentation layers made outside the strategy scope.

A `Sequential` of random augmentation layers only (rotation, translation, flip, contrast, zoom,
crop: no weights) and one of fixed preprocessing layers (`Rescaling`, `Resizing`, `CenterCrop`: no
weights) are made outside `MirroredStrategy.scope()` and first called eagerly there (a preview
plot, as notebooks do), then used inside a model built and compiled in the scope (TFD101 does not
report such a `Sequential`). On 2 logical
CPU devices the probe prints:

- the state the augmentation layers hold after the eager call (Keras 3: a seed variable per layer,
  in `variables`; tf-keras: none in `variables`, but a `tf.random.Generator` whose state variable
  sits on the host, outside any strategy);
- whether `fit` under the strategy runs, and its losses.

Runs once under Keras 3 and once under tf-keras (`TF_USE_LEGACY_KERAS=1`), each in its own process.

    python benchmarks/probe_augmentation_rng_outside_scope.py
"""

from __future__ import annotations

from keras_flavours import run_under_both_kerases

CHILD = r"""
import os
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
if os.environ.get("TF_USE_LEGACY_KERAS") == "1":
    import tf_keras as keras
else:
    import keras
layers = keras.layers
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

augment = keras.Sequential(
    [
        layers.RandomRotation(0.15),
        layers.RandomTranslation(0.1, 0.1),
        layers.RandomFlip(),
        layers.RandomContrast(0.1),
        layers.RandomZoom(0.1),
        layers.RandomCrop(32, 32),
    ]
)
prepare = keras.Sequential([layers.Rescaling(1 / 255), layers.Resizing(36, 36), layers.CenterCrop(32, 32)])
augment(tf.random.uniform((1, 32, 32, 3)) * 255)  # first call: eager, outside the scope
prepare(tf.random.uniform((1, 32, 32, 3)) * 255)
print("keras", keras.__version__)
print("variables of the augmentation layers:", [(v.name, type(v).__name__) for v in augment.variables])
print("weights of the augmentation layers:", len(augment.weights), "of the preprocessing layers:", len(prepare.weights))
flip_rng = getattr(augment.layers[2], "_random_generator", None)
generator = getattr(flip_rng, "_generator", None)
if generator is not None:
    print("RandomFlip's tf.random.Generator state:", type(generator.state).__name__, "on", generator.state.device)

with strategy.scope():
    inputs = layers.Input((32, 32, 3))
    outputs = layers.Dense(3, activation="softmax")(layers.GlobalAveragePooling2D()(augment(prepare(inputs))))
    model = keras.Model(inputs, outputs)
    model.compile("adam", "sparse_categorical_crossentropy")
images = tf.random.uniform((64, 32, 32, 3)) * 255
labels = tf.random.uniform((64,), 0, 3, tf.int32)
try:
    history = model.fit(tf.data.Dataset.from_tensor_slices((images, labels)).batch(16), epochs=2, verbose=0)
    print("fit under MirroredStrategy ran; losses", [round(loss, 3) for loss in history.history["loss"]])
except Exception as error:  # the premise under test: does it raise?
    print("fit under MirroredStrategy raised", type(error).__name__, str(error)[:200])
"""


def main() -> None:
    run_under_both_kerases(CHILD)


if __name__ == "__main__":
    main()
