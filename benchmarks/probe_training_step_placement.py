"""Probe for TFD103, TFD104, TFD107 and TFD402: where a training step runs and under which strategy.

On 2 logical CPU devices under `MirroredStrategy`, once under Keras 3 and once under tf-keras
(`TF_USE_LEGACY_KERAS=1`), each in its own process; the model is one `Dense(1)` on 2 inputs,
the global batch 4 rows, SGD(0.01):

- TFD103: a step (`GradientTape` + `apply_gradients`) called directly inside
  `strategy.scope()`, called directly outside it, and (the alternative) through
  `strategy.run` in a `tf.function` on a distributed dataset; each prints the rows one call saw.
- TFD104: a model built and compiled under one `MirroredStrategy`, then `fit`, `compile` or a
  `strategy.run` update inside a second one's scope; the alternative: each strategy builds and
  trains its own model, a new model per strategy made in a loop.
- TFD107: a `train_step` override decorated with `@tf.function` under `fit`, with and without a
  strategy, against the same override undecorated.
- TFD402: 20 steps of `strategy.run` called eagerly against the same steps in a `tf.function`:
  the weights after them, the time taken and what TensorFlow logs.

    python benchmarks/probe_training_step_placement.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-27):

    keras 3 | TFD103 step called directly, inside scope: ValueError: DistributedVariable.handle is not available outside the replica context or a `tf.distribute.Strategy.update()` call.
    keras 3 | TFD103 step called directly, outside scope: ran; rows per step call [4]; weights [0.33, 0.2, -0.13]
    keras 3 | TFD103 alternative: strategy.run in tf.function: ran; rows per step call [2, 2]; weights [0.33, 0.2, -0.13]
    keras 3 | TFD104 first strategy's model, fit in second's scope: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x7fbc0c692310> is not <te
    keras 3 | TFD104 first strategy's model, compile in second's scope: ran
    keras 3 | TFD104 first strategy's model, strategy.run update in second's scope: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x7fbc0c55e550> is not <te
    keras 3 | TFD104 alternative: second strategy builds its own model: ran
    keras 3 | TFD104 new strategy per iteration, model kept: RuntimeError: iteration 1: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrat
    keras 3 | TFD104 new strategy per iteration, new model: ran both iterations
    keras 3 | TFD107 @tf.function train_step, MirroredStrategy: trained; weights [1.0872, 1.112, 0.0248]
    keras 3 | TFD107 plain train_step, MirroredStrategy: trained; weights [1.0872, 1.112, 0.0248]
    keras 3 | TFD107 @tf.function train_step, no strategy: trained; weights [0.3518, 0.228, -0.1238]
    keras 3 | TFD402 eager strategy.run: weights [0.33563, 0.23597, -0.09966]; 16 steps in 2.15 s; warnings ['Using MirroredStrategy eagerly has significant overhead currently. We will be working on improving this in the future, b']
    keras 3 | TFD402 alternative: strategy.run in tf.function: weights [0.33563, 0.23597, -0.09966]; 16 steps in 0.10 s; warnings []
    tf-keras | TFD103 step called directly, inside scope: ValueError: DistributedVariable.handle is not available outside the replica context or a `tf.distribute.Strategy.update()` call.
    tf-keras | TFD103 step called directly, outside scope: ran; rows per step call [4]; weights [0.33, 0.2, -0.13]
    tf-keras | TFD103 alternative: strategy.run in tf.function: ran; rows per step call [2, 2]; weights [0.33, 0.2, -0.13]
    tf-keras | TFD104 first strategy's model, fit in second's scope: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x7f34cbb46ad0> is not <te
    tf-keras | TFD104 first strategy's model, compile in second's scope: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x7f34c895d490> is not <te
    tf-keras | TFD104 first strategy's model, strategy.run update in second's scope: RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x7f34d08e61d0> is not <te
    tf-keras | TFD104 alternative: second strategy builds its own model: ran
    tf-keras | TFD104 new strategy per iteration, model kept: RuntimeError: iteration 1: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrat
    tf-keras | TFD104 new strategy per iteration, new model: ran both iterations
    tf-keras | TFD107 @tf.function train_step, MirroredStrategy: RuntimeError: RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` passed to `strategy.run()` c
    tf-keras | TFD107 plain train_step, MirroredStrategy: trained; weights [1.0872, 1.112, 0.0248]
    tf-keras | TFD107 @tf.function train_step, no strategy: trained; weights [0.3518, 0.228, -0.1238]
    tf-keras | TFD402 eager strategy.run: weights [0.33563, 0.23597, -0.09966]; 16 steps in 2.39 s; warnings ['Using MirroredStrategy eagerly has significant overhead currently. We will be working on improving this in the future, b']
    tf-keras | TFD402 alternative: strategy.run in tf.function: weights [0.33563, 0.23597, -0.09966]; 16 steps in 0.06 s; warnings []
"""

from __future__ import annotations

import logging
import sys
import time

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
Y = [[1.0], [2.0], [3.0], [4.0]]


def _model(tf):
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
    optimizer = tf.keras.optimizers.SGD(0.01)
    optimizer.build(model.trainable_variables)
    return model, optimizer


