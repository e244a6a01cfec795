"""Parameter-server training with Keras `fit`, as TensorFlow's tutorial wrote it for Keras 2.
The coordinator reads the cluster from TF_CONFIG. Under Keras 3 (TensorFlow 2.16+) `fit` raises
`ValueError: To use this dataset, you need to pass this dataset to
ClusterCoordinator.create_per_worker_dataset.`"""

import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
strategy = tf.distribute.ParameterServerStrategy(resolver)

features = tf.random.stateless_uniform((64, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(64).repeat().batch(16)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", steps_per_execution=4)

model.fit(dataset, epochs=2, steps_per_epoch=8)
