"""TFD302's premise, method by method: which strategy methods raise inside a replica function.

TFD302 reports `strategy.reduce`, `strategy.gather`, `strategy.experimental_local_results` and a
nested `strategy.run` inside the function given to `strategy.run`. This probe calls each of them
there (two logical CPUs, MirroredStrategy, a replica-local variable as the value), eagerly, inside a
`tf.function`, and inside `extended.call_for_each_replica` run from a `merge_call` (the gradient
accumulation shape of MLPerf-style training loops). Plain TensorFlow, no Keras, so one run suffices:

    python benchmarks/probe_cross_replica_methods_in_replica_fn.py

Output on TensorFlow 2.21, 2026-11-27 (ledger5, issue 28):

    tf | reduce, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf | reduce, tf.function: RuntimeError: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf | gather, eager: RuntimeError: tf.distribute.Strategy.gather method requires cross-replica context, use get_replica_context().all_gather() instead
    tf | gather, tf.function: RuntimeError: RuntimeError: tf.distribute.Strategy.gather method requires cross-replica context, use get_replica_context().all_gather() instead
    tf | experimental_local_results, eager: no error, replicas return [1.0, 1.0]
    tf | experimental_local_results, tf.function: no error, replicas return [1.0, 1.0]
    tf | nested strategy.run, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf | nested strategy.run, tf.function: RuntimeError: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf | experimental_local_results in call_for_each_replica under merge_call: no error, replicas return [1.0, 1.0]

`reduce`, `gather` and a nested `run` raise; `experimental_local_results`
does not need cross-replica context: in a replica function it returns the local values.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from probing import print_outcomes, two_cpu_replicas  # noqa: E402


def _in_replica_fn(tf, strategy, variable, method: str, compiled: bool) -> str:  # noqa: ANN001
    """Call ``method`` inside the replica function; report what the replicas return."""

    def replica_fn():
        if method == "reduce":
            return strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0), axis=None)
        if method == "gather":
            return strategy.gather(tf.constant([1.0]), axis=0)[0]
        if method == "experimental_local_results":
            return strategy.experimental_local_results(variable)[0] + 0.0
        return strategy.run(lambda: tf.constant(1.0))  # nested run

    step = tf.function(replica_fn) if compiled else replica_fn
    out = strategy.run(step)
    return f"no error, replicas return {[float(v) for v in strategy.experimental_local_results(out)]}"


def _under_merge_call(tf, strategy, variable) -> str:  # noqa: ANN001
    """experimental_local_results in a function that call_for_each_replica runs from a merge_call."""

    def merge(distribution):  # noqa: ANN001, ANN202
        def per_replica():
            return strategy.experimental_local_results(variable)[0] + 0.0

        return distribution.extended.call_for_each_replica(per_replica, args=())

    @tf.function
    def step():
        return tf.distribute.get_replica_context().merge_call(merge)

    out = strategy.run(step)
    return f"no error, replicas return {[float(v) for v in strategy.experimental_local_results(out)]}"


def main() -> None:
    """Every case once (no Keras is involved)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    with strategy.scope():
        variable = tf.Variable(
            1.0, synchronization=tf.VariableSynchronization.ON_READ, aggregation=tf.VariableAggregation.NONE
        )
    cases = []
    for method in ("reduce", "gather", "experimental_local_results", "nested strategy.run"):
        for compiled in (False, True):
            mode = "tf.function" if compiled else "eager"
            case = lambda m=method, c=compiled: _in_replica_fn(tf, strategy, variable, m, c)  # noqa: E731
            cases.append((f"{method}, {mode}", case))
    cases.append(("experimental_local_results in call_for_each_replica under merge_call",
                  lambda: _under_merge_call(tf, strategy, variable)))
    print_outcomes("tf", cases)


if __name__ == "__main__":
    main()
