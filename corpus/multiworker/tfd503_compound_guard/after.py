"""Only the chief saves, every second epoch: the compound guard keeps the epoch condition."""

import os

import tensorflow as tf


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


strategy = tf.distribute.MultiWorkerMirroredStrategy(
    cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
)
with strategy.scope():
    w = tf.Variable([1.0, 2.0])
    checkpoint = tf.train.Checkpoint(w=w)

out_dir = os.environ.get("OUT_DIR", "/tmp/distfix-ckpt")
manager = tf.train.CheckpointManager(checkpoint, _worker_path(os.path.join(out_dir, "mgr"), strategy), max_to_keep=1)
for epoch in range(4):
    w.assign_add([1.0, 1.0])
    if epoch % 2 == 1:
        checkpoint.write(_worker_path(os.path.join(out_dir, f"epoch{epoch}"), strategy))
        _remove_worker_copy(os.path.join(out_dir, f"epoch{epoch}"), strategy)
    manager.save()
    if strategy.cluster_resolver.task_type in (None, "chief") or strategy.cluster_resolver.task_id == 0:
        print("saved epoch", epoch)
