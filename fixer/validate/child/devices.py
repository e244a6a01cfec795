"""Devices and seeds, set before the script's first TensorFlow op."""

from __future__ import annotations

from typing import Any

from .state import DUMP, SETTINGS

SEED = 1234


def set_up_devices(tf: Any) -> str:
    """Split the devices into the requested replicas; returns ``"gpu"`` or ``"cpu"``."""
    replicas = SETTINGS["replicas"]
    gpus = tf.config.list_physical_devices("GPU")
    if SETTINGS["device"] == "gpu" or (SETTINGS["device"] == "auto" and gpus):
        if not gpus:
            raise RuntimeError("--device gpu was asked for, but TensorFlow sees no GPU")
        if len(gpus) >= replicas:
            tf.config.set_visible_devices(gpus[:replicas], "GPU")
            DUMP["devices"] = "GPU"
        else:  # split one GPU into logical GPUs
            DUMP["devices"] = "logical GPU"
            memory = SETTINGS.get("gpu_memory_mb", 1024)
            tf.config.set_logical_device_configuration(
                gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=memory)] * replicas
            )
        return "gpu"
    DUMP["devices"] = "logical CPU" if SETTINGS["workers"] == 1 and replicas > 1 else "CPU"
    if SETTINGS["workers"] == 1:
        # Before any op; on CPU a multi-worker worker has one replica whatever the split.
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * replicas)
    return "cpu"


def seed(tf: Any, device: str) -> None:
    """One constant seed for Python, NumPy, TensorFlow and Keras in single-worker runs.

    The runs are then repeatable, so the 1-replica and the N-replica run start from the same
    weights. Multi-worker runs stay unseeded, as real workers are: one seed on every worker would
    make every unseeded shuffle agree and hide the data the workers duplicate or drop, and a seed
    per worker would change what op-level seeds (``shuffle(seed=7)``) do. The script's own seeding
    still wins. Op determinism is enabled on CPU only (some GPU kernels have no deterministic
    version and would raise).
    """
    import keras

    if SETTINGS["workers"] > 1:
        return
    keras.utils.set_random_seed(SEED)
    tf.random.set_seed(SEED)
    if device == "cpu":
        tf.config.experimental.enable_op_determinism()
