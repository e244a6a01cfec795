"""Probe for TFD110: an optimizer update under a tensor condition in per-replica code.

On 2 logical CPU devices under `MirroredStrategy`, once under Keras 3 and once under tf-keras
(`TF_USE_LEGACY_KERAS=1`), each in its own process. Gradient accumulation over K = 2 steps of a
global batch of 4 (2 rows per replica, loss divided by the global batch), 4 steps, so the
optimizer applies twice; accumulators are ON_READ/SUM variables. The ways:

- `python if on tf.Variable`: in the replica function, `if (step + 1) % K == 0: apply`, `step` a
  `tf.Variable` (autograph turns the `if` into a `tf.cond`); compiled outer step.
- `tf.cond`: `tf.cond(cond, apply, no_op)` in the replica function; compiled outer step.
- `tf.cond, eager run`: the same replica function, `strategy.run` not under `tf.function`.
- `optimizer.iterations`: `if optimizer.iterations < 100: apply`.
- `while on tf.Variable`: `while step < 0: apply` (never entered, traced all the same).
- `for over tf.range`: `for _ in tf.range(1 - (step + 1) % K): apply` (autograph's while loop).
- `python if on int`: `if K == 1:` with the Python int K = 2, decided when the step is traced
  (no update is traced, so the weights stay at 1.0; the point is that it runs).
- `fix a`: accumulate in one compiled `strategy.run` step, apply in another, Python decides.
- `fix b`: one compiled outer step: `strategy.run(accumulate)`, then the tensor `if` in
  cross-replica context around `strategy.run(apply)`.
- `fit train_step tf.cond`: a `train_step` override wrapping `apply_gradients` in `tf.cond`.
- `fit gradient_accumulation_steps=2`: Keras 3's own accumulation, compiled in the scope.
- `... no strategy`: the same without a strategy (it is the strategy that breaks it).

A single device doing the same accumulation (reference) ends at the weights printed first.

    python benchmarks/probe_sync_point_under_condition.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-26):

    keras 3 | one device, reference: weights per replica [[0.3414, 0.215]]
    keras 3 | python if on tf.Variable: RuntimeError: merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` pas
    keras 3 | tf.cond: RuntimeError: merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` pas
    keras 3 | tf.cond, eager run: weights per replica [[0.3414, 0.215], [0.3414, 0.215]]
    keras 3 | optimizer.iterations: RuntimeError: merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` pas
    keras 3 | while on tf.Variable: RuntimeError: merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` pas
    keras 3 | for over tf.range: RuntimeError: merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` pas
    keras 3 | python if on int: weights per replica [[1.0, 1.0], [1.0, 1.0]]
    keras 3 | fix a: weights per replica [[0.3414, 0.215], [0.3414, 0.215]]
    keras 3 | fix b: weights per replica [[0.3414, 0.215], [0.3414, 0.215]]
    keras 3 | fit train_step tf.cond: RuntimeError: merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` pas
    keras 3 | fit gradient_accumulation_steps=2: RuntimeError: merge_call` called while defining a new graph or a tf.function. This can often happen if the function `fn` pas
    keras 3 | fit gradient_accumulation_steps=2, no strategy: weights per replica [[0.3414, 0.215]]
    tf-keras | one device, reference: weights per replica [[0.3414, 0.215]]
    tf-keras | python if on tf.Variable: RuntimeError: merge_call( RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happ
    tf-keras | tf.cond: RuntimeError: merge_call( RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happ
    tf-keras | tf.cond, eager run: weights per replica [[0.3414, 0.215], [0.3414, 0.215]]
    tf-keras | optimizer.iterations: RuntimeError: merge_call( RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happ
    tf-keras | while on tf.Variable: RuntimeError: merge_call( RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happ
    tf-keras | for over tf.range: RuntimeError: merge_call( RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happ
    tf-keras | python if on int: weights per replica [[1.0, 1.0], [1.0, 1.0]]
    tf-keras | fix a: weights per replica [[0.3414, 0.215], [0.3414, 0.215]]
    tf-keras | fix b: weights per replica [[0.3414, 0.215], [0.3414, 0.215]]
    tf-keras | fit train_step tf.cond: RuntimeError: merge_call( RuntimeError: `merge_call` called while defining a new graph or a tf.function. This can often happ
    tf-keras | fit gradient_accumulation_steps=2: TypeError: gradient_accumulation_steps is not a valid argument, kwargs should be empty  for `optimizer_experimental.Optim
    tf-keras | fit gradient_accumulation_steps=2, no strategy: TypeError: gradient_accumulation_steps is not a valid argument, kwargs should be empty  for `optimizer_experimental.Optim
"""

from __future__ import annotations

import os
import subprocess
import sys

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]] * 4  # 4 global batches of 4
Y = [[1.0], [2.0], [3.0], [4.0]] * 4
K = 2
WAYS = (
    "python if on tf.Variable",
    "tf.cond",
    "tf.cond, eager run",
    "optimizer.iterations",
    "while on tf.Variable",
    "for over tf.range",
    "python if on int",
    "fix a",
    "fix b",
    "fit train_step tf.cond",
    "fit gradient_accumulation_steps=2",
    "fit gradient_accumulation_steps=2, no strategy",
)


def _weights(tf, strategy, variable) -> str:
    if not isinstance(variable, tf.Variable):
        variable = variable.value  # a Keras 3 variable wraps the tf.Variable
    locals_ = strategy.experimental_local_results(variable) if strategy is not None else [variable]
    values = [[round(float(v), 4) for v in local.numpy().ravel()] for local in locals_]
    return f"weights per replica {values}"


