"""Examples of TFD110 (sync-point-under-tensor-condition).

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
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            step = tf.Variable(0, trainable=False)

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            if (step + 1) % 4 == 0:
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
            step.assign_add(1)
        """,
        note="an `if` on a tf.Variable step counter",
        range="14:9-14:73",
        message=(
            "`apply_gradients` under `if (step + 1) % 4 == 0` (a tensor) in replica code fails tracing with "
            "`merge_call called while defining a new graph`; decide in the step: `if ...: strategy.run(apply_fn)`"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def replica_step(x, y, step):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)

            def apply():
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return tf.constant(0)

            tf.cond(tf.equal(step % 4, 0), apply, lambda: tf.constant(0))

        @tf.function
        def train_step(x, y, step):
            strategy.run(replica_step, args=(x, y, step))
        """,
        note="a tf.cond branch, through a nested def",
        message=(
            "`apply_gradients` in a `tf.cond` branch in replica code fails tracing with "
            "`merge_call called while defining a new graph`; decide in the step: `if ...: strategy.run(apply_fn)`"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        @tf.function
        def train_step(x, y):
            def replica_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
                grads = tape.gradient(loss, model.trainable_variables)
                tf.cond(
                    optimizer.iterations % 4 == 0,
                    lambda: optimizer.apply_gradients(zip(grads, model.trainable_variables)),
                    lambda: optimizer.iterations,
                )

            strategy.run(replica_step, args=(x, y))
        """,
        note="a tf.cond branch lambda",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            optimizer.build(model.trainable_variables)

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            if optimizer.iterations < WARMUP:
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="an `if` on optimizer.iterations",
    ),
    Invalid(
        """
        import tensorflow as tf

        class Accumulating(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                tf.cond(
                    self.optimizer.iterations % 4 == 0,
                    lambda: self.optimizer.apply_gradients(zip(grads, self.trainable_variables)),
                    lambda: self.optimizer.iterations,
                )
                return {"loss": loss}

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Accumulating(inputs, outputs)
            model.compile(optimizer="sgd", loss="mse")
        model.fit(dataset)
        """,
        note="a train_step override that fit runs on every replica",
        message=(
            "`apply_gradients` in a `tf.cond` branch in replica code fails tracing with "
            "`merge_call called while defining a new graph`; `fit` has no step of yours to decide in: use a custom loop"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            counter = tf.Variable(0)

        def apply(grads):
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            if tf.math.floormod(counter, 4) == 0:
                apply(grads)

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="the update made by a helper the tensor `if` calls",
        message=(
            "`apply_gradients` under `if tf.math.floormod(cou...` (a tensor) in replica code fails tracing with "
            "`merge_call called while defining a new graph`; decide in the step: `if ...: strategy.run(apply_fn)`"
        ),
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
            optimizer = keras.optimizers.SGD(0.01)
            optimizer.build(model.trainable_variables)

        def replica_step(x, y, accumulate):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            if not accumulate:
                optimizer.apply(grads, model.trainable_variables)

        @tf.function
        def train_step(x, y, step):
            strategy.run(replica_step, args=(x, y, tf.not_equal(step % 4, 0)))
        """,
        note="Keras 3 optimizer.apply, the condition a tensor given to strategy.run",
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
            model.compile(optimizer=keras.optimizers.AdamW(1e-3, gradient_accumulation_steps=4), loss="mse")
        model.fit(dataset, epochs=3)
        """,
        note="Keras 3's own gradient accumulation under a strategy",
        message=(
            "Keras 3 accumulation applies under a graph condition: under a strategy `fit` fails with "
            "`merge_call called while defining a new graph`; accumulate in a custom loop"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        optimizer = tf.keras.optimizers.SGD(0.01, gradient_accumulation_steps=ACCUMULATE)
        ACCUMULATE = 8
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            model.compile(optimizer=optimizer, loss="mse")
        """,
        note="tf.keras is Keras 3 on TF 2.21; the optimizer given to a compile in the scope",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            step = tf.Variable(0)

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            while step < 2:
                optimizer.minimize(loss, model.trainable_variables, tape=tape)

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="a `while` on a variable",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def replica_step(x, y):
            for _ in tf.range(INNER_STEPS):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="a `for` over tf.range (autograph's while loop)",
        message=(
            "`apply_gradients` under `for _ in tf.range(INNER...` (a tensor) in replica code fails tracing with "
            "`merge_call called while defining a new graph`; decide in the step: `if ...: strategy.run(apply_fn)`"
        ),
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def replica_step(x, y):
            for head in range(HEADS):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="a Python `range` loop is unrolled when the step is traced",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            step = tf.Variable(0, trainable=False)

        def accumulate(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            for a, g in zip(accumulators, tape.gradient(loss, model.trainable_variables)):
                a.assign_add(g)

        def apply():
            optimizer.apply_gradients(zip([a / 4 for a in accumulators], model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(accumulate, args=(x, y))
            step.assign_add(1)
            if step % 4 == 0:
                strategy.run(apply)
        """,
        note="the tensor condition in cross-replica code (measured to work)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def accumulate(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            for a, g in zip(accumulators, tape.gradient(loss, model.trainable_variables)):
                a.assign_add(g)

        def apply():
            optimizer.apply_gradients(zip([a / 4 for a in accumulators], model.trainable_variables))

        @tf.function
        def accumulate_step(x, y):
            strategy.run(accumulate, args=(x, y))

        @tf.function
        def apply_step():
            strategy.run(apply)

        for step, (x, y) in enumerate(dataset):
            accumulate_step(x, y)
            if (step + 1) % 4 == 0:
                apply_step()
        """,
        note="two compiled steps, Python decides (measured to work)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            if config.accumulation_steps == 1:
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="a Python config value: decided when the step is traced",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            step = tf.Variable(0)

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            tf.cond(step % 4 == 0, lambda: optimizer.apply_gradients(zip(grads, model.trainable_variables)), lambda: None)

        for x, y in dist_dataset:
            strategy.run(replica_step, args=(x, y))
        """,
        note="an eager strategy.run: the condition is decided eagerly (measured to run)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            step = tf.Variable(0)

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            if step % 4 == 0:
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="one replica: nothing to synchronize",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
            grads = tape.gradient(loss, model.trainable_variables)
            grads = [tf.where(tf.math.is_finite(g), g, tf.zeros_like(g)) for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            if tf.reduce_any(tf.math.is_nan(loss)):
                tf.print("nan loss")

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y))
        """,
        note="a tensor condition that holds no update",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.01, gradient_accumulation_steps=1), loss="mse")
        model.fit(dataset)
        """,
        note="gradient_accumulation_steps=1 accumulates nothing",
    ),
    Valid(
        """
        import keras

        model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
        model.compile(optimizer=keras.optimizers.SGD(0.01, gradient_accumulation_steps=4), loss="mse")
        model.fit(dataset)
        """,
        note="Keras 3 accumulation without a strategy trains (measured)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def replica_step(x, y, tape_grads):
            if tape_grads is None:
                return
            optimizer.apply_gradients(zip(tape_grads, model.trainable_variables))

        @tf.function
        def train_step(x, y):
            strategy.run(replica_step, args=(x, y, None))
        """,
        note="`is None` is Python's answer, whatever the value",
    ),
)
