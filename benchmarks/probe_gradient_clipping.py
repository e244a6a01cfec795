"""Probe for TFD304: clipping per-replica gradients before they are aggregated.

The shared toy problem of the ground truth (linear regression, global batch of 4 rows
``X=[[1,2],[3,4],[5,6],[7,8]]``, ``Y=[1,2,3,4]``, ``w0=ones``, SGD lr 0.01, the loss scaled to the
global batch with ``tf.nn.compute_average_loss``) runs one step on 2 logical CPU devices under
`MirroredStrategy` (replica 0 gets rows 0-1, replica 1 rows 2-3) with a clip threshold of 10
(the true gradient is [67, 80], norm 104.3; the replicas' parts are [8.5, 12] and [58.5, 68]).
Each variant prints ``w`` after the step; the reference clips the whole gradient on one device.
The table runs once under Keras 3 and once under tf-keras (`TF_USE_LEGACY_KERAS=1`), each in
its own process.

    python benchmarks/probe_gradient_clipping.py
"""

from __future__ import annotations

from keras_flavours import run_under_both_kerases

CLIP = 10.0

CHILD = r"""
import sys
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
keras = tf.keras
CLIP = float(sys.argv[1])
X = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
Y = tf.constant([1.0, 2.0, 3.0, 4.0])
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((X, Y)).batch(4))
batch = next(iter(dist))


def loss_of(w, x, y):
    per_example = tf.square(tf.linalg.matvec(x, w) - y)
    return tf.nn.compute_average_loss(per_example, global_batch_size=4)


def reference():
    w = tf.Variable([1.0, 1.0])
    with tf.GradientTape() as tape:
        loss = loss_of(w, X, Y)
    grads, norm = tf.clip_by_global_norm(tape.gradient(loss, [w]), CLIP)
    w.assign_sub(0.01 * grads[0])
    return w.numpy(), float(norm)


def run(variant, **optimizer_args):
    with strategy.scope():
        w = tf.Variable([1.0, 1.0])
        opt = keras.optimizers.SGD(0.01, **optimizer_args)
        opt.build([w])

    def replica_fn(x, y):
        with tf.GradientTape() as tape:
            loss = loss_of(w, x, y)
        grads = tape.gradient(loss, [w])
        ctx = tf.distribute.get_replica_context()
        if variant == "clip_by_global_norm per replica":
            grads, _ = tf.clip_by_global_norm(grads, CLIP)
        elif variant == "clip_by_norm per replica":
            grads = [tf.clip_by_norm(g, CLIP) for g in grads]
        elif variant == "all_reduce SUM, clip, divide by replicas":
            grads = ctx.all_reduce(tf.distribute.ReduceOp.SUM, grads)
            grads, _ = tf.clip_by_global_norm(grads, CLIP)
            grads = [g / strategy.num_replicas_in_sync for g in grads]
        elif variant == "all_reduce SUM, clip, skip_gradients_aggregation":
            grads = ctx.all_reduce(tf.distribute.ReduceOp.SUM, grads)
            grads, _ = tf.clip_by_global_norm(grads, CLIP)
            opt.apply_gradients(zip(grads, [w]), skip_gradients_aggregation=True)
            return
        opt.apply_gradients(zip(grads, [w]))

    @tf.function
    def step(x, y):
        strategy.run(replica_fn, args=(x, y))

    try:
        step(*batch)
        values = [[round(float(x), 5) for x in v.numpy()] for v in strategy.experimental_local_results(w)]
        print(f"{variant} {optimizer_args or ''}: replicas {values}")
    except Exception as exc:  # record what the variant raises
        print(f"{variant} {optimizer_args or ''}: raises {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")


w_ref, norm = reference()
print(f"reference (one device, clip the whole gradient): {[round(float(x), 5) for x in w_ref]} (gradient norm {norm:.2f})")
run("no clip")
run("clip_by_global_norm per replica")
run("clip_by_norm per replica")
run("optimizer global_clipnorm", global_clipnorm=CLIP)
run("optimizer clipnorm", clipnorm=CLIP)
run("all_reduce SUM, clip, divide by replicas")
run("all_reduce SUM, clip, skip_gradients_aggregation")
"""


def main() -> None:
    run_under_both_kerases(CHILD, str(CLIP))


if __name__ == "__main__":
    main()
