"""Probe for TFD402's graph-mode methods: a `SessionRunHook`'s `begin` and a step a base class
compiles at run time.

1. A `tf.compat.v1.train.SessionRunHook` whose `begin` calls `strategy.run` (2 logical CPUs,
   `MirroredStrategy`), run by a `MonitoredSession` in a TF1 graph, as an Estimator runs its
   hooks: the probe prints whether `begin` runs eagerly, what `strategy.run` returns there (a
   graph tensor, an op the session evaluates later) and the value the session then fetches.
2. The same `begin` run as a `tf.function` (the fix TFD402 used to offer, `@tf.function` on
   `begin`): the tensors it keeps on the hook are then a function graph's, which the session
   cannot fetch.
3. A base class doing `self.train_fn = tf.function(self.train_step)` in its constructor: the
   subclass's `train_step`, which calls `strategy.run`, runs inside a function graph.

    python benchmarks/probe_graph_mode_methods.py

Output on TensorFlow 2.21 (2026-11-27):

    hook.begin: executing eagerly False; strategy.run gave SymbolicTensor (graph tensor); session fetched 6.0
    hook.begin under @tf.function: fetching what it kept failed: ValueError
    base-class-compiled train_step: inside a tf.function True; result 6.0
"""

from __future__ import annotations

import tensorflow as tf

tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
)


def _replica_sum(strategy: tf.distribute.Strategy, x: tf.Tensor) -> tf.Tensor:
    per_replica = strategy.run(lambda v: v * 2.0, args=(x,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


class _Hook(tf.compat.v1.train.SessionRunHook):
    def __init__(self, strategy: tf.distribute.Strategy, compiled: bool) -> None:
        self.strategy = strategy
        self.compiled = compiled
        self.eager: bool | None = None
        self.kept: tf.Tensor | None = None

    def begin(self) -> None:
        # As hooks do, `begin` keeps the tensors the session fetches later on the hook.
        def build() -> None:
            self.eager = tf.executing_eagerly()
            self.kept = _replica_sum(self.strategy, tf.constant(1.5))

        if self.compiled:
            tf.function(build)()
        else:
            build()


def _hook_case(compiled: bool) -> str:
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        hook = _Hook(strategy, compiled)
        tf.compat.v1.train.get_or_create_global_step()
        with tf.compat.v1.train.MonitoredSession(hooks=[hook]) as session:
            if compiled:
                try:
                    session.run(hook.kept)
                except Exception as error:  # noqa: BLE001 - the probe reports what TF raises
                    return f"hook.begin under @tf.function: fetching what it kept failed: {type(error).__name__}"
                return "hook.begin under @tf.function: fetched"
            value = session.run(hook.kept)
            kind = "graph tensor" if not isinstance(hook.kept, tf.__internal__.EagerTensor) else "eager"
            return (
                f"hook.begin: executing eagerly {hook.eager}; strategy.run gave {type(hook.kept).__name__} "
                f"({kind}); session fetched {value}"
            )


class _Trainer:
    def __init__(self, strategy: tf.distribute.Strategy, compile_step: bool = True) -> None:
        self.strategy = strategy
        self.train_fn = tf.function(self.train_step) if compile_step else self.train_step


class _Classifier(_Trainer):
    inside: bool | None = None

    def train_step(self, x: tf.Tensor) -> tf.Tensor:
        self.inside = tf.inside_function()
        return _replica_sum(self.strategy, x)


def _base_class_case() -> str:
    trainer = _Classifier(tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))
    result = trainer.train_fn(tf.constant(1.5))
    return f"base-class-compiled train_step: inside a tf.function {trainer.inside}; result {float(result)}"


if __name__ == "__main__":
    print(_hook_case(compiled=False))
    print(_hook_case(compiled=True))
    print(_base_class_case())
