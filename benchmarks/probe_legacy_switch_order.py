"""When setting TF_USE_LEGACY_KERAS=1 still makes `tf.keras` tf-keras (backs fixer/tf/legacy_switch.py).

Each case runs in its own interpreter: the switch set before `import tensorflow`; after it but
before the first `tf.keras` attribute use; after it, then `from tensorflow.keras... import`
(TensorFlow fixed the package path of `tensorflow.keras` at its import); after a first `tf.keras` use. It prints the module `Dense` comes from (tf_keras.* or keras.*).
Run: python benchmarks/probe_legacy_switch_order.py
"""

from __future__ import annotations

import os
import subprocess
import sys

SET = "import os; os.environ['TF_USE_LEGACY_KERAS'] = '1'\n"
CASES = {
    "set before import tensorflow": SET + "import tensorflow as tf\nDense = tf.keras.layers.Dense\n",
    "set after import tensorflow, before tf.keras": "import tensorflow as tf\n" + SET + "Dense = tf.keras.layers.Dense\n",
    "set after import tensorflow, then from-import": "import tensorflow as tf\n" + SET + "from tensorflow.keras.layers import Dense\n",
    "set after a first tf.keras use": "import tensorflow as tf\ntf.keras.layers\n" + SET + "Dense = tf.keras.layers.Dense\n",
}


def main() -> None:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("TF_USE_LEGACY_KERAS", None)
    for name, code in CASES.items():
        result = subprocess.run(
            [sys.executable, "-c", code + "print(Dense.__module__.split('.')[0])"],
            capture_output=True, text=True, env=env, check=False,
        )
        lines = result.stdout.split()
        print(f"{name:48} {lines[-1] if lines else 'failed: ' + result.stderr.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
