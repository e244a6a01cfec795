"""Run as a script in a child process: form the cluster from TF_CONFIG and all-reduce once.

Prints ``STAGE <name> <seconds since start>`` as it goes (import, strategy, allreduce), so the
parent can say where a hang or failure happened, and ``RESULT <value> <replicas> <seconds>`` at
the end. Each replica contributes ``replica_id + 1``, so the sum is R(R+1)/2 only when every
replica of every worker took part.
Nothing touches the devices before the strategy exists: listing logical devices first makes
MultiWorkerMirroredStrategy fail with "Collective ops must be configured at program startup".
"""

import os
import sys
import time
from typing import Any

START = time.monotonic()

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main() -> int:
    """Form the cluster and print the stages and the all-reduce result (or FAILED and one line)."""
    try:
        return _probe()
    except Exception as exc:  # the parent reports it as one line, with the stage it happened in
        first = (str(exc).strip().splitlines() or [""])[0]
        print(f"FAILED {type(exc).__name__}: {first}", flush=True)
        return 1


def _stage(name: str) -> None:
    print(f"STAGE {name} {time.monotonic() - START:.3f}", flush=True)


def _probe() -> int:
    _stage("import")
    import tensorflow as tf

    _stage("strategy")
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
    )
    _stage("allreduce")

    def contribution() -> Any:
        replica = tf.distribute.get_replica_context().replica_id_in_sync_group
        return tf.cast(replica, tf.float32) + 1.0

    @tf.function  # type: ignore[untyped-decorator]  # TensorFlow ships no type information
    def all_reduce() -> Any:
        return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(contribution), axis=None)

    total = float(all_reduce())
    print(f"RESULT {total} {strategy.num_replicas_in_sync} {time.monotonic() - START:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
