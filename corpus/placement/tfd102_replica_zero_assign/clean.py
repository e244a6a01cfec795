"""The same training task written correctly for tf.distribute (distfix reports nothing)."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def initialize_var(var):
    var.assign(tf.constant([5.0, 7.0]))


with strategy.scope():
    mirrored_var = tf.Variable(tf.zeros([2]))


@tf.function
def initialize():
    strategy.run(initialize_var, args=(mirrored_var,))


initialize()
print("copies:", [v.numpy().tolist() for v in strategy.experimental_local_results(mirrored_var)])
