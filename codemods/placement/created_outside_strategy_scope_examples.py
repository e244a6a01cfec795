"""Examples of TFD101 (created-outside-strategy-scope).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        my_var = tf.Variable(0.0)

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            my_var = tf.Variable(0.0)
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="mse")
        """,
        note="seed 000 variable before the strategy",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        # the model is built here
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        with strategy.scope():
            model.compile(optimizer="sgd", loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            # the model is built here
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
        """,
        note="model outside compile inside keeps comment",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)], name='''first line
        second line''')
        with strategy.scope():
            model.compile(optimizer="sgd", loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)], name='''first line
        second line''')
            model.compile(optimizer="sgd", loss="mse")
        """,
        note="a multi-line string moves unchanged",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def make_counter():
            counter = tf.Variable(0.0)
            return counter


        steps = make_counter()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


        @tf.function
        def train_step(x):
            def step_fn(x):
                return model(x) * steps
            return strategy.run(step_fn, args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def make_counter():
            counter = tf.Variable(0.0)
            return counter


        with strategy.scope():
            steps = make_counter()
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


        @tf.function
        def train_step(x):
            def step_fn(x):
                return model(x) * steps
            return strategy.run(step_fn, args=(x,))
        """,
        note="factory returning a local name",
    ),
    Invalid(
        """
        import tensorflow as tf
        from tensorflow import keras

        strategy = tf.distribute.MirroredStrategy()
        model: keras.Model = keras.Sequential([keras.layers.Dense(1)])
        with strategy.scope():
            model.compile(optimizer="sgd", loss="mse")
        """,
        after="""
        import tensorflow as tf
        from tensorflow import keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model: keras.Model = keras.Sequential([keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
        """,
        note="annotated assignment",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def make_counter():
            counter = tf.Variable(0.0)
            return counter


        with strategy.scope():
            steps = make_counter()


        @tf.function
        def train_step(x):
            def step_fn(x):
                steps.assign_add(1.0)
                return x
            return strategy.run(step_fn, args=(x,))
        """,
        note="factory returning a local name called inside the scope",
    ),
    Invalid(
        """
        from tensorflow import keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(1)])
        optimizer = keras.optimizers.Adam()


        @tf.function
        def train_step(x, y):
            def step_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((model(x) - y) ** 2)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return strategy.run(step_fn, args=(x, y))
        """,
        after="""
        from tensorflow import keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(1)])
            optimizer = keras.optimizers.Adam()


        @tf.function
        def train_step(x, y):
            def step_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((model(x) - y) ** 2)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return strategy.run(step_fn, args=(x, y))
        """,
        note="optimizer after the block used in replica fn",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def train_step(x):
            strategy.run(replica_step, args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            optimizer.build(model.trainable_variables)


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def train_step(x):
            strategy.run(replica_step, args=(x,))
        """,
        note="a moved Adam is built for the compiled step",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable([1.0, 2.0])


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * x)
            optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))


        @tf.function
        def train_step(x):
            strategy.run(replica_step, args=(x,))


        optimizer = tf.keras.optimizers.RMSprop()
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable([1.0, 2.0])


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(w * x)
            optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))


        @tf.function
        def train_step(x):
            strategy.run(replica_step, args=(x,))


        with strategy.scope():
            optimizer = tf.keras.optimizers.RMSprop()
            optimizer.build([w])
        """,
        note="a wrapped RMSprop over plain variables is built (seed 002 shape)",
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        def build_model():
            return keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(1)])

        strategy = tf.distribute.MirroredStrategy()
        model = build_model()
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        after="""
        import keras
        import tensorflow as tf

        def build_model():
            return keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(1)])

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="adam", loss="mse")
        """,
        note="factory called outside",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy as M
        import tensorflow as tf

        strategy = M()
        w = tf.Variable([1.0, 2.0])


        def replica_fn(x):
            return tf.reduce_sum(w * x)


        @tf.function
        def step(x):
            return strategy.run(replica_fn, args=(x,))
        """,
        after="""
        from tensorflow.distribute import MirroredStrategy as M
        import tensorflow as tf

        strategy = M()
        with strategy.scope():
            w = tf.Variable([1.0, 2.0])


        def replica_fn(x):
            return tf.reduce_sum(w * x)


        @tf.function
        def step(x):
            return strategy.run(replica_fn, args=(x,))
        """,
        note="aliased strategy class, new scope block",
    ),
    Invalid(
        """
        import tensorflow.compat.v2 as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.applications.ResNet50(weights=None)
        model.compile(optimizer="adam", loss="mse")
        model.fit(dataset, epochs=1)
        """,
        after="""
        import tensorflow.compat.v2 as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.applications.ResNet50(weights=None)
            model.compile(optimizer="adam", loss="mse")
        model.fit(dataset, epochs=1)
        """,
        # One finding: the strategy is never used, so the compile is part of the model's report (prec40).
        count=1,
        note="compat v2 application trained with fit",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(dataset)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
        model.fit(dataset)
        """,
        note="compile after the scope",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.dense(x)


        def main(strategy):
            net = Net()
            with strategy.scope():
                net.compile(optimizer="adam", loss="mse")
            net.fit(data)
        """,
        after="""
        import tensorflow as tf


        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)

            def call(self, x):
                return self.dense(x)


        def main(strategy):
            with strategy.scope():
                net = Net()
                net.compile(optimizer="adam", loss="mse")
            net.fit(data)
        """,
        note="model subclass and strategy parameter",
    ),
    Valid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
                self.loss_metric = tf.keras.metrics.Mean()
                with self.strategy.scope():
                    self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

            def step_fn(self, x):
                loss = tf.reduce_mean(self.model(x))
                self.loss_metric.update_state(loss)
                return loss

            @tf.function
            def train_step(self, x):
                return self.strategy.run(self.step_fn, args=(x,))
        """,
        note="a metric made outside the scope and updated in a custom loop's replica fn counts every replica",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
                self.total = tf.Variable(0.0)
                with self.strategy.scope():
                    self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

            def step_fn(self, x):
                loss = tf.reduce_mean(self.model(x))
                self.total.assign_add(loss)
                return loss

            @tf.function
            def train_step(self, x):
                return self.strategy.run(self.step_fn, args=(x,))
        """,
        note="variable on self a method replica fn assign_adds: no edit, moved as is each replica keeps its copy",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def make_optimizer():
            return tf.keras.optimizers.Adam(1e-3)


        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        opt = make_optimizer()
        with strategy.scope():
            model.compile(optimizer=opt, loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def make_optimizer():
            return tf.keras.optimizers.Adam(1e-3)


        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        with strategy.scope():
            opt = make_optimizer()
            model.compile(optimizer=opt, loss="mse")
        """,
        note="optimizer factory between two scopes",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            my_var = tf.Variable(0.0)
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(optimizer="adam", loss="mse")
        model.fit(dataset)
        """,
        note="everything inside fit outside",
    ),
    Valid(
        """
        import tensorflow as tf

        def build_model():
            return tf.keras.Sequential([tf.keras.layers.Dense(1)])

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="adam", loss="mse")
        """,
        note="factory called only inside",
    ),
    Valid(
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        model.fit(dataset)
        """,
        note="no strategy at all",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        step_counter = tf.Variable(0, trainable=False)
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        for batch in dataset:
            step_counter.assign_add(1)
        """,
        note="cross-replica counter used outside",
    ),
    Valid(
        """
        import tensorflow as tf


        def replica_fn(x):
            return x * 2


        def build(strategy):
            with strategy.scope():
                w = tf.Variable(1.0)
                optimizer = tf.keras.optimizers.SGD()
            return w, optimizer
        """,
        note="strategy parameter scope",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        callbacks = [tf.keras.callbacks.TensorBoard(log_dir="logs")]
        model.fit(dataset, callbacks=callbacks)
        """,
        note="callbacks outside are fine",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        eval_model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        eval_model.predict(inputs)
        """,
        note="separate model for local inference",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])  # distfix: ignore[TFD101]
        with strategy.scope():
            model.compile(optimizer="sgd", loss="mse")
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            def build():
                return tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model = build()
        """,
        note="factory defined and called inside",
    ),
    Valid(
        """
        import tensorflow as tf

        v = tf.Variable(1.0)
        print(v.numpy())
        """,
        note="plain variable without distribution",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        scope = strategy.scope()
        with scope:
            model = tf.keras.Sequential([tf.keras.layers.Input((8,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(1e-3)
        with scope:
            model.compile(optimizer=optimizer, loss="mse")
        model.fit(features, labels, epochs=2)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        scope = strategy.scope()
        with scope:
            model = tf.keras.Sequential([tf.keras.layers.Input((8,)), tf.keras.layers.Dense(1)])
        with scope:
            optimizer = tf.keras.optimizers.Adam(1e-3)
            model.compile(optimizer=optimizer, loss="mse")
        model.fit(features, labels, epochs=2)
        """,
        note="scope object kept in a variable: moved into its `with scope:` block",
    ),
    Valid(
        """
        import tensorflow as tf


        def build(strategy, width):
            distributed = strategy.scope()
            with distributed:
                model = tf.keras.Sequential([tf.keras.layers.Input((width,)), tf.keras.layers.Dense(1)])
                model.compile(optimizer="adam", loss="mse")
            return model


        model = build(tf.distribute.MirroredStrategy(), 16)
        model.fit(features, labels)
        """,
        note="a factory that enters the strategy's scope (kept in a variable) itself",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def make_model():
            return tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])


        def train_baseline(x, y):
            model = make_model()
            opt = tf.keras.optimizers.Adam()
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        def train_distributed(dist_x, dist_y):
            with strategy.scope():
                model = make_model()
                opt = tf.keras.optimizers.Adam()

            def replica(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(x) - y))
                opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

            strategy.run(replica, args=(dist_x, dist_y))


        train_baseline(features, labels)
        train_distributed(features, labels)
        """,
        note="a single-device baseline in its own function",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        epoch_loss = tf.keras.metrics.Mean()


        class Regressor(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                epoch_loss.update_state(loss)
                return {"loss": epoch_loss.result()}


        with strategy.scope():
            model = Regressor()
            model.compile(optimizer="sgd", loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            epoch_loss = tf.keras.metrics.Mean()


        class Regressor(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                epoch_loss.update_state(loss)
                return {"loss": epoch_loss.result()}


        with strategy.scope():
            model = Regressor()
            model.compile(optimizer="sgd", loss="mse")
        """,
        note="metric updated in the train_step of a model built in the scope: fit runs it per replica",
    ),
)
