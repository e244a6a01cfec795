"""Run as a script in a child process: print this worker's environment as JSON.

Kept apart so that only this process imports TensorFlow.
"""

import json
import os
import platform
import socket
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main() -> None:
    info = {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "hostname": socket.gethostname(),
    }
    try:
        import tensorflow as tf
    except ImportError as exc:
        info["tensorflow"] = None
        info["error"] = f"tensorflow cannot be imported: {exc}"
        print(json.dumps(info))
        return
    build = tf.sysconfig.get_build_info()
    info["tensorflow"] = tf.__version__
    try:
        info["keras"] = tf.keras.__version__ if hasattr(tf.keras, "__version__") else __import__("keras").__version__
    except Exception:  # Keras is optional for the cluster itself
        info["keras"] = None
    info["cuda"] = build.get("cuda_version")
    info["cudnn"] = build.get("cudnn_version")
    info["cuda_build"] = bool(build.get("is_cuda_build"))
    gpus = tf.config.list_physical_devices("GPU")
    info["gpus"] = [gpu.name for gpu in gpus]
    info["nccl"] = bool(build.get("is_cuda_build")) and platform.system() == "Linux"
    print(json.dumps(info))


if __name__ == "__main__":
    sys.exit(main())
