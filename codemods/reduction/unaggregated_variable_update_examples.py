"""Examples of TFD301 (unaggregated-variable-update).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
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
                mirrored_var.assign_sub(gradients)

        strategy.run(train_step, args=(batch,))
        """,
        after=None,
        note="seed 001 unknown loss scaling: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable([1.0, 1.0])

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                per_example = tf.square(tf.reduce_sum(w * x, axis=1) - y)
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=4)
            g = tape.gradient(loss, w)
            w.assign_sub(0.01 * g)

        strategy.run(replica_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable([1.0, 1.0])

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                per_example = tf.square(tf.reduce_sum(w * x, axis=1) - y)
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=4)
            g = tape.gradient(loss, w)
            g = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, g)
            w.assign_sub(0.01 * g)

        strategy.run(replica_fn, args=(x, y))
        """,
        note="global-batch loss gets SUM",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            for g, v in zip(grads, model.trainable_variables):
                v.assign_sub(0.1 * g)

        strategy.run(replica_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grads)
            for g, v in zip(grads, model.trainable_variables):
                v.assign_sub(0.1 * g)

        strategy.run(replica_fn, args=(x, y))
        """,
        note="per-replica mean loss gets MEAN in a loop",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy as M
        import tensorflow as tf

        strategy = M()

        def helper(var, grad):
            var.assign_add(-0.1 * grad)

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(v * x) / GLOBAL_BATCH
            grad = tape.gradient(loss, v)
            helper(v, grad)

        strategy.run(replica_fn, args=(x,))
        """,
        after=None,
        note="update in a helper: advice",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Loop:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
                with self.strategy.scope():
                    self.w = tf.Variable(2.0)

            def replica_step(self, x):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(self.w * x))
                grad = tape.gradient(loss, self.w)
                self.w.assign(self.w - 0.1 * grad)

            def step(self, x):
                self.strategy.run(self.replica_step, args=(x,))
        """,
        after="""
        import tensorflow as tf


        class Loop:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
                with self.strategy.scope():
                    self.w = tf.Variable(2.0)

            def replica_step(self, x):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(self.w * x))
                grad = tape.gradient(loss, self.w)
                grad = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grad)
                self.w.assign(self.w - 0.1 * grad)

            def step(self, x):
                self.strategy.run(self.replica_step, args=(x,))
        """,
        note="method with self.strategy and assign",
    ),
    Invalid(
        """
        import tensorflow as tf

        def fit(strategy, w, batches):
            def replica_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.keras.losses.mse(y, w * x)
                dw = tape.gradient(loss, w)
                w.assign_sub(0.01 * dw)

            for x, y in batches:
                strategy.run(replica_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        def fit(strategy, w, batches):
            def replica_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.keras.losses.mse(y, w * x)
                dw = tape.gradient(loss, w)
                dw = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, dw)
                w.assign_sub(0.01 * dw)

            for x, y in batches:
                strategy.run(replica_fn, args=(x, y))
        """,
        note="nested replica fn and strategy parameter",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(w * x))
            g = tape.gradient(loss, w)
            w.assign_sub(0.1 * g)

        strategy.run(replica_fn, args=(x,))
        """,
        after=None,
        note="MEAN aggregation has the wrong scale",
    ),
    Invalid(
        """
        import tensorflow.compat.v2 as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(w * x)
            g = tape.gradient(loss, w)
            w.assign_sub(g)
            return loss

        @tf.function
        def step(x):
            return strategy.run(replica_fn, args=(x,))
        """,
        after="""
        import tensorflow.compat.v2 as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(w * x)
            g = tape.gradient(loss, w)
            g = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, g)
            w.assign_sub(g)
            return loss

        @tf.function
        def step(x):
            return strategy.run(replica_fn, args=(x,))
        """,
        note="compat v2 alias",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            mirrored_var = tf.Variable(tf.ones([1]))

            def train_step(data):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(mirrored_var * data)
                gradients = tape.gradient(loss, mirrored_var)
                mirrored_var.assign_sub(gradients)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            mirrored_var = tf.Variable(tf.ones([1]))

            def train_step(data):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(mirrored_var * data)
                gradients = tape.gradient(loss, mirrored_var)
                gradients = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, gradients)
                mirrored_var.assign_sub(gradients)
        """,
        note="seed 001 example 2 step written for strategy.run",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            kernel = tf.Variable(tf.ones([3, 2]))
            bias = tf.Variable(tf.zeros([2]))

        def replica_fn(features, targets):
            with tf.GradientTape() as tape:
                out = tf.matmul(features, kernel) + bias
                loss = tf.nn.compute_average_loss(tf.reduce_sum(tf.square(out - targets), axis=1), global_batch_size=64)
            d_kernel, d_bias = tape.gradient(loss, [kernel, bias])
            kernel.assign_sub(0.05 * d_kernel)
            bias.assign_sub(0.05 * d_bias)

        strategy.run(replica_fn, args=(features, targets))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            kernel = tf.Variable(tf.ones([3, 2]))
            bias = tf.Variable(tf.zeros([2]))

        def replica_fn(features, targets):
            with tf.GradientTape() as tape:
                out = tf.matmul(features, kernel) + bias
                loss = tf.nn.compute_average_loss(tf.reduce_sum(tf.square(out - targets), axis=1), global_batch_size=64)
            d_kernel, d_bias = tape.gradient(loss, [kernel, bias])
            d_kernel, d_bias = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, [d_kernel, d_bias])
            kernel.assign_sub(0.05 * d_kernel)
            bias.assign_sub(0.05 * d_bias)

        strategy.run(replica_fn, args=(features, targets))
        """,
        note="gradients unpacked into a tuple",
    ),
    Invalid(
        """
        import tensorflow as tf

        replicas = tf.distribute.MirroredStrategy()
        with replicas.scope():
            scale = tf.Variable(2.0)

        def fit_scale(xs, ys):
            with tf.GradientTape() as g:
                err = tf.math.reduce_mean(tf.square(scale * xs - ys))
            scale.assign_add(-0.1 * g.gradient(err, scale))

        replicas.run(fit_scale, args=(xs, ys))
        """,
        after="""
        import tensorflow as tf

        replicas = tf.distribute.MirroredStrategy()
        with replicas.scope():
            scale = tf.Variable(2.0)

        def fit_scale(xs, ys):
            with tf.GradientTape() as g:
                err = tf.math.reduce_mean(tf.square(scale * xs - ys))
            scale.assign_add(-0.1 * tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, g.gradient(err, scale)))

        replicas.run(fit_scale, args=(xs, ys))
        """,
        note="gradient computed inside the update call",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def grads_of(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(tf.linalg.matvec(x, theta) - y))
            return loss, tape.gradient(loss, theta)

        def replica_fn(x, y):
            loss, d_theta = grads_of(x, y)
            theta.assign_sub(0.01 * d_theta)
            return loss

        strategy.run(replica_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def grads_of(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(tf.linalg.matvec(x, theta) - y))
            return loss, tape.gradient(loss, theta)

        def replica_fn(x, y):
            loss, d_theta = grads_of(x, y)
            d_theta = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, d_theta)
            theta.assign_sub(0.01 * d_theta)
            return loss

        strategy.run(replica_fn, args=(x, y))
        """,
        note="gradients returned by a helper",
    ),
    Valid(
        """
        import tensorflow as tf

        one = tf.distribute.OneDeviceStrategy("/cpu:0")
        with one.scope():
            w = tf.Variable([1.0, 1.0])

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))
            w.assign_sub(0.01 * tape.gradient(loss, w))

        one.run(replica_fn, args=(x, y))
        """,
        note="OneDeviceStrategy: a single replica has nothing to aggregate",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(tf.linalg.matvec(x, w) - y))
            gw, gb = tape.gradient(loss, [w, b])
            gw, gb = tf.distribute.get_replica_context().all_reduce("sum", [gw, gb])
            w.assign_sub(0.01 * gw)
            b.assign_sub(0.01 * gb)

        strategy.run(replica_fn, args=(x, y))
        """,
        note="tuple of gradients all-reduced together",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            w = tf.Variable(1.0)

            def warm_start(data):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(w * data)
                w.assign_sub(tape.gradient(loss, w))

        warm_start(first_batch)
        """,
        note="a step defined in the scope but called directly is not a replica function",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(w * x))
            g = tape.gradient(loss, w)
            g = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, g)
            w.assign_sub(0.1 * g)

        strategy.run(replica_fn, args=(x,))
        """,
        note="all-reduced first",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x)))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(replica_fn, args=(x,))
        """,
        note="optimizer aggregates",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(w * x))
            g = tape.gradient(loss, w)
            w.assign_sub(0.1 * g)

        strategy.run(replica_fn, args=(x,))
        """,
        note="SUM aggregation variable",
    ),
    Valid(
        """
        import tensorflow as tf

        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(w * x)
            g = tape.gradient(loss, w)
            w.assign_sub(0.1 * g)

        train_step(x)
        """,
        note="no strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            counter.assign_add(1)
            return x

        strategy.run(replica_fn, args=(x,))
        """,
        note="assign without gradients",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(w * x)
            g = tape.gradient(loss, w)
            return g

        per_replica = strategy.run(replica_fn, args=(x,))
        total = strategy.reduce("SUM", per_replica, axis=None)
        w.assign_sub(0.1 * total)
        """,
        note="update in cross-replica code after reduce",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(w * x)
            g = tape.gradient(loss, w)
            w.assign_sub(g)  # distfix: ignore[TFD301]

        strategy.run(replica_fn, args=(x,))
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            ctx = tf.distribute.get_replica_context()
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(w * x)
            g = ctx.all_reduce("MEAN", tape.gradient(loss, w))
            w.assign_sub(g)

        strategy.run(replica_fn, args=(x,))
        """,
        note="all-reduce around tape.gradient",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
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
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            for acc, g in zip(accumulators, grads):
                acc.assign_add(g)


        @tf.function
        def accumulate_step(x, y):
            strategy.run(accumulate, args=(x, y))
        """,
        note="SUM accumulators made in a list comprehension, gradients bound to a name",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            accumulators = [
                tf.Variable(
                    tf.zeros_like(v),
                    trainable=False,
                    synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.MEAN,
                )
                for v in model.trainable_variables
            ]


        def accumulate(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            for acc, g in zip(accumulators, grads):
                acc.assign_add(g)


        @tf.function
        def accumulate_step(x, y):
            strategy.run(accumulate, args=(x, y))
        """,
        note="MEAN accumulators made in a list comprehension",
    ),
)
