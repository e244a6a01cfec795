"""Examples of TFD302 (cross-replica-call-in-replica-fn).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(data):
            grads = compute(data)
            total = strategy.reduce(tf.distribute.ReduceOp.MEAN, grads, axis=None)
            return total

        strategy.run(train_step, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(data):
            grads = compute(data)
            total = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grads)
            return total

        strategy.run(train_step, args=(batch,))
        """,
        note="seed 001 reduce of gradients",
    ),
    Invalid(
        """
        import tensorflow as tf

        def build_update(strategy, table):
            def update(keys):
                counts = strategy.gather(keys, axis=0)
                table.assign_add(tf.reduce_sum(counts))
            return update

        def run(strategy, table, batches):
            update = build_update(strategy, table)
            for keys in batches:
                strategy.run(update, args=(keys,))
        """,
        after="""
        import tensorflow as tf

        def build_update(strategy, table):
            def update(keys):
                counts = tf.distribute.get_replica_context().all_gather(keys, axis=0)
                table.assign_add(tf.reduce_sum(counts))
            return update

        def run(strategy, table, batches):
            update = build_update(strategy, table)
            for keys in batches:
                strategy.run(update, args=(keys,))
        """,
        note="replica fn returned by a factory and bound to a name",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(4)])

            def replica_fn(x):
                return tf.reduce_sum(model(x))

            def distributed_eval(x):
                per_replica = strategy.run(replica_fn, args=(x,))
                return strategy.reduce("SUM", per_replica, axis=None)
        """,
        note="a step defined in the scope that calls strategy.run is cross-replica code",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(x):
            return strategy.run(lambda v: strategy.reduce("SUM", v, axis=None), args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def step(x):
            return strategy.run(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v), args=(x,))
        """,
        note="lambda replica fn",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy

        strategy = MirroredStrategy()

        def helper(value):
            return strategy.reduce(reduce_op="SUM", value=value, axis=None)

        def replica_fn(x):
            return helper(x * 2)

        strategy.run(replica_fn, args=(1.0,))
        """,
        after="""
        from tensorflow.distribute import MirroredStrategy
        import tensorflow as tf

        strategy = MirroredStrategy()

        def helper(value):
            return tf.distribute.get_replica_context().all_reduce("SUM", value)

        def replica_fn(x):
            return helper(x * 2)

        strategy.run(replica_fn, args=(1.0,))
        """,
        note="helper of the replica fn without tf import",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Loop:
            def __init__(self, strategy):
                self.strategy = strategy

            def replica_step(self, x):
                return self.strategy.gather(x, axis=0)

            def step(self, x):
                return self.strategy.run(self.replica_step, args=(x,))
        """,
        after="""
        import tensorflow as tf


        class Loop:
            def __init__(self, strategy):
                self.strategy = strategy

            def replica_step(self, x):
                return tf.distribute.get_replica_context().all_gather(x, axis=0)

            def step(self, x):
                return self.strategy.run(self.replica_step, args=(x,))
        """,
        note="gather on self.strategy in a method",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            return strategy.reduce(tf.distribute.ReduceOp.SUM, x, axis=0)

        strategy.run(replica_fn, args=(x,))
        """,
        after=None,
        note="reduce over an axis: advice",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            parts = strategy.experimental_local_results(x)
            return parts[0]

        strategy.run(replica_fn, args=(x,))
        """,
        note="local results in a replica fn: no error, the local values (measured on 2.21)",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def inner(x):
            return x

        def replica_fn(x):
            return strategy.run(inner, args=(x,))

        strategy.run(replica_fn, args=(x,))
        """,
        after=None,
        note="nested run",
    ),
    Invalid(
        """
        import tensorflow as tf

        def train(strategy, dataset):
            def step_fn(x):
                loss = tf.reduce_sum(x)
                return strategy.reduce(tf.distribute.ReduceOp.SUM, loss, None)

            for x in dataset:
                strategy.run(step_fn, args=(x,))
        """,
        after="""
        import tensorflow as tf

        def train(strategy, dataset):
            def step_fn(x):
                loss = tf.reduce_sum(x)
                return tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, loss)

            for x in dataset:
                strategy.run(step_fn, args=(x,))
        """,
        note="nested replica fn with strategy parameter and positional axis",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            mirrored_var = tf.Variable(tf.ones([1]))

            def train_step(data):
                with tf.GradientTape() as tape:
                    loss = compute_loss(mirrored_var, data)
                gradients = tape.gradient(loss, mirrored_var)
                aggregated_gradients = strategy.reduce(tf.distribute.ReduceOp.MEAN, gradients, axis=None)
                mirrored_var.assign_sub(aggregated_gradients)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            mirrored_var = tf.Variable(tf.ones([1]))

            def train_step(data):
                with tf.GradientTape() as tape:
                    loss = compute_loss(mirrored_var, data)
                gradients = tape.gradient(loss, mirrored_var)
                aggregated_gradients = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, gradients)
                mirrored_var.assign_sub(aggregated_gradients)
        """,
        note="seed 001 example 3 step written for strategy.run",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            def summarize(values):
                return strategy.reduce("SUM", values, axis=None)

        print(summarize(strategy.run(lambda: 1.0)))
        """,
        note="helper defined in the scope but called from cross-replica code",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            return x * 2

        @tf.function
        def step(x):
            per_replica = strategy.run(replica_fn, args=(x,))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
        """,
        note="reduce in the caller",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            ctx = tf.distribute.get_replica_context()
            return ctx.all_reduce(tf.distribute.ReduceOp.SUM, x)

        strategy.run(replica_fn, args=(x,))
        """,
        note="all_reduce in replica fn",
    ),
    Valid(
        """
        import functools
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(values):
            return functools.reduce(lambda a, b: a + b, values)

        strategy.run(replica_fn, args=(x,))
        """,
        note="functools.reduce is unrelated",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            return tf.reduce_sum(x)

        results = strategy.experimental_local_results(strategy.run(replica_fn, args=(x,)))
        """,
        note="local results outside",
    ),
    Valid(
        """
        import numpy as np

        def step(x):
            return np.add.reduce(x)

        step(np.ones(3))
        """,
        note="no strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def summarize(per_replica):
            return strategy.reduce("SUM", per_replica, axis=None)

        def replica_fn(x):
            return x

        summarize(strategy.run(replica_fn, args=(x,)))
        """,
        note="helper called from cross-replica code",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            return strategy.reduce("SUM", x, axis=None)  # distfix: ignore[TFD302]

        strategy.run(replica_fn, args=(x,))
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, pool):
            return pool.gather(x)

        strategy.run(replica_fn, args=(x, pool))
        """,
        note="gather on another object",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            grads = [strategy.reduce(tf.distribute.ReduceOp.SUM, g, axis=None) for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            grads = [g for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="reduced gradients given to apply_gradients: the reduce goes, not all_reduce",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def test_step(self, data):
                x, y = data
                loss = self.compute_loss(x=x, y=y, y_pred=self(x))
                return {"loss": tf.distribute.get_strategy().reduce("MEAN", loss, axis=None)}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Regressor()
        """,
        after="""
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def test_step(self, data):
                x, y = data
                loss = self.compute_loss(x=x, y=y, y_pred=self(x))
                return {"loss": tf.distribute.get_replica_context().all_reduce("MEAN", loss)}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Regressor()
        """,
        note="Keras test_step of a model built in the scope: evaluate runs it per replica",
    ),
    Valid(
        """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def test_step(self, data):
                x, y = data
                loss = self.compute_loss(x=x, y=y, y_pred=self(x))
                return {"loss": tf.distribute.get_strategy().reduce("MEAN", loss, axis=None)}


        model = Regressor()
        """,
        note="a Keras step of a model never built under a strategy",
    ),
)
