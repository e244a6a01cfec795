"""Run as a script in a child process: print this worker's environment as one JSON line.

Kept apart so that only this process imports TensorFlow.
"""

import ctypes
import importlib.metadata
import importlib.util
import json
import os
import platform
import socket
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _nccl_available() -> bool:
    """Whether the NCCL library can be loaded: from the nvidia-nccl wheel or the system."""
    spec = importlib.util.find_spec("nvidia.nccl") if importlib.util.find_spec("nvidia") else None
    candidates: list[str | Path] = []
    if spec is not None and spec.submodule_search_locations:
        candidates += sorted(Path(spec.submodule_search_locations[0], "lib").glob("libnccl.so*"))
    candidates += ["libnccl.so.2", "libnccl.so"]
    for candidate in candidates:
        try:
            ctypes.CDLL(str(candidate))
            return True
        except OSError:
            continue
    return False


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def main() -> int:
    """Print the fingerprint; a worker without TensorFlow still gets one, with the reason."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "kernel": platform.release(),
        "hostname": socket.gethostname(),
    }
    try:
        import tensorflow as tf
    except Exception as exc:  # any import failure is a fact about this worker, not a crash
        info.update(tensorflow=None, error=f"tensorflow cannot be imported: {exc}")
        print(json.dumps(info))
        return 0
    build = tf.sysconfig.get_build_info()
    info["tensorflow"] = tf.__version__
    info["legacy_keras"] = os.environ.get("TF_USE_LEGACY_KERAS", "").lower() in ("1", "true")
    info["tf_keras"] = _version("tf-keras")
    # The Keras that `tf.keras` really is: tf-keras (Keras 2) under TF_USE_LEGACY_KERAS, else Keras 3.
    info["keras"] = info["tf_keras"] if info["legacy_keras"] else _version("keras")
    info["cuda_build"] = bool(build.get("is_cuda_build"))
    info["cuda"] = build.get("cuda_version")
    info["cudnn"] = build.get("cudnn_version")
    info["gpus"] = [gpu.name for gpu in tf.config.list_physical_devices("GPU")]
    # NCCL only matters to a CUDA build; None says "not applicable" rather than "missing".
    info["nccl"] = _nccl_available() if info["cuda_build"] and platform.system() == "Linux" else None
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
