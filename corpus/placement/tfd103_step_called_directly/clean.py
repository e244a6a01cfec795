"""The same training task written correctly for tf.distribute (distfix reports nothing)."""

import tensorflow as tf

GLOBAL_BATCH = 4
strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.SGD(0.01)

    @tf.function
    def train_step(data, labels):
        with tf.GradientTape() as tape:
            per_example = tf.square(model(data) - labels)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    features = tf.random.stateless_normal((16, 2), seed=(1, 2))
    targets = tf.reduce_sum(features, axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(GLOBAL_BATCH)

    @tf.function
    def distributed_step(data, labels):
        per_replica = strategy.run(train_step, args=(data, labels))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    for data, labels in strategy.experimental_distribute_dataset(dataset):
        loss = distributed_step(data, labels)
        print(f"Loss {float(loss)}")
