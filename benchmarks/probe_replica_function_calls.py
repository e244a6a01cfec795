"""Probe for TFD102, TFD106, TFD108, TFD201, TFD301 and TFD302: what a replica function may do.

On 2 logical CPU devices under `MirroredStrategy`, once under Keras 3 and once under tf-keras
(`TF_USE_LEGACY_KERAS=1`), each in its own process. Each case runs `strategy.run` inside a
`tf.function` (and, where the rule says "eager and tf.function alike", eagerly too) and prints
the variable's copies on each replica or the error raised:

- TFD102: only replica 0 assigns `[5, 7]` to a mirrored variable (default aggregation, then
  `MEAN`); the alternative: every replica assigns.
- TFD301: three SGD steps (lr 0.1) on `w` from each replica's own gradient, then from the
  all-reduced (MEAN) gradient, against one device on the whole batch.
- TFD302: `strategy.reduce` called inside the replica function.
- TFD106: Keras `fit`, `evaluate`, `predict`, `train_on_batch`, `predict_on_batch` in a replica function.
- TFD108: a `strategy.run` result used as a tensor; the alternative: `strategy.reduce`.
- TFD201: the rows each replica receives from a plain dataset batch, a NumPy batch and a
  distributed dataset.

    python benchmarks/probe_replica_function_calls.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-27):

    keras 3 | TFD102 replica 0 assigns, aggregation NONE: copies [[5.0, 7.0], [0.0, 0.0]], cross-replica read [5.0, 7.0]
    keras 3 | TFD102 replica 0 assigns, aggregation MEAN: RuntimeError: RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` passed to `strategy.run()` c
    keras 3 | TFD102 replica 0 assigns, aggregation MEAN, eager: RuntimeError: Some replicas made a different number of replica_context().merge_call() calls.
    keras 3 | TFD102 replica 0 assigns, aggregation ONLY_FIRST_REPLICA: RuntimeError: RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` passed to `strategy.run()` c
    keras 3 | TFD102 replica 0 assigns, aggregation ONLY_FIRST_REPLICA, eager: RuntimeError: Some replicas made a different number of replica_context().merge_call() calls.
    keras 3 | TFD102 alternative: every replica assigns: copies [[5.0, 7.0], [5.0, 7.0]], cross-replica read [5.0, 7.0]
    keras 3 | TFD301 per-replica gradient, 3 steps: copies [[0.38998, 0.34673], [0.20108, 0.1529]]
    keras 3 | TFD301 alternative: all-reduced (MEAN) gradient, 3 steps: copies [[0.29256, 0.2554], [0.29256, 0.2554]]
    keras 3 | TFD301 one device, whole batch, 3 steps: weights [0.29256, 0.2554]
    keras 3 | TFD302 strategy.reduce in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    keras 3 | TFD302 strategy.reduce in replica fn, tf.function: RuntimeError: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    keras 3 | TFD106 model.fit in replica fn, eager: ValueError: next(iterator) should be called from outside of replica_fn. e.g. strategy.run(replica_fn, args=(next(iterator),))
    keras 3 | TFD106 model.fit in replica fn, tf.function: ValueError: ValueError: next(iterator) should be called from outside of replica_fn. e.g. strategy.run(replica_fn, args=(next(iterator),))
    keras 3 | TFD106 model.evaluate in replica fn, eager: ValueError: next(iterator) should be called from outside of replica_fn. e.g. strategy.run(replica_fn, args=(next(iterator),))
    keras 3 | TFD106 model.evaluate in replica fn, tf.function: ValueError: ValueError: next(iterator) should be called from outside of replica_fn. e.g. strategy.run(replica_fn, args=(next(iterator),))
    keras 3 | TFD106 model.predict in replica fn, eager: ValueError: next(iterator) should be called from outside of replica_fn. e.g. strategy.run(replica_fn, args=(next(iterator),))
    keras 3 | TFD106 model.predict in replica fn, tf.function: ValueError: ValueError: next(iterator) should be called from outside of replica_fn. e.g. strategy.run(replica_fn, args=(next(iterator),))
    keras 3 | TFD106 model.train_on_batch in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    keras 3 | TFD106 model.train_on_batch in replica fn, tf.function: RuntimeError: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    keras 3 | TFD106 model.predict_on_batch in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    keras 3 | TFD106 model.predict_on_batch in replica fn, tf.function: RuntimeError: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    keras 3 | TFD108 PerReplica result, .numpy(): AttributeError: 'PerReplica' object has no attribute 'numpy'
    keras 3 | TFD108 PerReplica result, float(): TypeError: float() argument must be a string or a real number, not 'PerReplica'
    keras 3 | TFD108 PerReplica result, np.mean: TypeError: unsupported operand type(s) for /: 'PerReplica' and 'int'
    keras 3 | TFD108 PerReplica result, f-string format: TypeError: unsupported format string passed to PerReplica.__format__
    keras 3 | TFD108 PerReplica result, tf.reduce_sum: ValueError: It looks like you are using a PerReplica object while not inside a replica context, which is not supported. Try running your op or function inside a r
    keras 3 | TFD108 PerReplica result, print/str: PerReplica:{   0: tf.Tensor(2.0, shape=(), dtype=float32),   1: tf.Tensor(2.0, shape=(), dtype=float32) }
    keras 3 | TFD108 PerReplica result, alternative: strategy.reduce(SUM) = 4.0
    keras 3 | TFD201 plain tf.data batch given to strategy.run: replicas see [[1.0, 3.0, 5.0, 7.0], [1.0, 3.0, 5.0, 7.0]]
    keras 3 | TFD201 NumPy batch given to strategy.run: replicas see [[1.0, 3.0, 5.0, 7.0], [1.0, 3.0, 5.0, 7.0]]
    keras 3 | TFD201 experimental_distribute_dataset given to strategy.run: replicas see [[1.0, 3.0], [5.0, 7.0]]
    tf-keras | TFD102 replica 0 assigns, aggregation NONE: copies [[5.0, 7.0], [0.0, 0.0]], cross-replica read [5.0, 7.0]
    tf-keras | TFD102 replica 0 assigns, aggregation MEAN: RuntimeError: RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` passed to `strategy.run()` c
    tf-keras | TFD102 replica 0 assigns, aggregation MEAN, eager: RuntimeError: Some replicas made a different number of replica_context().merge_call() calls.
    tf-keras | TFD102 replica 0 assigns, aggregation ONLY_FIRST_REPLICA: RuntimeError: RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` passed to `strategy.run()` c
    tf-keras | TFD102 replica 0 assigns, aggregation ONLY_FIRST_REPLICA, eager: RuntimeError: Some replicas made a different number of replica_context().merge_call() calls.
    tf-keras | TFD102 alternative: every replica assigns: copies [[5.0, 7.0], [5.0, 7.0]], cross-replica read [5.0, 7.0]
    tf-keras | TFD301 per-replica gradient, 3 steps: copies [[0.38998, 0.34673], [0.20108, 0.1529]]
    tf-keras | TFD301 alternative: all-reduced (MEAN) gradient, 3 steps: copies [[0.29256, 0.2554], [0.29256, 0.2554]]
    tf-keras | TFD301 one device, whole batch, 3 steps: weights [0.29256, 0.2554]
    tf-keras | TFD302 strategy.reduce in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf-keras | TFD302 strategy.reduce in replica fn, tf.function: RuntimeError: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf-keras | TFD106 model.fit in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf-keras | TFD106 model.fit in replica fn, tf.function: RuntimeError: RuntimeError: Detected a call to `Model.fit` inside a `tf.function`. `Model.fit is a high-level endpoint that manages its own `tf.function`. Please mo
    tf-keras | TFD106 model.evaluate in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf-keras | TFD106 model.evaluate in replica fn, tf.function: RuntimeError: RuntimeError: Detected a call to `Model.evaluate` inside a `tf.function`. `Model.evaluate is a high-level endpoint that manages its own `tf.function`.
    tf-keras | TFD106 model.predict in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf-keras | TFD106 model.predict in replica fn, tf.function: RuntimeError: RuntimeError: Detected a call to `Model.predict` inside a `tf.function`. `Model.predict is a high-level endpoint that manages its own `tf.function`. P
    tf-keras | TFD106 model.train_on_batch in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf-keras | TFD106 model.train_on_batch in replica fn, tf.function: RuntimeError: RuntimeError: Detected a call to `Model.train_on_batch` inside a `tf.function`. `Model.train_on_batch is a high-level endpoint that manages its own `t
    tf-keras | TFD106 model.predict_on_batch in replica fn, eager: RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call()
    tf-keras | TFD106 model.predict_on_batch in replica fn, tf.function: RuntimeError: RuntimeError: Detected a call to `Model.predict_on_batch` inside a `tf.function`. `Model.predict_
"""

