"""Premises of ledger20a: distribution names seen through `tf = tf.compat.v1`, and what
`AutoShardPolicy.DATA` does to a dataset each worker already reads alone.

Part 1: two vendor trees (Alibaba's Alink deep-learning runner, SQLFlow's PAI module) bind `tf` to
`tensorflow.compat.v1` (`tf = tf.compat.v1` under a version test, `import tensorflow.compat.v1 as tf`)
and then build `tf.distribute.experimental.ParameterServerStrategy()` (no resolver) and
`tf.distribute.experimental.MultiWorkerMirroredStrategy()` for an Estimator's `RunConfig`. The probe
prints, for the v1 and the v2 namespace:

- whether `distribute.MultiWorkerMirroredStrategy` (the stable name TFD401's rename writes) exists;
- the experimental ParameterServerStrategy's constructor signature (TFD604's premise: the v2 class
  needs a `cluster_resolver`);
- what constructing that class with no argument and no TF_CONFIG does.

Part 2: each worker's dataset is its own stream (a Flink operator feeds every TensorFlow worker its
own partition, dl-on-flink). Two simulated workers read disjoint halves of 0..7, as such a source
gives them; `AutoShardPolicy.DATA` (TFD202's fix) then keeps every second element of what each
worker already owns, so half of every worker's data is never read. The sharding is the one tf.data
applies under MultiWorkerMirroredStrategy (`benchmarks/probe_worker_inputs_and_seeds.py` measures it
with two real workers: AUTO on a range gives worker 0 [0, 1, 4, 5]); here `Dataset.shard` with the
worker's index stands for it, in one process.

    python benchmarks/probe_ledger20a_premises.py

Output on TensorFlow 2.21, 2026-11-28:

    v1 | distribute.MultiWorkerMirroredStrategy exists: False
    v2 | distribute.MultiWorkerMirroredStrategy exists: True
    v1 | experimental.ParameterServerStrategy(self, cluster_resolver=None)
    v2 | experimental.ParameterServerStrategy(self, cluster_resolver: ClusterResolver, variable_partitioner: ...
    v1 | experimental.ParameterServerStrategy() without TF_CONFIG: builds ParameterServerStrategyV1
    v2 | experimental.ParameterServerStrategy() without TF_CONFIG: TypeError
    worker 0 | its own stream: [0, 1, 2, 3] | after DATA sharding: [0, 2]
    worker 1 | its own stream: [4, 5, 6, 7] | after DATA sharding: [5, 7]
    elements read by some worker: 4 of 8
"""

from __future__ import annotations

import inspect
import os
import re

os.environ.pop("TF_CONFIG", None)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

NAMESPACES = {"v1": tf.compat.v1, "v2": tf}
WORKERS = 2


def _short_signature(cls: type) -> str:
    """The constructor's signature with module paths cut to the class names."""
    return re.sub(r"\b[\w.]+\.(\w+)", r"\1", str(inspect.signature(cls.__init__)))


def part_one() -> None:
    """The stable MWMS name, and the experimental PS class's constructor, in each namespace."""
    for label, ns in NAMESPACES.items():
        stable = hasattr(ns.distribute, "MultiWorkerMirroredStrategy")
        print(f"{label} | distribute.MultiWorkerMirroredStrategy exists: {stable}")
    for label, ns in NAMESPACES.items():
        signature = _short_signature(ns.distribute.experimental.ParameterServerStrategy)
        print(f"{label} | experimental.ParameterServerStrategy{signature}")
    for label, ns in NAMESPACES.items():
        try:
            made = ns.distribute.experimental.ParameterServerStrategy()
            outcome = f"builds {type(made).__name__}"
        except TypeError:
            outcome = "TypeError"
        print(f"{label} | experimental.ParameterServerStrategy() without TF_CONFIG: {outcome}")


def part_two() -> None:
    """Each worker owns a disjoint half; DATA sharding by the worker index drops part of each half."""
    kept: set[int] = set()
    for index in range(WORKERS):
        own = tf.data.Dataset.range(index * 4, index * 4 + 4)  # the source gives each worker its half
        after = own.shard(WORKERS, index)
        after_list = [int(x) for x in after]
        kept.update(after_list)
        print(f"worker {index} | its own stream: {[int(x) for x in own]} | after DATA sharding: {after_list}")
    print(f"elements read by some worker: {len(kept)} of 8")


if __name__ == "__main__":
    part_one()
    part_two()
