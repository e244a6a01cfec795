"""Run as a script in a child process: form the cluster from TF_CONFIG and all-reduce once.

Prints `STAGE <name>` as it goes, so the parent can say where a hang or failure happened, and
`RESULT <value> <replicas>` at the end.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main() -> int:
    print("STAGE import", flush=True)
    import tensorflow as tf

    print("STAGE strategy", flush=True)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        cluster_resolver=tf.distribute.cluster_resolver.TFConfigClusterResolver()
    )
    print("STAGE allreduce", flush=True)

    @tf.function
    def all_reduce():
        value = strategy.run(lambda: tf.constant(1.0))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, value, axis=None)

    total = float(all_reduce())
    print(f"RESULT {total} {strategy.num_replicas_in_sync}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
