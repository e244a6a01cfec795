"""Example programs that the examples of more than one rule start from.

A rule module never imports another rule's module; what two rules' examples share lives here.
"""

from __future__ import annotations

# A multi-worker script that builds a Keras model in the strategy's scope; examples append a save.
MULTI_WORKER_MODEL = """
import os

import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
"""
# The helpers TFD502's and TFD503's fixes add after `import tensorflow as tf`, as the fixed text shows them.
WORKER_PATH_HELPERS = '''

def _worker_path(path, strategy):
    """Where this worker saves: the chief writes `path`, every other worker a private copy.

    Every worker must take part in saving (it can run collectives), but they must not write
    the same files. Added by distfix (TFD502/TFD503).
    """
    resolver = strategy.cluster_resolver
    if resolver is None:
        return path  # a one-machine strategy (Mirrored, OneDevice, the default) has no cluster: one process
    task_type, task_id = resolver.task_type, resolver.task_id
    is_chief = task_type in (None, "chief") or (
        task_type == "worker" and task_id == 0 and "chief" not in resolver.cluster_spec().as_dict()
    )
    if is_chief:
        return path
    path = os.fspath(path)
    return os.path.join(os.path.dirname(path), f"workertemp_{task_id}", os.path.basename(path))


def _remove_worker_copy(path, strategy):
    """Delete a non-chief worker's private copy once it has saved."""
    written = _worker_path(path, strategy)
    if written != path:
        tf.io.gfile.rmtree(os.path.dirname(written))

'''


def with_worker_path_helpers(body: str) -> str:
    """``MULTI_WORKER_MODEL`` with the worker-path helpers added, followed by ``body``: a fixed example."""
    head = MULTI_WORKER_MODEL.replace("import tensorflow as tf\n", "import tensorflow as tf\n" + WORKER_PATH_HELPERS, 1)
    return head + body
