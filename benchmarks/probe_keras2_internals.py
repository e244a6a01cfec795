"""Imports of Keras 2 internals: the evidence the project-target model takes for Keras 2 when no
TensorFlow version is stated (docs/target.md, "Code written for Keras 2").

`tensorflow.python.keras` is the Keras 2 copy TensorFlow kept inside itself; `keras.engine` is
Keras 2's package layout. Each check runs under Keras 3 (`tf.keras` of TensorFlow 2.21) and under
tf-keras (TF_USE_LEGACY_KERAS=1), each in a fresh interpreter.
Run: python benchmarks/probe_keras2_internals.py
"""

from __future__ import annotations

import subprocess
import sys

CHECKS = {
    "import tensorflow.python.keras": "import tensorflow.python.keras as k; r = 'imports'",
    "tensorflow.python.keras Layer is tf.keras's Layer": (
        "from tensorflow.python.keras.engine.base_layer import Layer; r = Layer is tf.keras.layers.Layer"
    ),
    "a tf.keras Dense is a tensorflow.python.keras Layer": (
        "from tensorflow.python.keras.engine.base_layer import Layer; r = isinstance(tf.keras.layers.Dense(1), Layer)"
    ),
    "tensorflow.python.keras LossScaleOptimizer has get_scaled_loss": (
        "from tensorflow.python.keras.mixed_precision import loss_scale_optimizer as l;"
        " r = hasattr(l.LossScaleOptimizer, 'get_scaled_loss')"
    ),
    "tf.keras LossScaleOptimizer has get_scaled_loss": (
        "r = hasattr(tf.keras.mixed_precision.LossScaleOptimizer, 'get_scaled_loss')"
    ),
    "import keras.engine": "import keras.engine; r = 'imports'",
}

PROGRAM = """
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ["TF_USE_LEGACY_KERAS"] = "{legacy}"
import tensorflow as tf
for name, check in {checks!r}.items():
    scope = {{"tf": tf}}
    try:
        exec(check, scope)
        print(f"  {{str(scope['r']):19s}} {{name}}")
    except Exception as error:
        print(f"  {{type(error).__name__:19s}} {{name}}: {{str(error).splitlines()[0][:70]}}")
"""


def main() -> None:
    for label, legacy in (("Keras 3 (tf.keras, TensorFlow 2.21)", "0"), ("tf-keras (TF_USE_LEGACY_KERAS=1)", "1")):
        print(label)
        program = PROGRAM.format(legacy=legacy, checks=CHECKS)
        result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=False)
        print(result.stdout.rstrip() or result.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