def _weights(tf, model) -> list[float]:
    return [round(float(x), 5) for w in model.get_weights() for x in w.ravel()]


def _step_fn(tf, model, optimizer, seen: list[int]):
    def step(x, y):
        seen.append(int(x.shape[0]))
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 4.0
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def _direct_step(tf, strategy, where: str) -> str:
    with strategy.scope():
        model, optimizer = _model(tf)
    seen: list[int] = []
    step = _step_fn(tf, model, optimizer, seen)
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)
    if where == "inside scope":
        with strategy.scope():
            for x, y in data:
                step(x, y)
    elif where == "outside scope":
        for x, y in data:
            step(x, y)
    else:
        run = tf.function(lambda x, y: strategy.run(step, args=(x, y)))
        for x, y in strategy.experimental_distribute_dataset(data):
            run(x, y)
    return f"ran; rows per step call {seen}; weights {_weights(tf, model)}"


def _two_strategies(tf, use: str) -> str:
    first = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    second = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    x, y = tf.constant(X), tf.constant(Y)
    with first.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse")
        counter = tf.Variable(0.0)
    with second.scope():
        if use == "fit":
            model.fit(x, y, epochs=1, verbose=0)
        elif use == "compile":
            model.compile(optimizer="sgd", loss="mse")
        elif use == "strategy.run update":
            tf.function(lambda: second.run(lambda: counter.assign_add(1.0)))()
        else:  # the alternative: the second strategy builds and trains its own model
            own = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            own.compile(optimizer="sgd", loss="mse")
            own.fit(x, y, epochs=1, verbose=0)
    return "ran"


def _strategy_per_iteration(tf, keep_model: bool) -> str:
    x, y = tf.constant(X), tf.constant(Y)
    model = None
    for iteration in range(2):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            if model is None or not keep_model:
                model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
                model.compile(optimizer="sgd", loss="mse")
            try:
                model.fit(x, y, epochs=1, verbose=0)
            except Exception as exc:
                raise RuntimeError(f"iteration {iteration}: {str(exc).splitlines()[0][:110]}") from exc
    return "ran both iterations"


def _keras_train_step(tf, decorated: bool, strategy) -> str:
    class Regressor(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

    if decorated:
        Regressor.train_step = tf.function(Regressor.train_step)
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)
    if strategy is None:
        model = Regressor()
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01))
    else:
        with strategy.scope():
            model = Regressor()
            model.compile(optimizer=tf.keras.optimizers.SGD(0.01))
    model.fit(data, epochs=2, verbose=0)
    return f"trained; weights {_weights(tf, model)}"


class _Records(logging.Handler):
    """Keeps the messages TensorFlow's Python logger emits."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage().splitlines()[0][:120])


def _eager_or_compiled(tf, strategy, compiled: bool) -> str:
    with strategy.scope():
        model, optimizer = _model(tf)
    step = _step_fn(tf, model, optimizer, [])
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X * 5), tf.constant(Y * 5))).batch(4)
    run = (lambda x, y: strategy.run(step, args=(x, y)))
    if compiled:
        run = tf.function(run)
    batches = list(strategy.experimental_distribute_dataset(data))
    run(*batches[0])  # the first call traces (compiled) or warms up (eager): not timed
    records = _Records()
    tf.get_logger().addHandler(records)
    start = time.perf_counter()
    for _ in range(4):
        for x, y in batches[1:]:
            run(x, y)
    elapsed = time.perf_counter() - start
    tf.get_logger().removeHandler(records)
    return f"weights {_weights(tf, model)}; 16 steps in {elapsed:.2f} s; warnings {sorted(set(records.messages))}"


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    cases = [(f"TFD103 step called directly, {where}", lambda w=where: _direct_step(tf, strategy, w))
             for where in ("inside scope", "outside scope")]
    cases.append(("TFD103 alternative: strategy.run in tf.function", lambda: _direct_step(tf, strategy, "strategy.run")))
    cases += [(f"TFD104 first strategy's model, {use} in second's scope", lambda u=use: _two_strategies(tf, u))
              for use in ("fit", "compile", "strategy.run update")]
    cases.append(("TFD104 alternative: second strategy builds its own model", lambda: _two_strategies(tf, "own model")))
    cases.append(("TFD104 new strategy per iteration, model kept", lambda: _strategy_per_iteration(tf, True)))
    cases.append(("TFD104 new strategy per iteration, new model", lambda: _strategy_per_iteration(tf, False)))
    cases += [
        ("TFD107 @tf.function train_step, MirroredStrategy", lambda: _keras_train_step(tf, True, strategy)),
        ("TFD107 plain train_step, MirroredStrategy", lambda: _keras_train_step(tf, False, strategy)),
        ("TFD107 @tf.function train_step, no strategy", lambda: _keras_train_step(tf, True, None)),
        ("TFD402 eager strategy.run", lambda: _eager_or_compiled(tf, strategy, False)),
        ("TFD402 alternative: strategy.run in tf.function", lambda: _eager_or_compiled(tf, strategy, True)),
    ]
    print_outcomes(flavour, cases)


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
    else:
        rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
