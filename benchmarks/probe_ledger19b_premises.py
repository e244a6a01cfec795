"""Premises of ledger19b: TFD504's fix after `import tensorflow_datasets`, and a recall miss (an optimizer
made outside the scope in a model's `__init__`).

Part 1: does TF_USE_LEGACY_KERAS still work when it is set after `import tensorflow_datasets`?

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

Part 2: a `tf.keras.Model` subclass makes a two-replica MirroredStrategy, a Dense layer and `Adam` in
`__init__` (outside the scope), and a `tf.function` method runs the training step through
`strategy.run`; the loop calls it under `with strategy.scope():` (a student demo's shape, ledger19b's
recall section). Run once per Keras:

    keras 3: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_st
    tf-keras: trains; the layer's kernel is a MirroredVariable

(the Keras 3 line is the end of a RuntimeError raised by the optimizer's first `apply_gradients`: the
same error TFD101 reports for an optimizer made outside the scope, `probe_optimizer_made_outside_scope.py`).
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

OUTSIDE_SCOPE = """
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)


class Demo(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        self.dense = tf.keras.layers.Dense(1)
        self.opt = tf.keras.optimizers.Adam(0.1)

    def call(self, x):
        return self.dense(x)

    def step(self, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(self(x) ** 2) / 8.0
        grads = tape.gradient(loss, self.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.trainable_variables))
        return loss

    @tf.function
    def distributed_step(self, x):
        return self.strategy.run(self.step, args=(x,))


model = Demo()
batches = model.strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(tf.ones([16, 3])).batch(8))
try:
    with model.strategy.scope():
        for batch in batches:
            model.distributed_step(batch)
    print("trains; the layer's kernel is a " + type(model.dense.kernel).__name__)
except Exception as exc:
    print([line.strip() for line in str(exc).splitlines() if line.strip()][-1][:90])
"""


def main() -> None:
    """Run each case in a fresh interpreter: the package behind `tf.keras`, then part 2 per Keras."""
    env = {key: value for key, value in os.environ.items() if key != "TF_USE_LEGACY_KERAS"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    for label, code in CASES.items():
        done = subprocess.run(
            [sys.executable, "-c", code + REPORT], capture_output=True, text=True, env=env, check=False
        )
        lines = done.stdout.strip().splitlines()
        outcome = lines[-1] if lines else f"failed: {done.stderr.strip().splitlines()[-1:]}"
        print(f"{label}: tf.keras -> {outcome}")
    for flavour, legacy in (("keras 3", None), ("tf-keras", "1")):
        flavour_env = dict(env, TF_USE_LEGACY_KERAS=legacy) if legacy else env
        done = subprocess.run(
            [sys.executable, "-c", OUTSIDE_SCOPE], capture_output=True, text=True, env=flavour_env, check=False
        )
        lines = done.stdout.strip().splitlines()
        print(f"{flavour}: {lines[-1] if lines else done.stderr.strip().splitlines()[-1:]}")


if __name__ == "__main__":
    main()
