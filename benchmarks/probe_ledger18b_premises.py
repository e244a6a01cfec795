"""Premises of the ledger18b verdicts on TFD105, TFD402 and TFD101's fix.

Part 1 (TFD105): does a second `MultiWorkerMirroredStrategy()` in a process that already built one
fail under a cluster TF_CONFIG?

A Vertex AI training script seen in ledger18b builds the strategy once when its `--distributed`
flag is set, loads MNIST with `keras.datasets` (NumPy), and builds it a second time before the
model. Each case runs in a fresh process with a one-worker TF_CONFIG (as in
`probe_runtime_start_io.py`): the code, then `MultiWorkerMirroredStrategy()` and a one-replica
all-reduce through it. Controls: nothing before (created) and `tf.constant` before (fails).

Part 2 (TFD402): a TF-Agents policy wrapper calls `strategy.run(fn, ...)` from a plain Python method,
where `fn` is a `tf.function` (TF-Agents' `common.function(policy.action)`). Does the eager call run
the replicas one after another in Python (TensorFlow's "Using MirroredStrategy eagerly has
significant overhead" warning, `fn` executing eagerly), as it does for a plain Python `fn`? And the
rule's fix puts `@tf.function` on the calling method, whose tail turns the replica's result into
NumPy with `tensor.numpy()` (TF-Agents' `unbatch_nested_tensors_to_arrays`): what does that do
inside a `tf.function`? Two logical CPUs, MirroredStrategy, no TF_CONFIG.

Part 3 (TFD101's fix, then TFD114): a loss `Mean` moved into `strategy.scope()` by TFD101's fix and then called eagerly
in the training loop under the scope with the SUM-reduced loss, `metric(loss)` (a ViT trainer's form), against
`metric.update_state(loss)` (the form `probe_metric_updated_cross_replica.py` measured). Two logical CPUs,
MirroredStrategy.

Run under Keras 3 (default) and tf-keras (`TF_USE_LEGACY_KERAS=1`):

    python benchmarks/probe_ledger18b_premises.py
    TF_USE_LEGACY_KERAS=1 python benchmarks/probe_ledger18b_premises.py

Output on TensorFlow 2.21, 2026-11-28 (parts 1 and 2 print the same under both Kerases; part 3 per flavour):

    nothing before (control): created, 1 replica(s), all-reduce 1.0
    tf.constant (control): RuntimeError: Collective ops must be configured at program startup
    a first MultiWorkerMirroredStrategy(): created, 1 replica(s), all-reduce 1.0
    a first MultiWorkerMirroredStrategy(), then NumPy scaling: created, 1 replica(s), all-reduce 1.0
    eager run of a tf.function: fn eager [False, False], overhead warning False, results [2.0, 2.0]
    eager run of a plain Python function: fn eager [True, True], overhead warning True, results [2.0, 2.0]
    tensor.numpy() inside a tf.function: AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    keras 3 | in-scope Mean, metric(loss) eagerly: works, result 4.00 (loss 4.0)
    keras 3 | in-scope Mean, update_state(loss) eagerly: works, result 4.00 (loss 4.0)
    tf-keras | in-scope Mean, metric(loss) eagerly: works, result 4.00 (loss 4.0)
    tf-keras | in-scope Mean, update_state(loss) eagerly: ValueError: SyncOnReadVariable does not support `assign_add`
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CASES = {
    "nothing before (control)": "pass",
    "tf.constant (control)": "tf.constant(1.0)",
    "a first MultiWorkerMirroredStrategy()": "tf.distribute.MultiWorkerMirroredStrategy()",
    "a first MultiWorkerMirroredStrategy(), then NumPy scaling": (
        "tf.distribute.MultiWorkerMirroredStrategy()\nx = np.random.randint(0, 256, size=(8, 28, 28)); x = x / 255.0"
    ),
}


def run_case(label: str) -> None:
    """One case, in this process."""
    import numpy as np
    import tensorflow as tf

    exec(CASES[label], {"tf": tf, "np": np})
    try:
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        total = strategy.reduce("SUM", strategy.run(lambda: tf.constant(1.0)), axis=None)
        outcome = f"created, {strategy.num_replicas_in_sync} replica(s), all-reduce {float(total)}"
    except (RuntimeError, ValueError) as exc:
        outcome = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    print(f"{label}: {outcome}", flush=True)


def main() -> None:
    """Every case in its own process (the runtime starts once per process)."""
    if sys.argv[1:] == ["--part2"]:
        part2()
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--part3":
        part3(sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_case(sys.argv[2])
        return
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env["TF_CONFIG"] = json.dumps({"cluster": {"worker": ["localhost:12377"]}, "task": {"type": "worker", "index": 0}})
    for label in CASES:
        done = subprocess.run(
            [sys.executable, __file__, "--case", label], env=env, capture_output=True, text=True, check=False
        )
        lines = [line for line in done.stdout.splitlines() if line.startswith(label)]
        print(lines[-1] if lines else f"{label}: crashed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
    done = subprocess.run(
        [sys.executable, __file__, "--part2"],
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
        capture_output=True,
        text=True,
        check=False,
    )
    print(done.stdout.strip() or f"part 2 crashed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
    for form in ("call", "update_state"):
        done = subprocess.run(
            [sys.executable, __file__, "--part3", form],
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
            capture_output=True,
            text=True,
            check=False,
        )
        print(done.stdout.strip() or f"part 3 crashed: {done.stderr.strip().splitlines()[-1:]}", flush=True)


def part3(form: str) -> None:
    """A `Mean` made in the scope, fed the reduced loss eagerly under the scope by calling it or by `update_state`."""
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

    @tf.function
    def step(x):
        return strategy.reduce("SUM", strategy.run(lambda v: v * 2.0, args=(x,)), axis=None)

    flavour = "tf-keras" if os.environ.get("TF_USE_LEGACY_KERAS") == "1" else "keras 3"
    label = "metric(loss)" if form == "call" else "update_state(loss)"
    with strategy.scope():
        metric = tf.keras.metrics.Mean("training_loss", dtype=tf.float32)
        try:
            for _ in range(2):
                loss = step(tf.constant(1.0))
                metric(loss) if form == "call" else metric.update_state(loss)
            outcome = f"works, result {float(metric.result()):.2f} (loss 4.0)"
        except ValueError as exc:
            outcome = f"ValueError: {str(exc).strip().splitlines()[0][:48]}"
    print(f"{flavour} | in-scope Mean, {label} eagerly: {outcome}", flush=True)


def part2() -> None:
    """Eager `strategy.run` of a `tf.function` and of a plain function; `.numpy()` under `tf.function`."""
    import logging

    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    warnings: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            warnings.append(record.getMessage())

    tf.get_logger().addHandler(Collect())
    seen: list[bool] = []

    def replica_step(x):
        seen.append(tf.executing_eagerly())
        return x * 2.0

    for label, fn in (("a tf.function", tf.function(replica_step)), ("a plain Python function", replica_step)):
        seen.clear()
        warnings.clear()
        result = strategy.run(fn, args=(tf.constant(1.0),))
        eager_warning = any("eagerly has significant overhead" in w for w in warnings)
        values = [float(v) for v in strategy.experimental_local_results(result)]
        print(f"eager run of {label}: fn eager {seen}, overhead warning {eager_warning}, results {values}")

    @tf.function
    def to_numpy(x):
        return x.numpy()

    try:
        to_numpy(tf.constant([1.0]))
        print("tensor.numpy() inside a tf.function: works")
    except AttributeError as exc:
        print(f"tensor.numpy() inside a tf.function: {str(exc).strip().splitlines()[-1].strip()}")


if __name__ == "__main__":
    main()
