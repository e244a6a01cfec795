"""Whether Keras's `ImageDataGenerator` and its three iterators start the TensorFlow runtime
(prec40, for TFD111 and TFD105: fixer/tf/runtime_start.py). Each case runs in a fresh process:
it builds the generator (and, for the iterator cases, calls `flow_from_directory` on a folder
of empty PNG files, `flow` on NumPy arrays, or `flow_from_dataframe` on a pandas frame naming
those files), then splits the CPU in two with `tf.config.set_logical_device_configuration`.
"configured" means the split was accepted (nothing started the runtime); a RuntimeError
("Virtual devices cannot be modified after being initialized") means it had started. The last
case, a `tf.constant` before the split, is the control: it must fail.

    python benchmarks/probe_image_generator_runtime.py

Output on TensorFlow 2.21 (2026-11-28, prec40), CPU:

    keras 3 | ImageDataGenerator(), then split the CPU: configured
    keras 3 | flow_from_directory, then split the CPU: configured
    keras 3 | flow on NumPy arrays, then split the CPU: configured
    keras 3 | flow_from_dataframe, then split the CPU: configured
    keras 3 | tf.constant, then split: RuntimeError: Virtual devices cannot be modified after being initialized
    tf-keras | ImageDataGenerator(), then split the CPU: configured
    tf-keras | flow_from_directory, then split the CPU: configured
    tf-keras | flow on NumPy arrays, then split the CPU: configured
    tf-keras | flow_from_dataframe, then split the CPU: configured
    tf-keras | tf.constant, then split: RuntimeError: Virtual devices cannot be modified after being initialized
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from probing import KERAS_FLAVOURS, first_error_line

_CASES = {
    "generator": "ImageDataGenerator(), then split the CPU",
    "directory": "flow_from_directory, then split the CPU",
    "arrays": "flow on NumPy arrays, then split the CPU",
    "dataframe": "flow_from_dataframe, then split the CPU",
    "control": "tf.constant, then split",
}


def _image_folder(root: Path) -> list[str]:
    """Two class folders of two (empty) PNG files; the iterators list them and read none."""
    files = []
    for label in ("a", "b"):
        (root / label).mkdir(parents=True)
        for index in range(2):
            (root / label / f"{index}.png").write_bytes(b"")
            files.append(f"{label}/{index}.png")
    return files


def case(name: str) -> str:
    """Run one case in this (fresh) process and return its outcome."""
    import numpy as np
    import tensorflow as tf
    from tensorflow.keras.preprocessing.image import ImageDataGenerator

    with tempfile.TemporaryDirectory() as folder:
        files = _image_folder(Path(folder))
        generator = ImageDataGenerator(rescale=1.0 / 255, horizontal_flip=True)
        if name == "directory":
            generator.flow_from_directory(folder, target_size=(8, 8), batch_size=2)
        elif name == "arrays":
            generator.flow(np.ones((4, 8, 8, 3), np.float32), np.arange(4), batch_size=2)
        elif name == "dataframe":
            import pandas as pd

            frame = pd.DataFrame({"filename": files, "class": [f.split("/")[0] for f in files]})
            generator.flow_from_dataframe(frame, directory=folder, target_size=(8, 8), batch_size=2)
        elif name == "control":
            tf.constant(1.0)
    try:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    except RuntimeError as exc:
        return first_error_line(exc)
    return "configured"


def main() -> None:
    """Without arguments, run every case per Keras flavour, each in a fresh process."""
    if len(sys.argv) > 2:
        print(case(sys.argv[2]))
        return
    for flavour, legacy in KERAS_FLAVOURS:
        env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        for name, label in _CASES.items():
            run = subprocess.run(
                [sys.executable, __file__, flavour, name], env=env, capture_output=True, text=True, check=False
            )
            lines = run.stdout.strip().splitlines() or [f"exit {run.returncode}: {run.stderr.strip()[-120:]}"]
            print(f"{flavour} | {label}: {lines[-1]}", flush=True)


if __name__ == "__main__":
    main()
