"""Parameter-server training of a Keras 3 model without `fit`: a ClusterCoordinator schedules
the step on the workers, each reading its own copy of the dataset
(benchmarks/probe_keras3_fit_parameter_server.py measured this loop under both Kerases)."""

import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
strategy = tf.distribute.ParameterServerStrategy(resolver)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)
    optimizer.build(model.trainable_variables)


def dataset_fn():
    features = tf.random.stateless_uniform((64, 4), seed=(1, 2))
    targets = tf.reduce_sum(features, axis=1, keepdims=True)
    return tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(64).repeat().batch(16)


per_worker = iter(coordinator.create_per_worker_dataset(dataset_fn))


@tf.function
def train_step(iterator):
    def replica_step(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(model(x) - y), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=16)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    x, y = next(iterator)
    return strategy.run(replica_step, args=(x, y))


for _ in range(16):
    coordinator.schedule(train_step, args=(per_worker,))
coordinator.join()
