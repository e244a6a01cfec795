"""Calls only Keras 2 accepts: the evidence the project-target model takes for Keras 2 when no
TensorFlow version is stated (docs/target.md, "Code written for Keras 2").

Each call runs under Keras 3 (`tf.keras` of TensorFlow 2.21) and under tf-keras (Keras 2), each
in a fresh interpreter (TF_USE_LEGACY_KERAS is read when tf.keras is first imported).
Run: python benchmarks/probe_keras2_only_calls.py
"""

from __future__ import annotations

import subprocess
import sys

_MODEL = "m = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])"
CALLS = {
    "Adam(lr=0.01)": "tf.keras.optimizers.Adam(lr=0.01)",
    "SGD(lr=0.1, decay=1e-6)": "tf.keras.optimizers.SGD(lr=0.1, decay=1e-6)",
    "RMSprop(lr=0.01)": "tf.keras.optimizers.RMSprop(lr=0.01)",
    "model.fit_generator": f"{_MODEL}; m.fit_generator",
    "model.evaluate_generator": f"{_MODEL}; m.evaluate_generator",
    "layers.experimental.preprocessing.Rescaling": "tf.keras.layers.experimental.preprocessing.Rescaling(1 / 255)",
    "optimizers.experimental.AdamW": "tf.keras.optimizers.experimental.AdamW()",
}

PROGRAM = """
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ["TF_USE_LEGACY_KERAS"] = "{legacy}"
import tensorflow as tf
for name, call in {calls!r}.items():
    try:
        exec(call, {{"tf": tf}})
        print(f"  ok     {{name}}")
    except Exception as error:
        print(f"  {{type(error).__name__:6s}} {{name}}: {{str(error).splitlines()[0][:90]}}")
"""


def main() -> None:
    for label, legacy in (("Keras 3 (tf.keras, TensorFlow 2.21)", "0"), ("tf-keras (TF_USE_LEGACY_KERAS=1)", "1")):
        print(label)
        program = PROGRAM.format(legacy=legacy, calls=CALLS)
        result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=False)
        print(result.stdout.rstrip() or result.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
