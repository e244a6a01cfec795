"""Examples of TFD402 (strategy-run-outside-tf-function).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def distributed_train_step(dataset_inputs):
            strategy.run(step_fn, args=(dataset_inputs,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def distributed_train_step(dataset_inputs):
            strategy.run(step_fn, args=(dataset_inputs,))
        """,
        note="seed 000 step without tf.function",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @some_decorator
        def train_step(x):
            per_replica = strategy.run(step_fn, args=(x,))
            return strategy.reduce("SUM", per_replica, axis=None)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @some_decorator
        @tf.function
        def train_step(x):
            per_replica = strategy.run(step_fn, args=(x,))
            return strategy.reduce("SUM", per_replica, axis=None)
        """,
        note="other decorator kept outside the compiled step",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy

        strategy = MirroredStrategy()

        def train_step(x):
            return strategy.run(step_fn, args=(x,))
        """,
        after="""
        from tensorflow.distribute import MirroredStrategy
        import tensorflow as tf

        strategy = MirroredStrategy()

        @tf.function
        def train_step(x):
            return strategy.run(step_fn, args=(x,))
        """,
        note="tensorflow import added",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy

            def step_fn(self, x):
                return self.total.assign_add(x)

            def train_step(self, x):
                return self.strategy.run(self.step_fn, args=(x,))
        """,
        after="""
        import tensorflow as tf


        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy

            def step_fn(self, x):
                return self.total.assign_add(x)

            @tf.function
            def train_step(self, x):
                return self.strategy.run(self.step_fn, args=(x,))
        """,
        note="method on self.strategy",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        for x in dist_dataset:
            strategy.run(step_fn, args=(x,))
        """,
        after=None,
        note="module-level loop: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train(dist_dataset):
            for x in dist_dataset:
                strategy.run(step_fn, args=(x,))
        """,
        after=None,
        note="loop inside the function: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        def make_step(strategy):
            def step(x):
                return strategy.run(replica_fn, args=(x,))
            return step
        """,
        after="""
        import tensorflow as tf

        def make_step(strategy):
            @tf.function
            def step(x):
                return strategy.run(replica_fn, args=(x,))
            return step
        """,
        note="nested step with strategy parameter",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step(x):
            return strategy.experimental_run_v2(replica_fn, args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(x):
            return strategy.experimental_run_v2(replica_fn, args=(x,))
        """,
        note="old run name",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def train_step(x, y):
            strategy.run(step_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            optimizer.build(model.trainable_variables)

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(step_fn, args=(x, y))
        """,
        note="Keras 3 Adam is built before compiling",
    ),
    Invalid(
        """
        import tensorflow as tf
        from tensorflow import keras

        mirrored = tf.distribute.MirroredStrategy()
        with mirrored.scope():
            net = keras.Sequential([keras.layers.Dense(16), keras.layers.Dense(4)])
            opt = keras.optimizers.RMSprop()

        def replica_update(batch):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.reduce_sum(tf.square(net(batch)), axis=1))
            opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))

        def update(batch):
            return mirrored.run(replica_update, args=(batch,))
        """,
        after=None,
        note="model without an input shape: its weights do not exist yet, so no optimizer.build edit",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y)[:, 0])
            model.optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        def train_step(x, y):
            strategy.run(replica_fn, args=(x, y))
        """,
        after=None,
        note="optimizer from compile of unknown kind: it may be unbuilt, advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            inputs = tf.keras.Input(shape=(8,))
            model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
            opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.reduce_sum(model(x), axis=1))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        class Timer:
            def wrap(self, fn):
                return fn

        timer = Timer()

        @timer.wrap
        def step(x):
            strategy.run(replica_fn, args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            inputs = tf.keras.Input(shape=(8,))
            model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(inputs))
            opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
            opt.build(model.trainable_variables)

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.reduce_sum(model(x), axis=1))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        class Timer:
            def wrap(self, fn):
                return fn

        timer = Timer()

        @timer.wrap
        @tf.function
        def step(x):
            strategy.run(replica_fn, args=(x,))
        """,
        note="functional model is built; momentum SGD built; decorator goes under the user's",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def train_step(x):
            return strategy.run(step_fn, args=(x,))
        """,
        note="decorated",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x):
            return strategy.run(step_fn, args=(x,))

        train_step = tf.function(train_step)
        """,
        note="wrapped by assignment",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def inner(x):
            return strategy.run(step_fn, args=(x,))

        @tf.function
        def outer(x):
            return inner(x)
        """,
        note="only called from a tf.function",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function(jit_compile=True)
        def train_step(x):
            return strategy.run(step_fn, args=(x,))
        """,
        note="decorator with arguments",
    ),
    Valid(
        """
        import subprocess

        def build():
            return subprocess.run(["make"], check=True)
        """,
        note="subprocess.run",
    ),
    Valid(
        """
        import tensorflow as tf

        session = tf.compat.v1.Session()

        def step(op):
            return session.run(op)
        """,
        note="a session's run",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x):
            return strategy.run(step_fn, args=(x,))  # distfix: ignore[TFD402]
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            return x

        train_step = tf.function(lambda x: strategy.run(replica_fn, args=(x,)))
        """,
        note="tf.function of a lambda",
    ),
    Valid(
        """
        import tensorflow as tf

        mirrored = tf.distribute.MirroredStrategy()

        @tf.function
        def per_replica_norm(v):
            return tf.norm(v)

        for v in mirrored.experimental_distribute_dataset(vectors):
            norms = mirrored.run(per_replica_norm, args=(v,))
        """,
        note="the replica fn is a tf.function: TF runs all replicas in that one graph",
    ),
    Valid(
        """
        import tensorflow as tf

        def replica_fn(x):
            return x * 2.0

        def main():
            single = tf.distribute.OneDeviceStrategy("/cpu:0")
            out = single.run(replica_fn, args=(tf.constant(1.0),))
            return out
        """,
        note="OneDeviceStrategy: one replica",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        dist = strategy.experimental_distribute_dataset(dataset)

        def show(x):
            return 2 * x

        for batch in dist:
            print(strategy.experimental_local_results(strategy.run(show, args=(batch,))))
        """,
        note="an eager loop whose replica function trains nothing (a demo or inference pass)",
    ),
)
