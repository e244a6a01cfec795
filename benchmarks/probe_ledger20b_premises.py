"""Premise of ledger20b's class 1: the template's custom-loop script is written for Keras 2.

cosmoquester/tf2-keras-template's `scripts/train_custom_loop.py` (judged in ledger20b, TFD109 fp)
sets its default mixed precision policy through `tf.keras.mixed_precision.experimental` and resets
its metrics with `Metric.reset_states()`. Its CI installs `tensorflow>=2` on Python 3.8 (TF <= 2.13,
Keras 2). This probe asks, in a fresh process per Keras, whether TensorFlow 2.21 still offers
those two names, so that the verdict's "the script itself is Keras 2 only" is measured:

    python benchmarks/probe_ledger20b_premises.py

Output on TensorFlow 2.21 (Keras 3.15.1, tf-keras 2.21), 2026-11-28:

    keras 3: mixed_precision.experimental: absent; Mean().reset_states: absent
    tf-keras: mixed_precision.experimental: absent; Mean().reset_states: present

Under Keras 3 the script's default path stops at the policy line (AttributeError), and its metrics
lack `reset_states`; tf-keras 2.21 lacks the experimental module too. Neither 2.21 Keras runs the
script as written: it was written for the Keras 2 its CI installed (TensorFlow <= 2.13 on Python 3.8).
"""

from __future__ import annotations

import os
import subprocess
import sys

CHECK = """
import tensorflow as tf
names = {
    "mixed_precision.experimental": hasattr(tf.keras.mixed_precision, "experimental"),
    "Mean().reset_states": hasattr(tf.keras.metrics.Mean(), "reset_states"),
}
print("; ".join(f"{k}: {'present' if v else 'absent'}" for k, v in names.items()))
"""


def run(legacy: bool) -> str:
    """Run the check in a fresh process, with tf-keras selected or not; return its last line."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    if legacy:
        env["TF_USE_LEGACY_KERAS"] = "1"
    else:
        env.pop("TF_USE_LEGACY_KERAS", None)
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


if __name__ == "__main__":
    print(f"keras 3: {run(False)}")
    print(f"tf-keras: {run(True)}")
