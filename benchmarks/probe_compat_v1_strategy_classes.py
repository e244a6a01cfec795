"""TFD401's alias facts for `tf.compat.v1.distribute`: which names are the TF2 object, which are not.

`tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy` reads like an old spelling of
`tf.distribute.MultiWorkerMirroredStrategy`. A rename is safe only when both names give the same
object. This probe compares, for every public name of `tf.compat.v1.distribute` and of its
`experimental` and `cluster_resolver` modules, the object with the one of the same path under
`tf.distribute` (`same`, `different` or `missing`), prints both classes' `__name__` and, for a
class, whether it derives from `StrategyV1` (the TF1 strategy API: `make_dataset_iterator`,
`experimental_run`, used by graph-mode and Estimator code). It then compares the compat.v1 names
TFD401 could meet with the current names its rename table writes. Nothing is constructed, so one
run suffices:

    python benchmarks/probe_compat_v1_strategy_classes.py

Output on TensorFlow 2.21, 2026-11-27 (issue 28, v1names; the `same` lines of the module walk are
left out here, the probe prints them):

    TensorFlow 2.21.0
    different  MirroredStrategy: MirroredStrategyV1 (StrategyV1) vs MirroredStrategy
    different  OneDeviceStrategy: OneDeviceStrategyV1 (StrategyV1) vs OneDeviceStrategy
    different  ReplicaContext: ReplicaContextV1 vs ReplicaContext
    different  Strategy: StrategyV1 (StrategyV1) vs Strategy
    different  StrategyExtended: StrategyExtendedV1 vs StrategyExtendedV2
    missing    get_loss_reduction: get_loss_reduction vs -
    different  experimental.CentralStorageStrategy: CentralStorageStrategyV1 (StrategyV1) vs CentralStorageStrategy
    different  experimental.MultiWorkerMirroredStrategy: CollectiveAllReduceStrategyV1 (StrategyV1) vs CollectiveAllReduceStrategy
    different  experimental.ParameterServerStrategy: ParameterServerStrategyV1 (StrategyV1) vs ParameterServerStrategyV2
    different  experimental.TPUStrategy: TPUStrategyV1 (StrategyV1) vs TPUStrategy
    rename table:
    different  tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy -> tf.distribute.MultiWorkerMirroredStrategy
    different  tf.compat.v1.distribute.experimental.TPUStrategy -> tf.distribute.TPUStrategy
    same       tf.compat.v1.distribute.experimental.CollectiveCommunication -> tf.distribute.experimental.CommunicationImplementation

Every `cluster_resolver` name and the `experimental` enums and options (`CollectiveCommunication`,
`CollectiveHints`, `CommunicationImplementation`, `CommunicationOptions`) are the TF2 objects. The
compat.v1 strategy classes are other classes (`StrategyV1` subclasses), not aliases: none of them
is removed in 2.21 (each name is there), so TFD401 leaves them alone, and keeps renaming the
compat.v1 `CollectiveCommunication`, the same enum as `CommunicationImplementation`.
"""

from __future__ import annotations

import os
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import tensorflow as tf  # noqa: E402

SUBMODULES = ("", "experimental.", "cluster_resolver.")
# The compat.v1 spellings TFD401's rename table can meet, and the current name it writes.
RENAMES = (
    ("distribute.experimental.MultiWorkerMirroredStrategy", "distribute.MultiWorkerMirroredStrategy"),
    ("distribute.experimental.TPUStrategy", "distribute.TPUStrategy"),
    ("distribute.experimental.CollectiveCommunication", "distribute.experimental.CommunicationImplementation"),
)


def _lookup(root: object, dotted: str) -> object | None:
    found: object | None = root
    for part in dotted.split("."):
        found = getattr(found, part, None)
    return found


def _describe(obj: object | None) -> str:
    if obj is None:
        return "-"
    name = getattr(obj, "__name__", type(obj).__name__)
    if isinstance(obj, type) and issubclass(obj, tf.compat.v1.distribute.Strategy):
        return f"{name} (StrategyV1)"
    return str(name)


def _verdict(old: object | None, new: object | None) -> str:
    if new is None:
        return "missing"
    return "same" if old is new else "different"


def main() -> None:
    print(f"TensorFlow {tf.__version__}")
    for prefix in SUBMODULES:
        module = _lookup(tf.compat.v1.distribute, prefix.rstrip(".")) if prefix else tf.compat.v1.distribute
        for name in sorted(n for n in dir(module) if not n.startswith("_")):
            old = getattr(module, name)
            if isinstance(old, types.ModuleType):
                continue  # the submodules are walked on their own
            new = _lookup(tf.distribute, prefix + name)
            print(f"{_verdict(old, new):<10} {prefix}{name}: {_describe(old)} vs {_describe(new)}")
    print("rename table:")
    for old_name, new_name in RENAMES:
        old, new = _lookup(tf.compat.v1, old_name), _lookup(tf, new_name)
        print(f"{_verdict(old, new):<10} tf.compat.v1.{old_name} -> tf.{new_name}")


if __name__ == "__main__":
    main()
