"""Mistake (TFD301): `train.py` that updates the weights by hand from each replica's own gradient (never aggregated)."""

import tensorflow as tf

GLOBAL_BATCH_SIZE = 32

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def dataset_fn(ctx):
    per_replica = ctx.get_per_replica_batch_size(GLOBAL_BATCH_SIZE)
    features = tf.random.stateless_uniform((1024, 4), seed=(1, 2))
    targets = tf.reduce_sum(features * [1.0, -2.0, 3.0, 0.5], axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices((features, targets))
    dataset = dataset.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    return dataset.shuffle(256, seed=17).batch(per_replica).repeat()


dist_dataset = strategy.distribute_datasets_from_function(dataset_fn)

with strategy.scope():
    w = tf.Variable(tf.zeros([4, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")


def train_step(inputs):
    x, y = inputs
    with tf.GradientTape() as tape:
        per_example_loss = tf.reduce_sum(tf.square(x @ w + b - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH_SIZE)
    grad_w, grad_b = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * grad_w)
    b.assign_sub(0.1 * grad_b)
    return loss


@tf.function
def distributed_train_step(inputs):
    per_replica_losses = strategy.run(train_step, args=(inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


iterator = iter(dist_dataset)
for step in range(40):
    loss = distributed_train_step(next(iterator))
print("w:", w.numpy().ravel().tolist(), "b:", float(b.numpy()[0]))
