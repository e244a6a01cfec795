"""Examples of TFD103 (train-step-outside-strategy-run).

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
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()

            def train_step(data, labels):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(data) - labels))
                gradients = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(gradients, model.trainable_variables))
                return loss

            dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(64)
            for data, labels in dataset:
                loss = train_step(data, labels)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()

            def train_step(data, labels):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(tf.square(model(data) - labels))
                gradients = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(gradients, model.trainable_variables))
                return loss

            dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(64)
            for data, labels in strategy.experimental_distribute_dataset(dataset):
                loss = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(train_step, args=(data, labels)), axis=None)
        """,
        note="seed 004 step called inside the scope; the plain dataset is distributed too",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.1)
        dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).map(to_pair).batch(16))

        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for x, y in dist:
            print(step(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.1)
        dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(64).map(to_pair).batch(16))

        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        @tf.function
        def distributed_step(x, y):
            return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(step, args=(x, y)), axis=None)

        for x, y in dist:
            print(distributed_step(x, y))
        """,
        note="per-replica mean loss: SUM, consistent with TFD303 dividing it by the replicas",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable(tf.zeros([4]))
            sgd = tf.keras.optimizers.SGD(0.01)

        def step(x):
            sgd.minimize(lambda: loss_fn(w, x), [w])

        for x in strategy.experimental_distribute_dataset(tf.data.Dataset.range(32).batch(8)):
            step(x)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            w = tf.Variable(tf.zeros([4]))
            sgd = tf.keras.optimizers.SGD(0.01)

        def step(x):
            sgd.minimize(lambda: loss_fn(w, x), [w])

        @tf.function
        def distributed_step(x):
            strategy.run(step, args=(x,))

        for x in strategy.experimental_distribute_dataset(tf.data.Dataset.range(32).batch(8)):
            distributed_step(x)
        """,
        note="minimize on scope variables, result unused",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy as Mirrored
        import tensorflow as tf

        strategy = Mirrored()
        with strategy.scope():
            model = make_model()
            optimizer = tf.keras.optimizers.SGD(0.1)
        batches = strategy.experimental_distribute_dataset(train_ds)

        @tf.function
        def train_step(x, training=True):
            with tf.GradientTape() as tape:
                loss = custom_loss(model(x, training=training))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        for batch in batches:
            train_step(batch, training=True)
        """,
        after="""
        from tensorflow.distribute import MirroredStrategy as Mirrored
        import tensorflow as tf

        strategy = Mirrored()
        with strategy.scope():
            model = make_model()
            optimizer = tf.keras.optimizers.SGD(0.1)
        batches = strategy.experimental_distribute_dataset(train_ds)

        @tf.function
        def train_step(x, training=True):
            with tf.GradientTape() as tape:
                loss = custom_loss(model(x, training=training))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        for batch in batches:
            strategy.run(train_step, args=(batch,), kwargs={"training": True})
        """,
        note="keyword arguments",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()

        def step(x):
            with tf.GradientTape() as tape:
                loss = my_loss(x)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        history = [step(x) for x in strategy.experimental_distribute_dataset(ds)]
        """,
        after=None,
        note="result used and loss scaling unknown: advice",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
                with self.strategy.scope():
                    self.weights = [tf.Variable(tf.ones([3]))]
                    self.optimizer = tf.keras.optimizers.SGD(0.1)

            def train_step(self, x):
                with tf.GradientTape() as tape:
                    loss = self.loss(x)
                self.optimizer.apply_gradients(zip(tape.gradient(loss, self.weights), self.weights))

            def fit(self, batches):
                for x in batches:
                    self.train_step(x)
        """,
        after=None,
        note="method call on self: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        def build(strategy):
            with strategy.scope():
                net = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.Dense(1)])
                opt = tf.keras.optimizers.RMSprop()
            return net, opt

        def train(strategy, files):
            net, opt = build(strategy)

            def step(x):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(net(x))
                opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))

            for x in tf.data.TFRecordDataset(files).map(decode).batch(32):
                step(x)
        """,
        after="""
        import tensorflow as tf

        def build(strategy):
            with strategy.scope():
                net = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.Dense(1)])
                opt = tf.keras.optimizers.RMSprop()
            return net, opt

        def train(strategy, files):
            net, opt = build(strategy)

            def step(x):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(net(x))
                opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))

            for x in strategy.experimental_distribute_dataset(tf.data.TFRecordDataset(files).map(decode).batch(32)):
                strategy.run(step, args=(x,))
        """,
        note="model and optimizer from a factory that builds them in the scope; strategy parameter",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="adam")

        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            model.optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_weights), model.trainable_weights))

        step(tf.ones([8, 3]), tf.ones([8, 1]))
        """,
        after=None,
        note="tensors that are not distributed batches: advice, not a full batch on every replica",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def apply(tape, loss):
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y), global_batch_size=32)
            apply(tape, loss)

        def epoch(dist_ds):
            for x, y in dist_ds:
                train_step(x, y)

        epoch(strategy.experimental_distribute_dataset(ds))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)

        def apply(tape, loss):
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y), global_batch_size=32)
            apply(tape, loss)

        @tf.function
        def distributed_train_step(x, y):
            strategy.run(train_step, args=(x, y))

        def epoch(dist_ds):
            for x, y in dist_ds:
                distributed_train_step(x, y)

        epoch(strategy.experimental_distribute_dataset(ds))
        """,
        note="step split across functions: the whole step is run, never a tape",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()

        def step(x):
            optimizer.apply_gradients(compute(x))

        @tf.function
        def distributed_step(x):
            return strategy.run(step, args=(x,))
        """,
        note="through strategy.run",
    ),
    Valid(
        """
        import tensorflow as tf

        def step(x):
            optimizer.apply_gradients(compute(x))

        for x in batches:
            step(x)
        """,
        note="no strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        class Net(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(y=y, y_pred=self(x))
                self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_variables), self.trainable_variables))
                return {"loss": loss}
        """,
        note="Keras train_step override",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()

        def replica_fn(x):
            return helper_step(x)

        def helper_step(x):
            optimizer.apply_gradients(compute(x))

        strategy.run(replica_fn, args=(x,))
        """,
        note="helper called from the replica fn",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()

        def step(x):
            per_replica = strategy.run(inner, args=(x,))
            optimizer.apply_gradients(per_replica)

        step(x)
        """,
        note="a step that calls strategy.run itself",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()

        def step(x):
            optimizer.apply_gradients(compute(x))

        step(x)  # distfix: ignore[TFD103]
        """,
        note="suppressed",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()

        def step(x):
            optimizer.apply_gradients(compute(x))

        distributed = functools.partial(strategy.run, step)
        """,
        note="passed as a value not called",
    ),
    Valid(
        """
        import tensorflow as tf

        def make_strategy():
            return tf.distribute.MirroredStrategy()

        def warm_start(x):
            local_optimizer.apply_gradients(compute(x))

        warm_start(x)
        """,
        note="strategy factory never called",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            classifier = build_classifier()
            classifier.compile(optimizer="adam", loss="mse")
        classifier.fit(train_ds, epochs=3)

        temperature = tf.Variable(1.0)
        temp_opt = tf.keras.optimizers.SGD(0.05)

        @tf.function
        def fit_temperature(logits, labels):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(logits / temperature - labels))
            temp_opt.apply_gradients(zip(tape.gradient(loss, [temperature]), [temperature]))

        for logits, labels in calibration_batches:
            fit_temperature(logits, labels)
        """,
        note="a side model trained on one device, its variables created outside any scope",
    ),
    Valid(
        """
        import tensorflow as tf

        def update(model, tape, loss):
            grads = tape.gradient(loss, model.trainable_variables)
            model.optimizer.apply_gradients(zip(grads, model.trainable_variables))

        class Custom(tf.keras.Model):
            def train_step(self, batch):
                x, y = batch
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(y=y, y_pred=self(x, training=True))
                update(self, tape, loss)
                return {"loss": loss}

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Custom(inputs, outputs)
            model.compile(optimizer="sgd", loss="mse")
        model.fit(ds)
        """,
        note="module helper called from a Keras train_step, which fit runs on every replica",
    ),
    Valid(
        """
        import tensorflow as tf

        device = tf.distribute.OneDeviceStrategy("/gpu:0")
        with device.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()

        @tf.function
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        for x, y in ds:
            step(x, y)
        """,
        note="OneDeviceStrategy: the one device trains",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y)[:, 0], global_batch_size=64)
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        for x, y in strategy.experimental_distribute_dataset(dataset):
            loss = train_step(x, y)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()
            optimizer.build(model.trainable_variables)

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y)[:, 0], global_batch_size=64)
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        for x, y in strategy.experimental_distribute_dataset(dataset):
            loss = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(train_step, args=(x, y)), axis=None)
        """,
        note="a compiled step with Adam: the optimizer is built first",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.optimizers.Adam()

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y)[:, 0], global_batch_size=64)
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        for x, y in strategy.experimental_distribute_dataset(dataset):
            train_step(x, y)
        """,
        after=None,
        note="a compiled step with Adam on a model that may be unbuilt: advice",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam(1e-3)


        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.square(model(x) - y)[:, 0], global_batch_size=64)
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss


        step = 0
        iterator = iter(strategy.experimental_distribute_dataset(dataset))
        while step < 1000:
            x, y = next(iterator)
            loss = train_step(x, y)
            step += 1
        """,
        after=None,
        note="arguments unpacked from `next` are not loop elements: advice",
    ),
)
