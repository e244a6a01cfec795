"""Gradient accumulation in a custom loop: the replica function adds each step's gradients to
per-replica accumulators and applies them every ACCUMULATE steps, deciding on a `tf.Variable`
step counter. Inside the compiled step autograph turns that `if` into `tf.cond`, and the
optimizer's cross-replica aggregation (`merge_call`) cannot run in a branch of it: the first
step fails to trace with 2 replicas."""

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


def replica_step(x, y):
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(model(x) - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    for accumulator, grad in zip(accumulators, tape.gradient(loss, model.trainable_variables)):
        accumulator.assign_add(grad)
    if (step + 1) % ACCUMULATE == 0:
        optimizer.apply_gradients(zip([a / ACCUMULATE for a in accumulators], model.trainable_variables))
        for accumulator in accumulators:
            accumulator.assign(tf.zeros_like(accumulator))
    return loss


@tf.function
def distributed_step(x, y):
    losses = strategy.run(replica_step, args=(x, y))
    step.assign_add(1)
    return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


for x, y in dist_dataset:
    print("loss", float(distributed_step(x, y)))
