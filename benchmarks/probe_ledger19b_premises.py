"""Premise of a ledger19b verdict on TFD504's fix: does TF_USE_LEGACY_KERAS still work when it is set
after `import tensorflow_datasets`?

TFD504's unsafe fix inserts `os.environ["TF_USE_LEGACY_KERAS"] = "1"` before the script's
`import tensorflow`. In a multi-worker tutorial copy seen in ledger19b the script imports
`tensorflow_datasets` first, which itself loads TensorFlow, so the line lands after TensorFlow is
already in the process. Each case runs in a fresh process and prints which package `tf.keras`
resolves to (`tf_keras` is the legacy Keras 2, `keras` is Keras 3):

- control: the variable set before any import;
- the fix's order: `import tensorflow_datasets`, then the variable, then `import tensorflow`;
- control: the variable never set.

    python benchmarks/probe_ledger19b_premises.py

Output on TensorFlow 2.21 (tf-keras 2.21, tensorflow-datasets installed), 2026-11-28:

    variable set before any import (control): tf.keras -> tf_keras
    tensorflow_datasets imported first, then the variable: tf.keras -> tf_keras
    variable never set (control): tf.keras -> keras

`tf.keras` is a lazy loader that reads the variable when `tf.keras` is first touched, not when
TensorFlow is imported, so the fix's line after the tfds import still selects tf-keras.
"""

from __future__ import annotations

import os
import subprocess
import sys

CASES = {
    "variable set before any import (control)": (
        "import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\nimport tensorflow_datasets\nimport tensorflow as tf\n"
    ),
    "tensorflow_datasets imported first, then the variable": (
        "import tensorflow_datasets\nimport os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\nimport tensorflow as tf\n"
    ),
    "variable never set (control)": "import tensorflow_datasets\nimport tensorflow as tf\n",
}
REPORT = "print(tf.keras.Sequential.__module__.split('.')[0])\n"


def main() -> None:
    """Run each case in a fresh interpreter and print the package behind `tf.keras`."""
    env = {key: value for key, value in os.environ.items() if key != "TF_USE_LEGACY_KERAS"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    for label, code in CASES.items():
        done = subprocess.run(
            [sys.executable, "-c", code + REPORT], capture_output=True, text=True, env=env, check=False
        )
        lines = done.stdout.strip().splitlines()
        outcome = lines[-1] if lines else f"failed: {done.stderr.strip().splitlines()[-1:]}"
        print(f"{label}: tf.keras -> {outcome}")


if __name__ == "__main__":
    main()
