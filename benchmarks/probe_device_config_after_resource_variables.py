"""Probe for TFD111: does `tf.compat.v1.enable_resource_variables()` start the TensorFlow runtime
before a logical-device configuration?

Each case runs in a fresh process: the call, then four logical CPUs configured with
`tf.config.set_logical_device_configuration`, then the logical CPUs counted. "4 logical CPUs"
means the configuration took effect (the runtime had not started); a RuntimeError means the
call had started it. Controls: nothing before (4) and `tf.constant` before (fails). Run under
Keras 3 (default) and tf-keras (`TF_USE_LEGACY_KERAS=1`):

    python benchmarks/probe_device_config_after_resource_variables.py
    TF_USE_LEGACY_KERAS=1 python benchmarks/probe_device_config_after_resource_variables.py

Output on TensorFlow 2.21, 2026-11-27: kept in docs/probes.md ("Precision round 3").
"""

from __future__ import annotations

import os
import subprocess
import sys

CASES = {
    "nothing before (control)": "pass",
    "tf.constant (control)": "tf.constant(1.0)",
    "tf.compat.v1.enable_resource_variables()": "tf.compat.v1.enable_resource_variables()",
    "tf.compat.v1.enable_v2_behavior()": "tf.compat.v1.enable_v2_behavior()",
}


def run_case(label: str) -> None:
    """One case, in this process."""
    import tensorflow as tf

    exec(CASES[label], {"tf": tf})
    cpu = tf.config.list_physical_devices("CPU")[0]
    try:
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)
        outcome = f"{len(tf.config.list_logical_devices('CPU'))} logical CPUs"
    except RuntimeError as exc:
        outcome = f"RuntimeError: {str(exc).splitlines()[0]}"
    print(f"{label}: {outcome}", flush=True)


def main() -> None:
    """Every case in its own process (the runtime starts once per process)."""
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_case(sys.argv[2])
        return
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    for label in CASES:
        done = subprocess.run([sys.executable, __file__, "--case", label], env=env, capture_output=True, text=True, check=False)
        lines = [line for line in done.stdout.splitlines() if line.startswith(label)]
        print(lines[-1] if lines else f"{label}: crashed: {done.stderr.strip().splitlines()[-1:]}", flush=True)


if __name__ == "__main__":
    main()
