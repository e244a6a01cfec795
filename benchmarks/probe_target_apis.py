"""Which tf.distribute names and import forms exist in the installed TensorFlow.

Backs the version claims of TFD401 and of the project-target model (docs/target.md): the
names a rename may write, the ones removed, the `from tensorflow.distribute... import X`
forms that raise ImportError although `tf.distribute.X` exists, and the names a TensorFlow 1
program has (`tf.compat.v1.distribute`) or that only TensorFlow 1.x had (`tf.Session`).
Run: python benchmarks/probe_target_apis.py
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import tensorflow as tf  # noqa: E402

IMPORTS = (
    "from tensorflow.distribute import MirroredStrategy",
    "from tensorflow.distribute import MultiWorkerMirroredStrategy",
    "from tensorflow.distribute.experimental import MultiWorkerMirroredStrategy",
    "from tensorflow.distribute.experimental import CommunicationOptions",
    "from tensorflow.distribute.cluster_resolver import TFConfigClusterResolver",
    "from tensorflow import distribute",
    "from tensorflow.compat.v1.distribute import MirroredStrategy",
)
STRATEGY_METHODS = (
    "run", "experimental_run_v2",
    "distribute_datasets_from_function", "experimental_distribute_datasets_from_function",
    "make_dataset_iterator", "experimental_run",
)
ATTRIBUTES = (
    "distribute.MultiWorkerMirroredStrategy", "distribute.experimental.MultiWorkerMirroredStrategy",
    "distribute.TPUStrategy", "distribute.experimental.TPUStrategy",
    "distribute.experimental.CommunicationImplementation", "distribute.experimental.CollectiveCommunication",
    # What a TensorFlow 1 program has (docs/target.md, "TensorFlow 1.x programs"): the v1 API's
    # strategies are the experimental ones, and the 1.x-only names are gone from `tf`.
    "compat.v1.distribute.TPUStrategy", "compat.v1.distribute.experimental.TPUStrategy",
    "compat.v1.distribute.MultiWorkerMirroredStrategy", "compat.v1.distribute.experimental.MultiWorkerMirroredStrategy",
    "Session", "placeholder", "contrib", "compat.v1.Session", "compat.v1.placeholder",
)


def main() -> None:
    print(f"TensorFlow {tf.__version__}")
    for statement in IMPORTS:
        try:
            exec(statement, {})
            print(f"ok           {statement}")
        except ImportError as exc:
            print(f"{type(exc).__name__:<12} {statement}")
    strategy = tf.distribute.MirroredStrategy()
    for method in STRATEGY_METHODS:
        print(f"{'ok' if hasattr(strategy, method) else 'missing':<12} strategy.{method}")
    for dotted in ATTRIBUTES:
        found = tf
        for part in dotted.split("."):
            found = getattr(found, part, None)
        print(f"{'ok' if found is not None else 'missing':<12} tf.{dotted}")
    try:
        tf.distribute.experimental.ParameterServerStrategy()
        print("ok           tf.distribute.experimental.ParameterServerStrategy()")
    except TypeError as exc:
        print(f"TypeError    tf.distribute.experimental.ParameterServerStrategy(): {exc}")


if __name__ == "__main__":
    main()
