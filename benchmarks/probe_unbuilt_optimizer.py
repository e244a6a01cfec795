"""Probe for TFD109: which optimizers fail when they are first built inside a compiled distributed step.

Runs, on 2 logical CPU devices, a model and an optimizer created in `MirroredStrategy().scope()`
and a `@tf.function` step that calls `strategy.run(replica_step)`, where `replica_step` calls
`optimizer.apply_gradients` (or `minimize`). Each optimizer class runs unbuilt and, as a control,
built in the scope (`optimizer.build(model.trainable_variables)`). A few variants are run with Adam
only: eager `strategy.run`, 1 replica, `apply`, a model without `Input`; and a `LossScaleOptimizer`
around plain SGD (2026-11-26: fails unbuilt under Keras 3 with the same placeholder error, runs
built; runs either way under tf-keras). The whole table runs once
under Keras 3 and once under tf-keras (`TF_USE_LEGACY_KERAS=1`), each in its own process.

    python benchmarks/probe_unbuilt_optimizer.py
"""

from __future__ import annotations

import os
import subprocess
import sys

OPTIMIZERS = (
    ("SGD", {}),
    ("SGD", {"momentum": 0.9}),
    ("Adam", {}),
    ("AdamW", {}),
    ("RMSprop", {}),
    ("RMSprop", {"momentum": 0.9}),
    ("Adagrad", {}),
    ("Adadelta", {}),
    ("Adamax", {}),
    ("Nadam", {}),
    ("Ftrl", {}),
    ("Lion", {}),
    ("Adafactor", {}),
    ("Lamb", {}),
)


def _run_case(
    tf, strategy, make_optimizer, *, build: bool, compiled: bool, use_apply: bool, with_input: bool, build_optimizer: bool = True
) -> str:
    """One training run of two steps; returns "runs" or the error's class and first line."""
    with strategy.scope():
        if with_input:
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        else:
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            if build:
                model.build((None, 2))
        optimizer = make_optimizer() if make_optimizer is not None else None
        if build and build_optimizer and optimizer is not None:
            optimizer.build(model.trainable_variables)

    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        if optimizer is None:
            return loss  # forward pass only: the model's own variables
        grads = tape.gradient(loss, model.trainable_variables)
        if use_apply:
            optimizer.apply(grads, model.trainable_variables)
        else:
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    def step(x, y):
        per_replica = strategy.run(replica_step, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    if compiled:
        step = tf.function(step)
    data = tf.data.Dataset.from_tensor_slices(
        (tf.random.normal((16, 2), seed=1), tf.random.normal((16, 1), seed=2))
    ).batch(4)
    try:
        for _, (x, y) in zip(range(2), strategy.experimental_distribute_dataset(data)):
            step(x, y)
    except Exception as exc:  # the probe records what fails, whatever it is
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        # TensorFlow's graph errors start with "Graph execution error:"; the cause is further down.
        cause = next((line for line in lines if "You must feed" in line), lines[0] if lines else "")
        return f"{type(exc).__name__}: {cause[:120]}"
    return "runs"


def child(flavour: str) -> None:
    """Run the table in this process (TF_USE_LEGACY_KERAS is already set by the parent)."""
    import tensorflow as tf

    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    two = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    one = tf.distribute.MirroredStrategy(["/cpu:0"])
    keras_name = tf.keras.__name__ if hasattr(tf.keras, "__name__") else "?"
    print(f"== {flavour} (tf {tf.__version__}, tf.keras is {keras_name}, {type(tf.keras.optimizers.Adam()).__module__})")
    for name, kwargs in OPTIMIZERS:
        experimental = getattr(tf.keras.optimizers, "experimental", None)
        cls = getattr(tf.keras.optimizers, name, None) or getattr(experimental, name, None)
        label = name + (f"({kwargs})" if kwargs else "")
        if cls is None:
            print(f"{label:32} absent")
            continue
        unbuilt = _run_case(tf, two, lambda: cls(**kwargs), build=False, compiled=True, use_apply=False, with_input=True)
        built = _run_case(tf, two, lambda: cls(**kwargs), build=True, compiled=True, use_apply=False, with_input=True)
        print(f"{label:32} unbuilt: {unbuilt:60} built: {built}")
    # LossScaleOptimizer keeps its own state (loss scale, step counter) whatever it wraps.
    def loss_scaled_sgd():
        return tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))

    unbuilt = _run_case(tf, two, loss_scaled_sgd, build=False, compiled=True, use_apply=False, with_input=True)
    built = _run_case(tf, two, loss_scaled_sgd, build=True, compiled=True, use_apply=False, with_input=True)
    print(f"{'LossScaleOptimizer(SGD)':32} unbuilt: {unbuilt:60} built: {built}")
    adam = tf.keras.optimizers.Adam
    variants = {
        "Adam eager strategy.run, 2 replicas": dict(strategy=two, build=False, compiled=False, use_apply=False, with_input=True),
        "Adam compiled, 1 replica": dict(strategy=one, build=False, compiled=True, use_apply=False, with_input=True),
        "Adam compiled, optimizer.apply": dict(strategy=two, build=False, compiled=True, use_apply=True, with_input=True),
        "Adam compiled, no Input, unbuilt": dict(strategy=two, build=False, compiled=True, use_apply=False, with_input=False),
        "Adam compiled, no Input, model.build+build": dict(strategy=two, build=True, compiled=True, use_apply=False, with_input=False),
    }
    sgd = tf.keras.optimizers.SGD
    variants.update(
        {
            "SGD compiled, no Input, unbuilt": dict(strategy=two, build=False, compiled=True, use_apply=False, with_input=False),
            "SGD compiled, no Input, model.build+build": dict(strategy=two, build=True, compiled=True, use_apply=False, with_input=False),
            "SGD compiled, no Input, model.build only": dict(strategy=two, build=True, compiled=True, use_apply=False, with_input=False, build_optimizer=False),
            "Adam compiled, no Input, model.build only": dict(strategy=two, build=True, compiled=True, use_apply=False, with_input=False, build_optimizer=False),
            "no optimizer, no Input, unbuilt (forward only)": dict(strategy=two, build=False, compiled=True, use_apply=False, with_input=False),
        }
    )
    for label, options in variants.items():
        strategy = options.pop("strategy")
        make = {"SGD": sgd, "no ": None}.get(label[:3], adam)
        print(f"{label:45} {_run_case(tf, strategy, make, **options)}")


def main() -> None:
    for flavour, legacy in (("Keras 3", "0"), ("tf-keras", "1")):
        env = dict(os.environ, TF_USE_LEGACY_KERAS=legacy, TF_CPP_MIN_LOG_LEVEL="3")
        result = subprocess.run([sys.executable, __file__, "--child", flavour], env=env, capture_output=True, text=True, check=False)
        sys.stdout.write(result.stdout)
        if result.returncode:
            sys.stdout.write(result.stderr[-3000:])


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