def _model(tf):
    return tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])


def _reference(tf) -> str:
    """One device, no strategy: accumulate K gradients of the mean loss, apply their mean."""
    model = _model(tf)
    optimizer = tf.keras.optimizers.SGD(0.01)
    accumulated = [tf.zeros_like(v) for v in model.trainable_variables]
    for step in range(4):
        x, y = tf.constant(X[4 * step : 4 * step + 4]), tf.constant(Y[4 * step : 4 * step + 4])
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 4.0
        grads = tape.gradient(loss, model.trainable_variables)
        accumulated = [a + g for a, g in zip(accumulated, grads)]
        if (step + 1) % K == 0:
            optimizer.apply_gradients(zip([a / K for a in accumulated], model.trainable_variables))
            accumulated = [tf.zeros_like(a) for a in accumulated]
    return _weights(tf, None, model.trainable_variables[0])


def _custom_loop(tf, strategy, way: str) -> str:
    with strategy.scope():
        model = _model(tf)
        optimizer = tf.keras.optimizers.SGD(0.01)
        optimizer.build(model.trainable_variables) if hasattr(optimizer, "build") else None
        step = tf.Variable(0, trainable=False)
        accumulators = [
            tf.Variable(
                tf.zeros_like(v),
                trainable=False,
                synchronization=tf.VariableSynchronization.ON_READ,
                aggregation=tf.VariableAggregation.SUM,
            )
            for v in model.trainable_variables
        ]

    def accumulate(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x) - y)) / 4.0  # mean over the global batch
        grads = tape.gradient(loss, model.trainable_variables)
        for a, g in zip(accumulators, grads):
            a.assign_add(g)

    def apply():
        optimizer.apply_gradients(zip([a / K for a in accumulators], model.trainable_variables))
        for a in accumulators:
            a.assign(tf.zeros_like(a))
        return tf.constant(0)

    def replica_step(x, y):
        accumulate(x, y)
        if way == "python if on tf.Variable":
            if (step + 1) % K == 0:
                apply()
        elif way.startswith("tf.cond"):
            tf.cond(tf.equal((step + 1) % K, 0), apply, lambda: tf.constant(0))
        elif way == "optimizer.iterations":
            if optimizer.iterations < 100:
                apply()
        elif way == "while on tf.Variable":
            while step < 0:  # never true: the loop is traced all the same
                apply()
        elif way == "for over tf.range":
            for _ in tf.range(1 - (step + 1) % K):
                apply()
        elif way == "python if on int":
            if K == 1:  # a config value: decided when the step is traced
                apply()

    @tf.function
    def compiled_step(x, y):
        strategy.run(replica_step, args=(x, y))
        step.assign_add(1)

    def eager_step(x, y):
        strategy.run(replica_step, args=(x, y))
        step.assign_add(1)

    @tf.function
    def accumulate_step(x, y):  # fix (a), first half
        strategy.run(accumulate, args=(x, y))

    @tf.function
    def apply_step():  # fix (a), second half
        strategy.run(apply)

    @tf.function
    def fix_b_step(x, y):
        strategy.run(accumulate, args=(x, y))
        step.assign_add(1)
        if step % K == 0:  # cross-replica context: autograph's tf.cond holds no merge_call
            strategy.run(apply)

    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)
    for python_step, (x, y) in enumerate(strategy.experimental_distribute_dataset(data)):
        if way == "fix a":
            accumulate_step(x, y)
            if (python_step + 1) % K == 0:
                apply_step()
        elif way == "fix b":
            fix_b_step(x, y)
        elif way == "tf.cond, eager run":
            eager_step(x, y)
        else:
            compiled_step(x, y)
    return _weights(tf, strategy, model.trainable_variables[0])


def _fit(tf, strategy, way: str) -> str:
    class Stepper(tf.keras.Sequential):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(self(x, training=True) - y)) / 4.0
            grads = tape.gradient(loss, self.trainable_variables)

            def apply():
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return tf.constant(0)

            tf.cond(self.optimizer.iterations >= 0, apply, lambda: tf.constant(0))
            return {"loss": loss}

    def build():
        if way == "fit train_step tf.cond":
            model = Stepper([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.01))
        else:
            model = _model(tf)
            model.compile(optimizer=tf.keras.optimizers.SGD(0.01, gradient_accumulation_steps=2), loss="mse")
        return model

    if strategy is None:
        model = build()
    else:
        with strategy.scope():
            model = build()
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)
    model.fit(data, epochs=1, verbose=0)
    return _weights(tf, strategy, model.trainable_variables[0])


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    print(f"{flavour} | one device, reference: {_reference(tf)}", flush=True)
    for way in WAYS:
        try:
            if way.startswith("fit"):
                outcome = _fit(tf, None if way.endswith("no strategy") else strategy, way)
            else:
                outcome = _custom_loop(tf, strategy, way)
        except Exception as exc:  # the probe records what fails, whatever it is
            text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            marker = text.find("merge_call")
            outcome = f"{type(exc).__name__}: {(text[marker:] if marker >= 0 else text)[:110]}"
        print(f"{flavour} | {way}: {outcome}", flush=True)


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
        return
    for flavour, legacy in (("keras 3", "0"), ("tf-keras", "1")):
        env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        subprocess.run([sys.executable, __file__, flavour], env=env, check=False)


if __name__ == "__main__":
    main()
