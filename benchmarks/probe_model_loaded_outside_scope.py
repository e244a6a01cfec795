"""Probe for TFD113: a saved Keras model loaded outside `strategy.scope()`, then used under the strategy.

The CPU is split into 2 logical devices and a small compiled model is saved to a `.keras` file
(an `.h5` file under tf-keras); each case, in a fresh process, loads it and then:

- loads outside the scope, compiles inside `with strategy.scope():`, fits;
- loads outside the scope, keeps the saved compile, fits inside `with strategy.scope():`;
- loads inside the scope (the fix), compiles again or keeps the saved compile, fits.

Each prints what happened and the class of the loaded kernel; run under Keras 3 and tf-keras.

    python benchmarks/probe_model_loaded_outside_scope.py

Output on TensorFlow 2.21 (Keras 3.15.1, tf-keras 2.21), 2026-11-26:

    ## Keras 3
    outside, compile in scope: fit raises AssertionError: (no message); kernel is ResourceVariable
    outside, fit in scope: fit raises AssertionError: (no message); kernel is ResourceVariable
    inside (fix), compile: trains; kernel is MirroredVariable
    inside (fix), saved compile: trains; kernel is MirroredVariable
    ## tf-keras (TF_USE_LEGACY_KERAS=1)
    outside, compile in scope: compile raises ValueError: Variable (<tf.Variable 'dense/kernel:0' shape=(2, 1) dtype=float32, numpy=; kernel is ResourceVariable
    outside, fit in scope: fit raises AssertionError: in user code:; kernel is ResourceVariable
    inside (fix), compile: trains; kernel is MirroredVariable
    inside (fix), saved compile: trains; kernel is MirroredVariable
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from keras_flavours import run_under_both_kerases  # noqa: E402

CHILD = r"""
import os, subprocess, sys, tempfile
case = sys.argv[1] if len(sys.argv) > 1 else None
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
keras = tf.keras
legacy = os.environ.get("TF_USE_LEGACY_KERAS") == "1"
path = os.path.join(os.environ["PROBE_DIR"], "model.h5" if legacy else "model.keras")
x = np.ones((8, 2), "float32"); y = np.ones((8, 1), "float32")

if case is None:
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.save(path)
    for case in ("outside, compile in scope", "outside, fit in scope", "inside (fix), compile", "inside (fix), saved compile"):
        out = subprocess.run([sys.executable, "-c", CHILD_SOURCE, case],
                             capture_output=True, text=True, env=os.environ)
        print(out.stdout.strip() or (case + ": no output; " + out.stderr.strip().splitlines()[-1]))
    sys.exit(0)

strategy = tf.distribute.MirroredStrategy()
stage = "load"
try:
    if case.startswith("inside"):
        with strategy.scope():
            model = keras.models.load_model(path)
            stage = "compile"
            if case.endswith(", compile"):
                model.compile(optimizer="sgd", loss="mse")
        stage = "fit"
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    elif case == "outside, compile in scope":
        model = keras.models.load_model(path)
        with strategy.scope():
            stage = "compile"
            model.compile(optimizer="sgd", loss="mse")
        stage = "fit"
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    else:
        model = keras.models.load_model(path)
        with strategy.scope():
            stage = "fit"
            model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    outcome = "trains"
except Exception as exc:
    message = str(exc).splitlines()[0][:150] if str(exc) else "(no message)"
    outcome = f"{stage} raises {type(exc).__name__}: {message}"
kernel = model.layers[0].kernel
kernel = getattr(kernel, "_value", kernel)  # Keras 3 wraps the tf.Variable
print(f"{case}: {outcome}; kernel is {type(kernel).__name__}")
"""


def main() -> None:
    """Save once per Keras flavour, then run each case in its own process."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        os.environ["PROBE_DIR"] = folder
        source = CHILD.replace("CHILD_SOURCE", repr(CHILD))
        run_under_both_kerases(source)


if __name__ == "__main__":
    main()
