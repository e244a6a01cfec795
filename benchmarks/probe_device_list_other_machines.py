"""Probe for TFD112's policy: one hard-coded device list run on machines with more or fewer devices.

Each case is its own process (a process's logical devices are fixed once the runtime starts): the
CPU is split into the case's number of logical devices (the "machine"), a `MirroredStrategy` is
given the listed devices, where its replicas run is read from an eager `run`, and five steps of a
custom loop in a `tf.function` train one weight on the same global batch (the loss averaged over
the global batch, the gradient all-reduced with SUM across replicas). A case whose process has not
finished in 150 s is reported as hung (its CPU time stays near the import's: it waits, it does not
compute). Plain TensorFlow, no Keras.

    python benchmarks/probe_device_list_other_machines.py

Output on TensorFlow 2.21, 2026-11-27 (a 2-core machine under load):

    4 devices, 4 listed: 4 replicas on ['CPU:0', 'CPU:1', 'CPU:2', 'CPU:3']; trained weight 2.058
    4 devices, 2 listed: 2 replicas on ['CPU:0', 'CPU:1']; trained weight 2.058
    2 devices, 4 listed: 4 replicas on ['CPU:0', 'CPU:1', 'CPU:0', 'CPU:0']; no step finished: hung
    1 device, 2 GPUs listed (no GPU): 2 replicas on ['CPU:0', 'CPU:0']; no step finished: hung
    1 device, a CPU and a GPU listed (no GPU): 2 replicas on ['CPU:0', 'CPU:0']; trained weight 2.058
    1 device, 2 GPUs listed (no GPU), a step without all-reduce: 2 replicas on ['CPU:0', 'CPU:0']; ran

The last three cases, 2026-11-28 (noise36; each run alone with `--case`, the same 150 s wait):

    1 device, 2 CPUs listed (no logical devices): 2 replicas on ['CPU:0', 'CPU:0']; no step finished: hung
    1 device, 2 CPUs listed (no logical devices), a step without all-reduce: 2 replicas on ['CPU:0', 'CPU:0']; ran
    2 devices, one CPU listed twice: AssertionError: No duplicates allowed in `devices` argument

So the list fixes the replica count on every machine. On the machine it names (or a larger one,
whose other devices stay idle) training gives the same weight. On a machine with fewer devices,
the replicas of listed devices that do not exist wait for each other at the first all-reduce and
the program hangs, nothing raised or logged (the same with Keras 3 `fit`, checked by hand while
writing this probe: 4 CPUs listed on 2, and 2 GPUs listed on a host without any); a step with no
cross-replica reduction runs. A CPU listed beside a GPU that does not exist trained (both replicas
on `CPU:0`). A GPU host with fewer GPUs than listed was not measured (no GPU here). A unit test's
fixture `["/cpu:0", "/cpu:1"]` in a process that made no logical CPUs hangs the same way (its
suite must make them for the test to pass), and a device listed twice is refused when the strategy
is built.
"""

from __future__ import annotations

import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

CPUS4 = ["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"]
GPUS2 = ["/gpu:0", "/gpu:1"]
# label: (logical CPUs of the "machine", listed devices, whether the step all-reduces)
CASES = {
    "4 devices, 4 listed": (4, CPUS4, True),
    "4 devices, 2 listed": (4, CPUS4[:2], True),
    "2 devices, 4 listed": (2, CPUS4, True),
    "1 device, 2 GPUs listed (no GPU)": (1, GPUS2, True),
    "1 device, a CPU and a GPU listed (no GPU)": (1, ["/cpu:0", "/gpu:0"], True),
    "1 device, 2 GPUs listed (no GPU), a step without all-reduce": (1, GPUS2, False),
    # A unit test's fixture, `MirroredStrategy(["/cpu:0", "/cpu:1"])`, in a process that made no
    # logical devices: the one physical CPU is the whole machine.
    "1 device, 2 CPUs listed (no logical devices)": (1, CPUS4[:2], True),
    "1 device, 2 CPUs listed (no logical devices), a step without all-reduce": (1, CPUS4[:2], False),
    "2 devices, one CPU listed twice": (2, ["/cpu:0", "/cpu:0"], True),
}
WAIT_SECONDS = 150


def short(device: str) -> str:
    """``/job:localhost/replica:0/task:0/device:CPU:1`` -> ``CPU:1``."""
    return device.rsplit("device:", 1)[-1]


def run_case(machine: int, devices: list[str], reduces: bool) -> None:
    """Build the machine and the strategy, print the placement line, then train and print the weight."""
    import tensorflow as tf

    if machine > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * machine)
    try:
        strategy = tf.distribute.MirroredStrategy(devices)
    except AssertionError as error:  # a device listed twice is refused when the strategy is built
        print(f"AssertionError: {str(error).split(':')[0]}", flush=True)
        return
    ran = strategy.experimental_local_results(strategy.run(lambda: tf.identity(1.0)))
    print(f"{strategy.num_replicas_in_sync} replicas on {[short(t.device) for t in ran]}", flush=True)
    global_batch = 8
    features = tf.range(1.0, 1.0 + global_batch * 5)
    data = tf.data.Dataset.from_tensor_slices((features, 2.0 * features)).batch(global_batch)
    with strategy.scope():
        weight = tf.Variable(0.0)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(tf.square(y - weight * x), global_batch_size=global_batch)
        grad = tape.gradient(loss, weight)
        if reduces:
            grad = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grad)
        return grad

    @tf.function
    def step(batch):
        return strategy.run(replica_step, args=batch)

    for batch in strategy.experimental_distribute_dataset(data):
        grads = strategy.experimental_local_results(step(batch))
        weight.assign_sub(0.0005 * grads[0])
    print(f"trained weight {weight.numpy():.3f}" if reduces else "ran", flush=True)


def main() -> None:
    """Each case in a fresh process (``--case LABEL``), printed in order."""
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_case(*CASES[sys.argv[2]])
        return
    for label in CASES:
        with subprocess.Popen(
            [sys.executable, __file__, "--case", label], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        ) as child:
            try:
                out, _ = child.communicate(timeout=WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                child.kill()
                out, _ = child.communicate()
                out += "no step finished: hung\n"
        print(f"{label}: {'; '.join(out.strip().splitlines())}", flush=True)


if __name__ == "__main__":
    main()
