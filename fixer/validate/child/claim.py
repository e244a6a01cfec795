"""The reference run's claim: the script is told it has the N replicas of the run it is compared with.

Most scripts derive their global batch from the replica count (``GLOBAL_BATCH_SIZE =
PER_REPLICA * strategy.num_replicas_in_sync``, ``batch_size=64 * strategy.num_replicas_in_sync``).
A plain 1-replica run of such a script trains on batches N times smaller, so it is no reference
for the N-replica run. In the reference run, the script's own reads of
``strategy.num_replicas_in_sync`` in cross-replica context, outside any ``tf.function`` (where
batch sizes, learning rates and step counts are set up) return N, so the one replica reads the
same global batches. Reads by TensorFlow and Keras, and reads in a replica function or a traced
function (where a script scales its loss by the replica count), get the true count, 1, so the
loss is computed as one replica really computes it. Each claimed read is recorded with its line.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .state import DUMP, SETTINGS, called_by_library

if TYPE_CHECKING:
    from types import FrameType


def _script_line() -> int | None:
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename != SETTINGS["script"]:
        frame = frame.f_back
    return frame.f_lineno if frame is not None else None


def install(tf: Any) -> None:
    """Make the script's set-up reads of ``num_replicas_in_sync`` return ``claim_replicas``."""
    claimed = SETTINGS.get("claim_replicas")
    if not claimed:
        return
    from tensorflow.python.distribute import distribute_lib

    true_count = distribute_lib.StrategyBase.num_replicas_in_sync.fget

    def num_replicas_in_sync(self: Any) -> Any:
        count = true_count(self)
        in_replica_function = tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
        if called_by_library(1) or tf.inside_function() or in_replica_function:
            return count
        line = _script_line()
        if line not in DUMP["claimed"]:
            DUMP["claimed"].append(line)
        return claimed

    distribute_lib.StrategyBase.num_replicas_in_sync = property(
        num_replicas_in_sync, doc=distribute_lib.StrategyBase.num_replicas_in_sync.__doc__
    )
