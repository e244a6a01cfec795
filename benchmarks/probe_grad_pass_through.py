"""Probe for TFD303: a loss divided inside `tf.grad_pass_through` keeps its gradient.

On 2 logical CPU devices under `MirroredStrategy`, each replica computes the mean loss
`reduce_mean(w * x)` of its half of the batch and the gradients are summed across replicas
(as `apply_gradients` does). Prints, for the loss as it is, divided by the replicas, and divided
inside `tf.grad_pass_through`, the per-replica loss values and the summed gradient. Plain
TensorFlow (no Keras), so it runs once.

    python benchmarks/probe_grad_pass_through.py
"""

from __future__ import annotations

import tensorflow as tf


def main() -> None:
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        w = tf.Variable(1.0)
    batch = tf.constant([1.0, 2.0, 3.0, 4.0])
    dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors(batch).unbatch().batch(4))
    inputs = next(iter(dist))
    replicas = strategy.num_replicas_in_sync
    variants = {
        "reduce_mean(w * x)": lambda mean: mean,
        "reduce_mean(w * x) / num_replicas": lambda mean: mean / replicas,
        "grad_pass_through(lambda t: t / num_replicas)(reduce_mean(w * x))": lambda mean: tf.grad_pass_through(
            lambda t: t / replicas
        )(mean),
    }
    for label, scale in variants.items():

        @tf.function
        def step(x, scale=scale):
            def replica_fn(x):
                with tf.GradientTape() as tape:
                    loss = scale(tf.reduce_mean(w * x))
                grad = tape.gradient(loss, w)
                summed = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grad)
                return loss, summed

            return strategy.run(replica_fn, args=(x,))

        loss, grad = step(inputs)
        values = [float(v) for v in strategy.experimental_local_results(loss)]
        print(f"{label}: replica loss values {values}, gradient summed over replicas {float(strategy.experimental_local_results(grad)[0])}")


if __name__ == "__main__":
    main()
