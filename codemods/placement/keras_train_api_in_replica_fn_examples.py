"""Examples of TFD106 (keras-train-api-in-replica-fn).

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
            model.compile(optimizer="sgd", loss="mse")

        def replica_fn(x, y):
            model.train_on_batch(x, y)

        @tf.function
        def step(x, y):
            strategy.run(replica_fn, args=(x, y))
        """,
        note="train_on_batch in the replica fn",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        def replica_fn(batch):
            return model.predict(batch, verbose=0)

        for batch in dist_dataset:
            outputs = strategy.run(replica_fn, args=(batch,))
        """,
        note="predict in an eager run",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def fit_one(model, x, y):
            model.fit(x, y, epochs=1, verbose=0)

        def replica_fn(x, y):
            fit_one(model, x, y)

        strategy.run(replica_fn, args=(x, y))
        """,
        note="fit in a helper of the replica fn",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def evaluate_step(x, y):
            return strategy.run(lambda a, b: model.evaluate(a, b, verbose=0), args=(x, y))
        """,
        note="evaluate in a lambda",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()

            def _replica_step(self, x, y):
                return self.model.test_on_batch(x, y)

            def step(self, x, y):
                return self.strategy.run(self._replica_step, args=(x, y))
        """,
        note="test_on_batch in a method",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy

        strategy = MirroredStrategy()

        def replica_fn(x):
            return keras_model.predict_on_batch(x)

        strategy.run(replica_fn, args=(x,))
        """,
        note="predict_on_batch, strategy imported by name",
    ),
    Invalid(
        """
        import tensorflow as tf

        def train(strategy: tf.distribute.Strategy, model, batches):
            def replica_fn(x, y):
                model.fit(x, y, verbose=0)

            for x, y in batches:
                strategy.run(replica_fn, args=(x, y))
        """,
        note="strategy typed as a parameter",
    ),
    Invalid(
        """
        import tensorflow as tf

        def train(strategy, model, batches):
            with strategy.scope():
                pass

            def replica_fn(x, y):
                model.fit(x, y, verbose=0)
                model.evaluate(x, y, verbose=0)

            for x, y in batches:
                strategy.run(replica_fn, args=(x, y))
        """,
        count=2,
        note="parameter entered as a scope, two calls",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
        model.fit(dataset, epochs=2)
        model.evaluate(dataset)
        """,
        note="fit in cross-replica code",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        @tf.function
        def step(x, y):
            return strategy.run(replica_fn, args=(x, y))

        model.evaluate(test_dataset)
        """,
        note="custom step, evaluate outside",
    ),
    Valid(
        """
        import ray

        executor = ray.train.Executor()

        def train_fn(config):
            model.fit(config["x"], config["y"])

        executor.run(train_fn, args=[config])
        """,
        note="a Ray executor's run is not strategy.run",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        class Ensemble:
            def predict(self, x):
                return sum(m(x) for m in self.members)

        def replica_fn(x):
            return ensemble.predict(x)

        strategy.run(replica_fn, args=(x,))
        """,
        note="a predict method defined in the module",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            return model(x, training=False)

        def run_eval(x):
            predictions = strategy.run(replica_fn, args=(x,))
            model.predict(x)
            return predictions
        """,
        note="predict next to strategy.run, not in the replica fn",
    ),
    Valid(
        """
        import tensorflow as tf

        class MyModel(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                return self.compute_metrics(x, y, self(x), None)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = MyModel()
            model.compile(optimizer="adam", loss="mse")
        model.fit(x, y)
        """,
        note="train_step override used by fit",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            scaler.fit_transform(x)
            return tf.reduce_sum(x)

        strategy.run(replica_fn, args=(x,))
        """,
        note="other fit-like names",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            def later():
                model.fit(x)
            return tf.reduce_sum(x)

        strategy.run(replica_fn, args=(x,))
        """,
        note="a nested def that is never called",
    ),
)
