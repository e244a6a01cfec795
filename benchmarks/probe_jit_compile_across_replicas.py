"""Probe for TFD404: XLA (`jit_compile=True`) around the whole distributed step under MirroredStrategy.

On 2 logical CPU devices, once under Keras 3 and once under tf-keras (`TF_USE_LEGACY_KERAS=1`),
each in its own process, one SGD step of the shared toy problem (one step on one device gives
[0.33, 0.2]):

- `model.compile(..., jit_compile=True)` in the scope, then `fit`;
- the control, `compile(..., jit_compile=False)`, then `fit`;
- a custom loop whose outer step (the function calling `strategy.run`) is
  `tf.function(jit_compile=True)`;
- the rewrite: XLA only on the per-replica loss function, the outer step a plain `tf.function`.

    python benchmarks/probe_jit_compile_across_replicas.py

Output on TensorFlow 2.21, Keras 3.15.1, tf-keras 2.21 (2026-11-26):

    keras 3 | compile(jit_compile=True) + fit: InvalidArgumentError: Trying to access resource sequential/dense/kernel/replica_1/3 located in device /device:CPU:1 from device /device:CPU:0
    keras 3 | compile(jit_compile=False) + fit: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    keras 3 | outer tf.function(jit_compile=True): InvalidArgumentError: Trying to access resource sequential_2/dense_2/kernel/replica_1/38 located in device /device:CPU:1 from device /device:CPU:0
    keras 3 | XLA on the per-replica loss only: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    tf-keras | compile(jit_compile=True) + fit: InvalidArgumentError: Trying to access resource dense/kernel/replica_1/9 located in device /device:CPU:1 from device /device:CPU:0
    tf-keras | compile(jit_compile=False) + fit: weights per replica [[0.33, 0.2], [0.33, 0.2]]
    tf-keras | outer tf.function(jit_compile=True): InvalidArgumentError: Trying to access resource dense_2/kernel/replica_1/55 located in device /device:CPU:1 from device /device:CPU:0
    tf-keras | XLA on the per-replica loss only: weights per replica [[0.33, 0.2], [0.33, 0.2]]

(the resource's definition site and the `/job:localhost/replica:0/task:0` prefix are cut out)
"""

from __future__ import annotations

import re
import sys

from probing import print_outcomes, rerun_per_keras, two_cpu_replicas

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]  # global batch of 4: 2 rows per replica
Y = [[1.0], [2.0], [3.0], [4.0]]


def _error(exc: Exception) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    cause = next((line for line in lines if "Trying to access resource" in line), lines[-1] if lines else "")
    # The resource's definition site (a long path) sits in the middle: keep the name and the devices.
    cause = re.sub(r" \(defined @ [^)]*\)", "", cause)
    cause = re.sub(r"/job:localhost/replica:0/task:0", "", cause)
    return f"{type(exc).__name__}: {cause[:200]}"


def _weights(tf, strategy, model) -> str:
    variable = model.trainable_variables[0]
    if not isinstance(variable, tf.Variable):
        variable = variable.value  # a Keras 3 variable wraps the tf.Variable
    values = [[round(float(v), 2) for v in local.numpy().ravel()] for local in strategy.experimental_local_results(variable)]
    return f"weights per replica {values}"


def _model(tf):
    return tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])


def _fit(tf, strategy, jit: bool) -> str:
    with strategy.scope():
        model = _model(tf)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse", jit_compile=jit)
    model.fit(tf.constant(X), tf.constant(Y), batch_size=4, epochs=1, verbose=0, shuffle=False)
    return _weights(tf, strategy, model)


def _custom_loop(tf, strategy, outer_jit: bool, inner_jit: bool) -> str:
    with strategy.scope():
        model = _model(tf)
        optimizer = tf.keras.optimizers.SGD(0.01)

    def loss_fn(x, y):
        return tf.reduce_sum(tf.square(model(x) - y)) / 4.0  # mean over the global batch

    if inner_jit:
        loss_fn = tf.function(loss_fn, jit_compile=True)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    def step(x, y):
        strategy.run(replica_step, args=(x, y))

    step = tf.function(step, jit_compile=True) if outer_jit else tf.function(step)
    data = tf.data.Dataset.from_tensor_slices((tf.constant(X), tf.constant(Y))).batch(4)
    for x, y in strategy.experimental_distribute_dataset(data):
        step(x, y)
    return _weights(tf, strategy, model)


def run_cases(flavour: str) -> None:
    """All cases under the Keras this process imported."""
    import tensorflow as tf

    strategy = two_cpu_replicas(tf)
    cases = (
        ("compile(jit_compile=True) + fit", lambda: _fit(tf, strategy, jit=True)),
        ("compile(jit_compile=False) + fit", lambda: _fit(tf, strategy, jit=False)),
        ("outer tf.function(jit_compile=True)", lambda: _custom_loop(tf, strategy, outer_jit=True, inner_jit=False)),
        ("XLA on the per-replica loss only", lambda: _custom_loop(tf, strategy, outer_jit=False, inner_jit=True)),
    )
    print_outcomes(flavour, cases, _error)


def main() -> None:
    """Run the cases once per Keras, each in a fresh process (the Keras is chosen at import)."""
    if len(sys.argv) > 1:
        run_cases(sys.argv[1])
    else:
        rerun_per_keras(__file__)


if __name__ == "__main__":
    main()
