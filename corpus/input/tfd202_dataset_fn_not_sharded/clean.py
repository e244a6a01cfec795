"""The same job written correctly for several workers (distfix reports nothing)."""

import tensorflow as tf

GLOBAL_BATCH = 4
strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)


def dataset_fn(input_context):
    batch = input_context.get_per_replica_batch_size(GLOBAL_BATCH)
    dataset = tf.data.Dataset.range(8).shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    return dataset.shuffle(8, seed=7).batch(batch)


dist_dataset = strategy.distribute_datasets_from_function(dataset_fn)


@tf.function
def train_step(batch):
    return strategy.run(lambda b: tf.reduce_sum(b), args=(batch,))


for batch in dist_dataset:
    print("batch", strategy.experimental_local_results(batch))
