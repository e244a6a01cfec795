"""Probe for TFD105: do TFRecord writing, `keras.utils.get_file`, NumPy normalisation and
`tf.compat.v1.reset_default_graph()` start the TensorFlow runtime before a
MultiWorkerMirroredStrategy?

Each case runs in a fresh process with a one-worker TF_CONFIG: the call, then
`MultiWorkerMirroredStrategy()`. "created" means the call left the runtime unstarted;
`RuntimeError: Collective ops must be configured at program startup` means it started it.
Controls: nothing before (created) and `tf.constant` before (fails). `get_file` downloads from a
`file://` URL, so no network is needed. Run under Keras 3 (default) and tf-keras
(`TF_USE_LEGACY_KERAS=1`):

    python benchmarks/probe_runtime_start_io.py
    TF_USE_LEGACY_KERAS=1 python benchmarks/probe_runtime_start_io.py

Output on TensorFlow 2.21, 2026-11-26, the last case added 2026-11-27 (both Keras flavours print
the same):

    nothing before (control): created (the runtime had not started)
    tf.constant (control): RuntimeError: Collective ops must be configured at program startup
    tf.io.TFRecordWriter writing a tf.train.Example: created (the runtime had not started)
    keras.utils.get_file from a file:// URL: created (the runtime had not started)
    NumPy normalisation of keras.datasets-shaped arrays: created (the runtime had not started)
    keras.utils.normalize on a NumPy array: created (the runtime had not started)
    tf.compat.v1.reset_default_graph: created (the runtime had not started)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CASES = {
    "nothing before (control)": "pass",
    "tf.constant (control)": "tf.constant(1.0)",
    "tf.io.TFRecordWriter writing a tf.train.Example": (
        "example = tf.train.Example(features=tf.train.Features(feature={'x': tf.train.Feature("
        "int64_list=tf.train.Int64List(value=[1]))}))\n"
        "with tf.io.TFRecordWriter(os.path.join(work, 'd.tfrecord')) as writer:\n"
        "    writer.write(example.SerializeToString())"
    ),
    "keras.utils.get_file from a file:// URL": (
        "src = os.path.join(work, 'src.txt'); open(src, 'w').write('data')\n"
        "tf.keras.utils.get_file('copy.txt', 'file://' + src, cache_dir=work)"
    ),
    "NumPy normalisation of keras.datasets-shaped arrays": (
        "x = np.random.randint(0, 256, size=(8, 28, 28)).astype('float32')\n"
        "x = (x / 255.0 - x.mean()) / x.std()"
    ),
    "keras.utils.normalize on a NumPy array": "tf.keras.utils.normalize(np.ones((4, 3)), axis=-1)",
    "tf.compat.v1.reset_default_graph": "tf.compat.v1.reset_default_graph()",
}


def run_case(label: str) -> None:
    """One case, in this process."""
    import numpy as np
    import tensorflow as tf

    work = tempfile.mkdtemp()
    exec(CASES[label], {"tf": tf, "np": np, "os": os, "work": work})
    try:
        tf.distribute.MultiWorkerMirroredStrategy()
        outcome = "created (the runtime had not started)"
    except RuntimeError as exc:
        outcome = f"RuntimeError: {str(exc).splitlines()[0]}"
    print(f"{label}: {outcome}", flush=True)


def main() -> None:
    """Every case in its own process (the runtime starts once per process)."""
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_case(sys.argv[2])
        return
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["localhost:12355"]}, "task": {"type": "worker", "index": 0}})
    for label in CASES:
        done = subprocess.run([sys.executable, __file__, "--case", label], env=env, capture_output=True, text=True, check=False)
        lines = [line for line in done.stdout.splitlines() if line.startswith(label)]
        print(lines[-1] if lines else f"{label}: crashed: {done.stderr.strip().splitlines()[-1:]}", flush=True)


if __name__ == "__main__":
    main()
