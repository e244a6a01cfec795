"""Run a probe's child script under Keras 3 and under tf-keras, and print each one's output.

The probes (``probe_*.py``) measure TensorFlow behaviour that can differ between the two Keras
flavours; each run is a fresh process because the flavour is fixed when TensorFlow is imported.
"""

from __future__ import annotations

import os
import subprocess
import sys

FLAVOURS = (("Keras 3", "0"), ("tf-keras (TF_USE_LEGACY_KERAS=1)", "1"))


def run_under_both_kerases(child: str, *args: str) -> None:
    """Run ``python -c child *args`` on the CPU once per Keras flavour; print its non-blank output lines."""
    for label, legacy in FLAVOURS:
        env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
        result = subprocess.run([sys.executable, "-c", child, *args], env=env, capture_output=True, text=True, timeout=300)
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        sys.stdout.write(f"## {label}\n" + "\n".join(lines) + "\n")
        if result.returncode:
            sys.stdout.write(result.stderr[-2000:] + "\n")
