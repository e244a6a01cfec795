"""Probe for TFD112: a `MirroredStrategy` given a literal device list longer than the machine's devices.

The CPU is split into 2 logical devices; each case builds a `MirroredStrategy` and prints its
replica count, where each replica's computation ran and where a variable made in its scope
lives. No case raises: listed devices that do not exist are silently folded onto `CPU:0`.

    python benchmarks/probe_hard_coded_device_list.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-26:

    no list (control): 2 replicas; replicas ran on ['CPU:0', 'CPU:1']; variable copies on ['CPU:0', 'CPU:1']
    2 CPUs listed, 2 exist (control): 2 replicas; replicas ran on ['CPU:0', 'CPU:1']; variable copies on ['CPU:0', 'CPU:1']
    4 CPUs listed, 2 exist: 4 replicas; replicas ran on ['CPU:0', 'CPU:1', 'CPU:0', 'CPU:0']; variable copies on ['CPU:0', 'CPU:1']
    2 GPUs listed, none exist: 2 replicas; replicas ran on ['CPU:0', 'CPU:0']; variable copies on ['CPU:0']
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import tensorflow as tf  # noqa: E402

CASES = {
    "no list (control)": None,
    "2 CPUs listed, 2 exist (control)": ["/cpu:0", "/cpu:1"],
    "4 CPUs listed, 2 exist": ["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"],
    "2 GPUs listed, none exist": ["/gpu:0", "/gpu:1"],
}


def short(device: str) -> str:
    """``/job:localhost/replica:0/task:0/device:CPU:1`` -> ``CPU:1``."""
    return device.rsplit("device:", 1)[-1]


def main() -> None:
    """Every case in this process (the strategy does not change the runtime's devices)."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    for label, devices in CASES.items():
        strategy = tf.distribute.MirroredStrategy(devices) if devices else tf.distribute.MirroredStrategy()
        ran = strategy.experimental_local_results(strategy.run(lambda: tf.identity(1.0)))
        with strategy.scope():
            variable = tf.Variable(1.0)
        placed = sorted({short(v.device) for v in strategy.experimental_local_results(variable)})
        print(
            f"{label}: {strategy.num_replicas_in_sync} replicas; replicas ran on "
            f"{[short(t.device) for t in ran]}; variable copies on {placed}",
            flush=True,
        )


if __name__ == "__main__":
    main()
