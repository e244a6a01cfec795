"""Premises of the ledger22a verdicts (benchmarks/WILD.md): whether turning on numeric checks or
choosing a mixed-precision policy starts the TensorFlow runtime.

TFD111 and TFD105 count the statement before a device configuration or a MultiWorkerMirroredStrategy
as a start of the runtime when it calls TensorFlow and is not on the measured configuration list
(fixer/tf/runtime_start.py). Two held-out trees do this before their device setup: Director's agent
wrapper calls `tf.debugging.enable_check_numerics()` under a flag, then splits or grows its GPUs and
may build a MultiWorkerMirroredStrategy; an RNN-T trainer (TF 2.2) builds its mixed-float16 policy
with the TF 2.1-2.3 names `mixed_precision.experimental.Policy` / `set_policy`, whose later names
(`Policy`, `set_global_policy`) the list already holds. Each case runs in a fresh process: the call,
then either a split of the CPU into two logical devices (the check behind `Virtual devices cannot
be modified after being initialized`, the same one `set_memory_growth` makes) or a
MultiWorkerMirroredStrategy under a one-worker TF_CONFIG (`Collective ops must be configured at
program startup` if the runtime had started). A first `tf.constant` is the control.

    python benchmarks/probe_ledger22a_premises.py

Output on TensorFlow 2.21 (2026-11-28, ledger22a), CPU:

    keras 3 | tf.constant, then split the CPU: RuntimeError: Virtual devices cannot be modified after being initialized
    keras 3 | enable_check_numerics, then split the CPU: configured (2 logical CPUs)
    keras 3 | enable_check_numerics, then MultiWorkerMirroredStrategy: created (1 replica)
    keras 3 | Policy('mixed_float16') + set_global_policy, then split the CPU: configured (2 logical CPUs)
    keras 3 | mixed_precision.experimental present: False
    tf-keras | tf.constant, then split the CPU: RuntimeError: Virtual devices cannot be modified after being initialized
    tf-keras | enable_check_numerics, then split the CPU: configured (2 logical CPUs)
    tf-keras | enable_check_numerics, then MultiWorkerMirroredStrategy: created (1 replica)
    tf-keras | Policy('mixed_float16') + set_global_policy, then split the CPU: configured (2 logical CPUs)
    tf-keras | mixed_precision.experimental present: False

Neither call starts the runtime: a device configuration or a MultiWorkerMirroredStrategy after it
works. The experimental policy names are gone on 2.21 (TF 2.2 is the tree's stated version); their
successors are configuration, as the rule's list says.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from probing import free_ports, main_per_keras

SPLIT = """
cpu = tf.config.list_physical_devices("CPU")[0]
try:
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    print(f"configured ({len(tf.config.list_logical_devices('CPU'))} logical CPUs)")
except RuntimeError as exc:
    print(f"RuntimeError: {str(exc).splitlines()[0]}")
"""

MWMS = """
try:
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    print(f"created ({strategy.num_replicas_in_sync} replica)")
except Exception as exc:
    print(f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
"""

POLICY = """
policy = tf.keras.mixed_precision.Policy("mixed_float16")
tf.keras.mixed_precision.set_global_policy(policy)
"""

CASES = (
    ("tf.constant, then split the CPU", "tf.constant(1.0)\n" + SPLIT),
    ("enable_check_numerics, then split the CPU", "tf.debugging.enable_check_numerics()\n" + SPLIT),
    ("enable_check_numerics, then MultiWorkerMirroredStrategy", "tf.debugging.enable_check_numerics()\n" + MWMS),
    ("Policy('mixed_float16') + set_global_policy, then split the CPU", POLICY + SPLIT),
    ("mixed_precision.experimental present", 'print(hasattr(tf.keras.mixed_precision, "experimental"))\n'),
)


def premises(flavour: str) -> None:
    """Run each case in a fresh process (the runtime starts once per process) and print its line."""
    for label, body in CASES:
        env = dict(os.environ)
        # One worker on a free local port: the strategy reads the cluster and starts its server.
        env["TF_CONFIG"] = json.dumps(
            {"cluster": {"worker": [f"127.0.0.1:{free_ports(1)[0]}"]}, "task": {"type": "worker", "index": 0}}
        )
        done = subprocess.run(
            [sys.executable, "-c", "import tensorflow as tf\n" + body],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        lines = done.stdout.strip().splitlines()
        outcome = lines[-1] if lines else f"no output (exit {done.returncode})"
        print(f"{flavour} | {label}: {outcome}", flush=True)


if __name__ == "__main__":
    main_per_keras(__file__, premises)