from __future__ import annotations

import sys

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]  # global batch of 4: 2 rows per replica
Y = [[1.0], [2.0], [3.0], [4.0]]


def _copies(tf, strategy, variable) -> str:
    return str([[round(float(x), 5) for x in tf.reshape(local, [-1]).numpy()] for local in strategy.experimental_local_results(variable)])


def _replica_zero_assign(tf, strategy, aggregation: str, everyone: bool, compiled: bool = True) -> str:
    with strategy.scope():
        v = tf.Variable([0.0, 0.0], aggregation=getattr(tf.VariableAggregation, aggregation))

    def replica_fn():
        if everyone:
            v.assign([5.0, 7.0])
        elif tf.distribute.get_replica_context().replica_id_in_sync_group == 0:
            v.assign([5.0, 7.0])

    run = (lambda: strategy.run(replica_fn))
    tf.function(run)() if compiled else run()
    return f"copies {_copies(tf, strategy, v)}, cross-replica read {v.numpy().tolist()}"


def _sgd_steps(tf, strategy, aggregate: bool) -> str:
    with strategy.scope():
        w = tf.Variable([[0.5], [0.5]])
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4).repeat(3)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        grad = tape.gradient(loss, w)
        if aggregate:
            grad = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grad)
        w.assign_sub(0.01 * grad)

    step = tf.function(lambda x, y: strategy.run(replica_step, args=(x, y)))
    for x, y in strategy.experimental_distribute_dataset(data):
        step(x, y)
    return f"copies {_copies(tf, strategy, w)}"


