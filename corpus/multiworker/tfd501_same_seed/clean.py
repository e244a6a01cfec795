"""The same job written correctly for several workers (distfix reports nothing)."""

import tensorflow as tf

tf.random.set_seed(42 + (tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id or 0))
strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)


def replica_fn(x):
    noise = tf.random.uniform(tf.shape(x))
    return x + noise


@tf.function
def step(x):
    return strategy.run(replica_fn, args=(x,))


print("noisy", strategy.experimental_local_results(step(tf.zeros([2]))))
