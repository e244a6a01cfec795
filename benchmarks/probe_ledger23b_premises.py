"""Premises of ledger23b's recall notes (benchmarks/WILD.md, "ledger23b (blind)").

Three facts the blind round's write-up rests on, measured on TensorFlow 2.21:

- gathered loss: a `tf.function` step opens a `GradientTape`, runs the forward pass with
  `strategy.run`, sums the replicas' outputs with `strategy.reduce(SUM, ..., axis=None)`,
  computes the loss in cross-replica context, takes `tape.gradient` there and hands the
  gradients to `optimizer.apply_gradients` through a second `strategy.run`. Does any gradient
  reach the model's MirroredVariables? (Two-replica MirroredStrategy on two logical CPUs, once
  under Keras 3 and once under tf-keras, each in its own process.)
- a misspelt keyword: `MultiWorkerMirroredStrategy(communications_options=...)` (an extra "s").
- thread settings after device listing: `tf.config.threading.set_inter_op_parallelism_threads`
  after `device_lib.list_local_devices()` and `tf.config.list_physical_devices()` but before
  any op, against the same call after one op ran.

    python benchmarks/probe_ledger23b_premises.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-28, ledger23b):

    keras 3 | gathered loss, tape.gradient in cross-replica context: ValueError: No gradients provided for any variable.
    tf-keras | gathered loss, tape.gradient in cross-replica context: ValueError: No gradients provided for any variable
    misspelt communication_options: TypeError: unexpected keyword argument 'communications_options'
    threads set after device listing, before any op: set (inter 1, intra 4)
    threads set after one op: RuntimeError: Inter op parallelism cannot be modified after initialization.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

ROWS = 4


def gathered_loss_case() -> str:
    """Run the gather-then-differentiate step once; say whether it trained or what it raised."""
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    features = np.random.default_rng(0).normal(size=(ROWS, 3)).astype("float32")
    with strategy.scope():
        model = tf.keras.Sequential(
            [tf.keras.Input((3,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")]
        )
        optimizer = tf.keras.optimizers.SGD(0.1)
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors(features))
    per_replica_rows = ROWS // strategy.num_replicas_in_sync

    def forward(batch: tf.Tensor) -> tf.Tensor:
        # Each replica writes its outputs into its own slot, so that a SUM gathers all of them.
        context = tf.distribute.get_replica_context()
        return tf.scatter_nd(
            [[context.replica_id_in_sync_group]],
            [model(batch)],
            [context.num_replicas_in_sync, per_replica_rows, 1],
        )

    def apply(gradients: list[tf.Tensor]) -> None:
        optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))

    @tf.function
    def step(batch: tf.Tensor) -> None:
        with tf.GradientTape() as tape:
            gathered = strategy.reduce("SUM", strategy.run(forward, args=(batch,)), axis=None)
            loss = tf.reduce_sum(tf.square(gathered)) / ROWS
        strategy.run(apply, args=(tape.gradient(loss, model.trainable_variables),))

    try:
        for batch in dataset:
            step(batch)
    except Exception as error:  # noqa: BLE001 - the probe reports whatever TensorFlow raises
        last = [line.strip() for line in str(error).splitlines() if "Error" in line or "No gradients" in line]
        text = (last[-1] if last else str(error)).removeprefix("ValueError: ")
        # tf-keras appends the variables after ": ("; the first clause is the finding.
        return f"{type(error).__name__}: {text.split(': (')[0]}"
    kernel = [np.round(v.numpy().ravel(), 4).tolist() for v in model.trainable_variables[0].values]
    return f"trained; kernel per replica {kernel}"


def misspelt_keyword_case() -> str:
    """Construct MultiWorkerMirroredStrategy with `communications_options` (one letter too many)."""
    import tensorflow as tf

    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING
    )
    try:
        tf.distribute.MultiWorkerMirroredStrategy(communications_options=options)  # type: ignore[call-arg]
    except TypeError as error:
        # The message starts with the class's own name; its tail says which keyword was refused.
        return f"TypeError: {str(error).split('got an ')[-1]}"
    return "accepted"


def thread_settings_case() -> list[str]:
    """Set the thread pools after listing devices, then again after one op."""
    import tensorflow as tf
    from tensorflow.python.client import device_lib

    device_lib.list_local_devices()
    tf.config.list_physical_devices()
    results = []
    try:
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.threading.set_intra_op_parallelism_threads(4)
        inter = tf.config.threading.get_inter_op_parallelism_threads()
        intra = tf.config.threading.get_intra_op_parallelism_threads()
        results.append(f"threads set after device listing, before any op: set (inter {inter}, intra {intra})")
    except RuntimeError as error:
        results.append(f"threads set after device listing, before any op: RuntimeError: {error}")
    _ = tf.constant(1.0) + 1.0
    try:
        tf.config.threading.set_inter_op_parallelism_threads(2)
        results.append("threads set after one op: set")
    except RuntimeError as error:
        results.append(f"threads set after one op: RuntimeError: {error}")
    return results


def main() -> None:
    """Run each case in a fresh process (device and Keras settings are fixed per process)."""
    if len(sys.argv) > 1:
        case = sys.argv[1]
        if case == "gathered":
            print(gathered_loss_case())
        elif case == "keyword":
            print(f"misspelt communication_options: {misspelt_keyword_case()}")
        else:
            print("\n".join(thread_settings_case()))
        return
    for flavour, legacy in (("keras 3", "0"), ("tf-keras", "1")):
        env = {**os.environ, "TF_USE_LEGACY_KERAS": legacy, "TF_CPP_MIN_LOG_LEVEL": "3"}
        out = subprocess.run(
            [sys.executable, __file__, "gathered"], env=env, capture_output=True, text=True, check=False
        )
        lines = out.stdout.strip().splitlines() or [out.stderr.strip().splitlines()[-1]]
        print(f"{flavour} | gathered loss, tape.gradient in cross-replica context: {lines[-1]}")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    for case in ("keyword", "threads"):
        out = subprocess.run([sys.executable, __file__, case], env=env, capture_output=True, text=True, check=False)
        print(out.stdout.strip())


if __name__ == "__main__":
    main()
