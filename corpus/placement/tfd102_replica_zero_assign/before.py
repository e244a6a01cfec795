"""Seed article 001: only replica 0 loads the initial value into a mirrored variable."""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def initialize_var(var):
    if tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
        var.assign(tf.constant([5.0, 7.0]))


with strategy.scope():
    mirrored_var = tf.Variable(tf.zeros([2]))


@tf.function
def initialize():
    strategy.run(initialize_var, args=(mirrored_var,))


initialize()
print("copies:", [v.numpy().tolist() for v in strategy.experimental_local_results(mirrored_var)])
