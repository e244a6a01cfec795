"""Gradient accumulation that works under a strategy: the replica function only accumulates;
the compiled step decides on the step counter in cross-replica code, where a tensor condition
holds no synchronization point, and runs the apply function on every replica from there
(benchmarks/probe_sync_point_under_condition.py: the single-device weights on both replicas)."""

import tensorflow as tf

GLOBAL_BATCH = 8
ACCUMULATE = 2

strategy = tf.distribute.MirroredStrategy()

features = tf.random.stateless_uniform((64, 4), seed=(1, 2))
targets = tf.reduce_sum(features, axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.05)
    optimizer.build(model.trainable_variables)
    step = tf.Variable(0, trainable=False)
    accumulators = [
        tf.Variable(
            tf.zeros_like(v),
            trainable=False,
            synchronization=tf.VariableSynchronization.ON_READ,
            aggregation=tf.VariableAggregation.SUM,
        )
        for v in model.trainable_variables
    ]


def accumulate(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(x) - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    for accumulator, grad in zip(accumulators, tape.gradient(loss, model.trainable_variables)):
        accumulator.assign_add(grad)
    return loss


def apply_accumulated():
    optimizer.apply_gradients(zip([a / ACCUMULATE for a in accumulators], model.trainable_variables))
    for accumulator in accumulators:
        accumulator.assign(tf.zeros_like(accumulator))


@tf.function
def distributed_step(x, y):
    losses = strategy.run(accumulate, args=(x, y))
    step.assign_add(1)
    if step % ACCUMULATE == 0:
        strategy.run(apply_accumulated)
    return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in dist_dataset:
    print("loss", float(distributed_step(x, y)))
