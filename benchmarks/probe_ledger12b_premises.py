"""Probe (TF 2.21) for ledger12b's verdicts; each part runs in its own process.

1. Creating a ``tf.compat.v1.Session`` in TF 2 eager code does not initialise the eager context, so a later
   ``tf.config`` device call does not raise ``RuntimeError`` (TFD111 class).
2. Under MirroredStrategy (two logical CPUs), a step counter and a learning-rate variable made outside
   ``strategy.scope()`` can be read inside ``strategy.run`` and incremented in cross-replica code
   (TFD101 class).
3. A replica step that MEAN-reduces its gradients by hand (``merge_call``) and then calls
   ``apply_gradients``: Keras 3 SGD takes the one-device step; tf-keras raises in its own all-reduce
   (TFD303 class: the "N times too large" premise does not describe this step).
"""

import os
import subprocess
import sys


def _two_cpus() -> None:
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)


def part_session() -> None:
    import tensorflow as tf
    from tensorflow.python.eager import context

    config = tf.compat.v1.ConfigProto()
    config.gpu_options.allow_growth = True
    tf.compat.v1.Session(config=config)
    print("eager context initialised by Session:", context.context()._context_handle is not None)
    _two_cpus()
    print("device configuration after Session: no RuntimeError")


def part_outside_scope() -> None:
    _two_cpus()
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    step = tf.Variable(0, trainable=False, dtype=tf.int32)
    lr = tf.Variable(0.5, trainable=False, dtype=tf.float32)

    @tf.function
    def train_step():
        def replica_fn():
            return tf.cast(step % 2, tf.float32) + lr

        return strategy.reduce("SUM", strategy.run(replica_fn), axis=None)

    for _ in range(3):
        step.assign_add(1)
        print("step", int(step.numpy()), "sum over replicas", float(train_step().numpy()))


def part_mean_then_apply() -> None:
    _two_cpus()
    import tensorflow as tf

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        w = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD(learning_rate=0.1)

    def step(x):  # no annotations: autograph converts it
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(w * x))
        grads = tape.gradient(loss, [w])
        ctx = tf.distribute.get_replica_context()
        mean_grads = ctx.merge_call(lambda s, v: s.reduce("MEAN", v, axis=None), args=(grads,))
        opt.apply_gradients(zip(mean_grads, [w], strict=True))
        return loss

    @tf.function
    def distributed(x):
        return strategy.run(step, args=(x,))

    data = tf.data.Dataset.from_tensor_slices([1.0, 1.0, 1.0, 1.0]).batch(4)
    try:
        for x in strategy.experimental_distribute_dataset(data):
            distributed(x)
        print(type(opt).__module__, "w after one step:", round(float(w.numpy()), 4), "(one device: 0.8)")
    except Exception as error:  # the tf-keras failure is the measurement
        print(type(opt).__module__, "raised", type(error).__name__, str(error).splitlines()[-1][:80])


PARTS = {"session": part_session, "outside_scope": part_outside_scope, "mean_then_apply": part_mean_then_apply}

if __name__ == "__main__":
    if len(sys.argv) > 1:
        PARTS[sys.argv[1]]()
    else:
        runs = [
            ("session", {}),
            ("outside_scope", {}),
            ("mean_then_apply", {}),
            ("mean_then_apply", {"TF_USE_LEGACY_KERAS": "1"}),
        ]
        for name, extra in runs:
            env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **extra}
            print(f"== {name} {extra}", flush=True)
            subprocess.run([sys.executable, __file__, name], env=env, check=False)
