"""Which tf.distribute names exist in which TensorFlow release: the table rename rules consult
before writing a name, and before calling one removed.

Versions before 2.21 come from TensorFlow's release notes (the renames: `run` in 2.2,
`TPUStrategy` out of experimental in 2.3, `MultiWorkerMirroredStrategy`,
`CommunicationImplementation` and `distribute_datasets_from_function` in 2.4; `experimental_run_v2`
gone by 2.4, tf#49187); the TensorFlow 2.21 facts are measured by benchmarks/probe_target_apis.py.
"""

from __future__ import annotations

# Strategy methods and qualified names -> the first release that has them.
ADDED: dict[str, tuple[int, int]] = {
    "run": (2, 2),
    # A strategy's public `cluster_resolver` attribute: the r2.2 API docs of
    # MultiWorkerMirroredStrategy list only `extended` and `num_replicas_in_sync`, the r2.3 ones add
    # it (tensorflow/docs, site/en/api_docs/python/tf/distribute/experimental/MultiWorkerMirroredStrategy.md).
    "cluster_resolver": (2, 3),
    "distribute_datasets_from_function": (2, 4),
    "tensorflow.distribute.TPUStrategy": (2, 3),
    "tensorflow.distribute.MultiWorkerMirroredStrategy": (2, 4),
    "tensorflow.distribute.experimental.CommunicationImplementation": (2, 4),
}
# Names -> the first release without them.
REMOVED: dict[str, tuple[int, int]] = {
    "experimental_run_v2": (2, 4),
}
# `from tensorflow.distribute... import Name` raises ImportError from this release on (measured on
# 2.21: `tensorflow/distribute` is a real package holding only `experimental/rpc`, so names of the
# `tf.distribute` API cannot be imported from it; `tf.distribute.Name` works).
FROM_IMPORT_FAILS_FROM: tuple[int, int] = (2, 21)
# What `from tensorflow.distribute[.experimental] import X` can import there: the real subpackages.
REAL_SUBMODULES: dict[str, frozenset[str]] = {
    "tensorflow.distribute": frozenset({"experimental"}),
    "tensorflow.distribute.experimental": frozenset({"rpc"}),
}


def exists_in(name: str, version: tuple[int, int]) -> bool:
    """``name`` (a method or qualified name of the tables) exists in TensorFlow ``version``."""
    added = ADDED.get(name)
    removed = REMOVED.get(name)
    return (added is None or version >= added) and (removed is None or version < removed)


def added_in(name: str) -> tuple[int, int] | None:
    """The first release that has ``name``, or None for a name every TensorFlow 2 release has."""
    return ADDED.get(name)
