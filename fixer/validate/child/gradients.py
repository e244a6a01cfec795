"""The size of every update a Keras optimizer applies: the global norm of the all-reduced gradients.

Adam and RMSprop normalise the gradient, so a loss N times too large moves the weights almost
exactly as the right one does: comparing weights cannot show it. The gradients they are given
can. Keras 3's TensorFlow optimizer sums the replicas' gradients in ``_all_reduce_sum_gradients``
(in the replica context, before every update); its result is what the update is made of. Each
call records, from replica 0, the global norm of that sum. tf-keras optimizers are not observed
(the comparison with a 1-replica reference is made for single-worker runs, where Keras 3 is the
Keras of TensorFlow 2.16+).
"""

from __future__ import annotations

from typing import Any

from .state import DUMP, compiled_with_xla

MAX_UPDATES = 50


def _record(replica: Any, norm: Any) -> None:
    if int(replica) == 0 and len(DUMP["gradients"]) < MAX_UPDATES:
        DUMP["gradients"].append(float(norm))


def install(tf: Any) -> None:
    """Record the norm of the summed gradients of every Keras 3 optimizer update."""
    try:
        from keras.src.backend.tensorflow.optimizer import TFOptimizer
    except ImportError:  # another Keras 3 layout: updates are not observed
        return
    original = TFOptimizer._all_reduce_sum_gradients

    def all_reduce_sum_gradients(self: Any, grads_and_vars: Any) -> Any:
        reduced = original(self, grads_and_vars)
        context = tf.distribute.get_replica_context()
        dense = [tf.convert_to_tensor(g) for g, _ in reduced if g is not None]
        if context is None or not dense or (tf.inside_function() and compiled_with_xla()):
            return reduced  # nothing to measure, or an XLA step (jit_compile) that cannot call back
        norm = tf.linalg.global_norm([tf.cast(g, tf.float64) for g in dense])
        replica = tf.convert_to_tensor(context.replica_id_in_sync_group)
        if tf.inside_function():
            tf.numpy_function(_record, [replica, norm], Tout=[], stateful=True)
        else:
            _record(replica, norm)
        return reduced

    TFOptimizer._all_reduce_sum_gradients = all_reduce_sum_gradients
