"""The TensorFlow GPU guide's memory-growth block, pasted below the strategy. On a GPU host the
strategy has already started the runtime, so `set_memory_growth` raises, and the guide's
`except RuntimeError` prints the message and goes on: the setting is silently ignored."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
print("replicas:", strategy.num_replicas_in_sync)

gpus = tf.config.list_physical_devices("GPU")
if gpus:
    try:
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
    except RuntimeError as e:
        print(e)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