def _one_device_sgd(tf) -> str:
    w = tf.Variable([[0.5], [0.5]])
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(X), w) - tf.constant(Y)))
        w.assign_sub(0.01 * tape.gradient(loss, w))
    return f"weights {[round(float(x), 5) for x in tf.reshape(w, [-1]).numpy()]}"


def _reduce_inside(tf, strategy, compiled: bool) -> str:
    def replica_fn():
        return strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0), axis=None)

    run = (lambda: strategy.run(replica_fn))
    result = tf.function(run)() if compiled else run()
    return f"ran, returned {result}"


def _keras_in_replica(tf, strategy, method: str, compiled: bool) -> str:
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
    x, y = tf.constant(X), tf.constant(Y)

    def replica_fn():
        if method in ("fit", "evaluate", "train_on_batch"):
            getattr(model, method)(x, y, verbose=0) if method != "train_on_batch" else model.train_on_batch(x, y)
        else:
            getattr(model, method)(x, verbose=0) if method == "predict" else model.predict_on_batch(x)

    run = (lambda: strategy.run(replica_fn))
    tf.function(run)() if compiled else run()
    return "ran"


def _per_replica_as_tensor(tf, strategy, use: str) -> str:
    import numpy as np

    loss = tf.function(lambda: strategy.run(lambda: tf.constant(2.0)))()
    if use == ".numpy()":
        return str(loss.numpy())
    if use == "float()":
        return str(float(loss))
    if use == "np.mean":
        return str(np.mean(loss))
    if use == "f-string format":
        return f"{loss:.3f}"
    if use == "tf.reduce_sum":
        return str(tf.reduce_sum(loss))
    if use == "print/str":
        return str(loss).replace("\n", " ")
    return f"strategy.reduce(SUM) = {float(strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None))}"


