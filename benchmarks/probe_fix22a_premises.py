"""Premises of fix22a: what a file calling `tf.keras.backend.get_session()` runs on, and which
MultiWorkerMirroredStrategy names a project supporting TensorFlow 1.15 and 2.4 can write.

`get_session` is Keras 2's TF 1 session accessor, exported for the v1 API only
(`keras_export(v1=["keras.backend.get_session"])` in tf-keras' `src/backend.py`): TensorFlow 2's
`tf.keras.backend` has no such name, Keras 3's neither, and only `tf.compat.v1.keras.backend` keeps it.
A file that calls `tf.keras.backend.get_session()` outside any version test therefore runs on
TensorFlow 1.x only, where `tf.distribute` has only `experimental.MultiWorkerMirroredStrategy` (the
stable name arrived in 2.4, TensorFlow 2.4.0 release notes; the 1.15 namespace is what
`tf.compat.v1.distribute` still shows, benchmarks/probe_ledger20a_premises.py part 1). The probe
prints, on the installed TensorFlow with `TF_USE_LEGACY_KERAS=1`, which namespaces have `get_session`
and both strategy names.

    python benchmarks/probe_fix22a_premises.py

Output on TensorFlow 2.21 (Keras 3.x, tf-keras 2.21), 2026-11-28:

    keras.backend (Keras 3) | get_session: False
    tf.keras.backend (tf-keras) | get_session: False
    tf.compat.v1.keras.backend (tf-keras) | get_session: True
    tf.compat.v1.distribute | MultiWorkerMirroredStrategy: False | experimental.MWMS: True
    tf.distribute | MultiWorkerMirroredStrategy: True | experimental.MWMS: True
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # `tf.keras` is tf-keras (Keras 2), as on TensorFlow 2.4

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402


def main() -> None:
    backends = {
        "keras.backend (Keras 3)": keras.backend,
        "tf.keras.backend (tf-keras)": tf.keras.backend,
        "tf.compat.v1.keras.backend (tf-keras)": tf.compat.v1.keras.backend,
    }
    for label, backend in backends.items():
        print(f"{label} | get_session: {hasattr(backend, 'get_session')}")
    for label, ns in {"tf.compat.v1.distribute": tf.compat.v1.distribute, "tf.distribute": tf.distribute}.items():
        stable = hasattr(ns, "MultiWorkerMirroredStrategy")
        experimental = hasattr(ns.experimental, "MultiWorkerMirroredStrategy")
        print(f"{label} | MultiWorkerMirroredStrategy: {stable} | experimental.MWMS: {experimental}")


if __name__ == "__main__":
    main()
