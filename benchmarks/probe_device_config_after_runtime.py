"""Probe for TFD111: device configuration after the TensorFlow runtime started.

Each case runs in a fresh process (the runtime is started once per process): something that
starts the runtime, then `tf.config.set_logical_device_configuration` splitting the CPU in 2, then
`MirroredStrategy()`; the case prints what the configuration call did and how many replicas the
strategy has. Controls: the configuration first; the same late call inside the TensorFlow GPU
guide's `try: ... except RuntimeError as e: print(e)`; `set_memory_growth` (CPU: it raises
ValueError whatever the order, so the order cannot be measured here).

    python benchmarks/probe_device_config_after_runtime.py

Output on TensorFlow 2.21 (Keras 3.15.1), 2026-11-26:

    configuration first: configured; MirroredStrategy has 2 replica(s)
    after MirroredStrategy(): RuntimeError: Virtual devices cannot be modified after being initialized; MirroredStrategy has 1 replica(s)
    after tf.constant: RuntimeError: Virtual devices cannot be modified after being initialized; MirroredStrategy has 1 replica(s)
    after list_logical_devices: RuntimeError: Virtual devices cannot be modified after being initialized; MirroredStrategy has 1 replica(s)
    after a Keras Sequential with Input: RuntimeError: Virtual devices cannot be modified after being initialized; MirroredStrategy has 1 replica(s)
    after list_physical_devices (control): configured; MirroredStrategy has 2 replica(s)
    after MirroredStrategy(), in the guide's try/except: caught and printed: Virtual devices cannot be modified after being initialized; MirroredStrategy has 1 replica(s)
    set_memory_growth on CPU, first: ValueError: Cannot set memory growth on non-GPU and non-Pluggable devices; MirroredStrategy has 1 replica(s)
"""

from __future__ import annotations

import os
import subprocess
import sys

CASES = {
    "configuration first": "pass",
    "after MirroredStrategy()": "tf.distribute.MirroredStrategy()",
    "after tf.constant": "tf.constant(1.0)",
    "after list_logical_devices": "tf.config.list_logical_devices()",
    "after a Keras Sequential with Input": "tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])",
    "after list_physical_devices (control)": "tf.config.list_physical_devices()",
    "after MirroredStrategy(), in the guide's try/except": "tf.distribute.MirroredStrategy()",
    "set_memory_growth on CPU, first": "pass",
}


def run_case(label: str) -> None:
    """One case, in this process."""
    import tensorflow as tf

    exec(CASES[label], {"tf": tf})  # what runs before the configuration
    cpu = tf.config.list_physical_devices("CPU")[0]
    try:
        if label.startswith("set_memory_growth"):
            tf.config.experimental.set_memory_growth(cpu, True)
        else:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
        configured = "configured"
    except (RuntimeError, ValueError) as exc:
        if "try/except" in label:
            configured = f"caught and printed: {exc}"
        else:
            configured = f"{type(exc).__name__}: {exc}"
    strategy = tf.distribute.MirroredStrategy()
    print(f"{label}: {configured}; MirroredStrategy has {strategy.num_replicas_in_sync} replica(s)", flush=True)


def main() -> None:
    """Every case in its own process."""
    if len(sys.argv) > 1:
        run_case(sys.argv[1])
        return
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for label in CASES:
        subprocess.run([sys.executable, __file__, label], env=env, check=False, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