def _rows_per_replica(tf, strategy, source: str) -> str:
    import numpy as np

    rows = tf.constant([[1.0], [3.0], [5.0], [7.0]])
    plain = tf.data.Dataset.from_tensor_slices(rows).batch(4)
    if source == "plain tf.data batch":
        batch = next(iter(plain))
    elif source == "NumPy batch":
        batch = np.array([[1.0], [3.0], [5.0], [7.0]], dtype=np.float32)
    else:
        batch = next(iter(strategy.experimental_distribute_dataset(plain)))
    seen = strategy.run(tf.function(lambda b: tf.reshape(b, [-1])), args=(batch,))
    return f"replicas see {[local.numpy().tolist() for local in strategy.experimental_local_results(seen)]}"


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    cases = [
        ("TFD102 replica 0 assigns, aggregation NONE", lambda: _replica_zero_assign(tf, strategy, "NONE", False)),
        ("TFD102 replica 0 assigns, aggregation MEAN", lambda: _replica_zero_assign(tf, strategy, "MEAN", False)),
        ("TFD102 replica 0 assigns, aggregation MEAN, eager", lambda: _replica_zero_assign(tf, strategy, "MEAN", False, False)),
        ("TFD102 replica 0 assigns, aggregation ONLY_FIRST_REPLICA", lambda: _replica_zero_assign(tf, strategy, "ONLY_FIRST_REPLICA", False)),
        ("TFD102 replica 0 assigns, aggregation ONLY_FIRST_REPLICA, eager",
         lambda: _replica_zero_assign(tf, strategy, "ONLY_FIRST_REPLICA", False, False)),
        ("TFD102 alternative: every replica assigns", lambda: _replica_zero_assign(tf, strategy, "NONE", True)),
        ("TFD301 per-replica gradient, 3 steps", lambda: _sgd_steps(tf, strategy, False)),
        ("TFD301 alternative: all-reduced (MEAN) gradient, 3 steps", lambda: _sgd_steps(tf, strategy, True)),
        ("TFD301 one device, whole batch, 3 steps", lambda: _one_device_sgd(tf)),
        ("TFD302 strategy.reduce in replica fn, eager", lambda: _reduce_inside(tf, strategy, False)),
        ("TFD302 strategy.reduce in replica fn, tf.function", lambda: _reduce_inside(tf, strategy, True)),
    ]
    for method in ("fit", "evaluate", "predict", "train_on_batch", "predict_on_batch"):
        for compiled in (False, True):
            mode = "tf.function" if compiled else "eager"
            cases.append((f"TFD106 model.{method} in replica fn, {mode}",
                          lambda m=method, c=compiled: _keras_in_replica(tf, strategy, m, c)))
    for use in (".numpy()", "float()", "np.mean", "f-string format", "tf.reduce_sum", "print/str", "alternative"):
        cases.append((f"TFD108 PerReplica result, {use}", lambda u=use: _per_replica_as_tensor(tf, strategy, u)))
    for source in ("plain tf.data batch", "NumPy batch", "experimental_distribute_dataset"):
        cases.append((f"TFD201 {source} given to strategy.run", lambda s=source: _rows_per_replica(tf, strategy, s)))
    print_outcomes(flavour, cases)


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
    else:
        rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
