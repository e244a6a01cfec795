"""Examples of TFD109 (unbuilt-optimizer-in-compiled-step).

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
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()


        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss


        @tf.function
        def distributed_train_step(x, y):
            per_replica = strategy.run(train_step, args=(x, y))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            optimizer.build(model.trainable_variables)


        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss


        @tf.function
        def distributed_train_step(x, y):
            per_replica = strategy.run(train_step, args=(x, y))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
        """,
        note="the custom-training tutorial shape",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))


        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = optimizer.scale_loss(tf.reduce_mean(tf.square(model(x) - y)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def distributed_train_step(x, y):
            strategy.run(train_step, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))
            optimizer.build(model.trainable_variables)


        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = optimizer.scale_loss(tf.reduce_mean(tf.square(model(x) - y)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def distributed_train_step(x, y):
            strategy.run(train_step, args=(x, y))
        """,
        note="a LossScaleOptimizer has state even around plain SGD",
    ),
    Invalid(
        """
        import tensorflow as tf

        features = tf.random.normal((64, 784))
        labels = tf.random.uniform((64, 1))
        dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.RMSprop(1e-3)


        @tf.function
        def step(x, y):
            def replica(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            strategy.run(replica, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        features = tf.random.normal((64, 784))
        labels = tf.random.uniform((64, 1))
        dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.RMSprop(1e-3)
            model.build((None, 784))
            optimizer.build(model.trainable_variables)


        @tf.function
        def step(x, y):
            def replica(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            strategy.run(replica, args=(x, y))
        """,
        note="model without Input, shape from the dataset",
    ),
    Invalid(
        """
        import tensorflow as tf

        (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
        dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(64)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
            optimizer = tf.keras.optimizers.Adam()


        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def distributed_train_step(x, y):
            strategy.run(train_step, args=(x, y))
        """,
        note="shape loaded at run time: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        images = tf.random.normal((64, 28, 28))
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
            optimizer = tf.keras.optimizers.Adam()


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(tf.expand_dims(x, -1)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(replica_step, args=(x,))


        step(images)
        """,
        note="input reshaped before the model: its shape is not the data's, advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
            opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)


        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def train(x):
            strategy.run(replica_fn, args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
            opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
            opt.build(model.trainable_variables)


        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(model(x))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def train(x):
            strategy.run(replica_fn, args=(x,))
        """,
        note="SGD with momentum",
    ),
    Invalid(
        """
        import os

        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
            optimizer = keras.optimizers.AdamW(weight_decay=1e-4)


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(replica_step, args=(x,))
        """,
        after="""
        import os

        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
            optimizer = keras.optimizers.AdamW(weight_decay=1e-4)
            optimizer.build(model.trainable_variables)


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(replica_step, args=(x,))
        """,
        note="standalone keras is Keras 3 whatever the switch says",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            W = tf.Variable(tf.random.normal((784, 10)), name="weights")
            b = tf.Variable(tf.zeros((10,)), name="biases")
            optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)


        def train_step(images, labels):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(images, W) + b - labels))
            gradients = tape.gradient(loss, [W, b])
            optimizer.apply_gradients(zip(gradients, [W, b]))
            return loss


        @tf.function
        def distributed_train_step(images, labels):
            return strategy.run(train_step, args=(images, labels))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            W = tf.Variable(tf.random.normal((784, 10)), name="weights")
            b = tf.Variable(tf.zeros((10,)), name="biases")
            optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
            optimizer.build([W, b])


        def train_step(images, labels):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(images, W) + b - labels))
            gradients = tape.gradient(loss, [W, b])
            optimizer.apply_gradients(zip(gradients, [W, b]))
            return loss


        @tf.function
        def distributed_train_step(images, labels):
            return strategy.run(train_step, args=(images, labels))
        """,
        note="plain variables (seed 002 shape)",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adagrad(0.1)
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        def step(x):
            strategy.run(replica_step, args=(x,))


        step = tf.function(step)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adagrad(0.1)
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer.build(model.trainable_variables)


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        def step(x):
            strategy.run(replica_step, args=(x,))


        step = tf.function(step)
        """,
        note="model made after its optimizer; step compiled by assignment",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy
                with self.strategy.scope():
                    self.model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
                    self.optimizer = tf.keras.optimizers.Nadam()

            def replica_step(self, x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.model(x))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            @tf.function
            def step(self, x):
                self.strategy.run(self.replica_step, args=(x,))


        trainer = Trainer(tf.distribute.MirroredStrategy())
        """,
        after="""
        import tensorflow as tf


        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy
                with self.strategy.scope():
                    self.model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
                    self.optimizer = tf.keras.optimizers.Nadam()
                    self.optimizer.build(self.model.trainable_variables)

            def replica_step(self, x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(self.model(x))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

            @tf.function
            def step(self, x):
                self.strategy.run(self.replica_step, args=(x,))


        trainer = Trainer(tf.distribute.MirroredStrategy())
        """,
        note="a trainer class with self.optimizer",
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf


        def train(strategy, batches):
            with strategy.scope():
                inputs = keras.Input(shape=(6,))
                model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
                optimizer = keras.optimizers.Lion(1e-4)

            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply(grads, model.trainable_variables)

            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))

            for x in batches:
                step(x)
        """,
        after="""
        import keras
        import tensorflow as tf


        def train(strategy, batches):
            with strategy.scope():
                inputs = keras.Input(shape=(6,))
                model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
                optimizer = keras.optimizers.Lion(1e-4)
                optimizer.build(model.trainable_variables)

            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply(grads, model.trainable_variables)

            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))

            for x in batches:
                step(x)
        """,
        note="strategy parameter, functional model, Keras 3 apply",
    ),
    Invalid(
        """
        import tensorflow as tf

        features = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(replica_step, args=(x,))


        step(features)
        """,
        after="""
        import tensorflow as tf

        features = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
            model.build((None, 2))
            optimizer.build(model.trainable_variables)


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(replica_step, args=(x,))


        step(features)
        """,
        note="plain SGD on a model the step would build; shape from the step's tensor",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            optimizer.build(model.trainable_variables)


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="built in the scope",
    ),
    Valid(
        """
        import os

        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="tf.keras is tf-keras here: measured running",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf_keras.Sequential([tf_keras.layers.Dense(1)])
            optimizer = tf_keras.optimizers.Adam()


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="tf_keras optimizer",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="plain SGD keeps no state",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        for x in batches:
            strategy.run(train_step, args=(x,))
        """,
        note="eager strategy.run: measured running",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="one replica",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam()


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="created outside the scope is TFD101's finding",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        model.fit(dataset, epochs=2)
        """,
        note="fit builds the optimizer itself",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy(devices=["/gpu:0"])
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="a MirroredStrategy on one listed device",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Muon(0.1)


        def train_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(train_step, args=(x,))
        """,
        note="an optimizer class that was not measured",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()


        def replica_step(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        @tf.function
        def step(x):
            strategy.run(replica_step, args=(x,))
        """,
        note="MultiWorkerMirroredStrategy: measured running",
    ),
)
