"""Examples of TFD104 (several-strategies).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        first = tf.distribute.MirroredStrategy()
        with first.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        second = tf.distribute.MirroredStrategy()
        with second.scope():
            model.compile(optimizer="adam", loss="mse")
        model.fit(x, y)
        """,
        note="model of the first compiled in the second",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="sgd", loss="mse")

        strategy = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
        with strategy.scope():
            model.fit(x, y)
        """,
        note="name rebound to a second strategy",
    ),
    Invalid(
        """
        import tensorflow as tf

        model = make_model()
        for fold in range(5):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model.fit(folds[fold])
        """,
        note="strategy per iteration, model from before the loop",
    ),
    Invalid(
        """
        import tensorflow as tf

        model = None
        for fold in range(5):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                if model is None:
                    model = make_model()
                model.compile(optimizer="adam", loss="mse")
            model.fit(folds[fold])
        """,
        note="model made on the first iteration only (measured)",
    ),
    Invalid(
        """
        import tensorflow as tf

        with tf.distribute.MirroredStrategy().scope():
            model = make_model()

        def main():
            pass

        while True:
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model.compile(optimizer="adam")
            break
        """,
        note="while loop",
    ),
    Invalid(
        """
        import tensorflow as tf

        def train(model, data):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model.compile(optimizer="adam", loss="mse")
            model.fit(data)

        model = make_model()
        for data in folds:
            train(model, data)
        """,
        note="a function building a strategy called in a loop",
    ),
    Invalid(
        """
        import tensorflow as tf

        def fine_tune(lr):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                optimizer.build(model.trainable_variables)
                model.compile(optimizer=optimizer)

        fine_tune(1e-3)
        fine_tune(1e-4)
        """,
        note="a function called twice using globals",
    ),
    Invalid(
        """
        from tensorflow.distribute import MirroredStrategy, OneDeviceStrategy

        def run():
            single = OneDeviceStrategy("/cpu:0")
            with single.scope():
                weights = tf.Variable(1.0)
            multi = MirroredStrategy()
            with multi.scope():
                weights.assign_add(1.0)
        """,
        note="two strategies in one function",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        scope = strategy.scope()
        with scope:
            optimizer = tf.keras.optimizers.Adam()

        other = tf.distribute.MultiWorkerMirroredStrategy()
        with other.scope():
            optimizer.apply_gradients(zip(grads, variables))
        """,
        note="scope object and optimizer",
    ),
    Valid(
        """
        import tensorflow as tf

        if len(tf.config.list_physical_devices("GPU")) > 1:
            strategy = tf.distribute.MirroredStrategy()
        else:
            strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            model = make_model()
            model.compile(optimizer="adam")
        """,
        note="alternative branches",
    ),
    Valid(
        """
        import tensorflow as tf

        def test_mirrored():
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = make_model()
            model.fit(x, y)

        def test_one_device():
            strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
            with strategy.scope():
                model = make_model()
            model.fit(x, y)
        """,
        note="separate test functions",
    ),
    Valid(
        """
        import tensorflow as tf

        single = tf.distribute.OneDeviceStrategy("/cpu:0")
        with single.scope():
            baseline = make_model()
            baseline.compile(optimizer="sgd", loss="mse")
        multi = tf.distribute.MirroredStrategy()
        with multi.scope():
            model = make_model()
            model.compile(optimizer="sgd", loss="mse")
        baseline.fit(x, y)
        model.fit(x, y)
        """,
        note="each strategy with its own model",
    ),
    Valid(
        """
        import tensorflow as tf

        for replicas in (1, 2, 4):
            strategy = tf.distribute.MirroredStrategy(devices[:replicas])
            with strategy.scope():
                model = make_model()
                model.compile(optimizer="adam", loss="mse")
            model.fit(x, y)
        """,
        note="a new model per iteration",
    ),
    Valid(
        """
        import tensorflow as tf

        for fold in range(5):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                if pretrained:
                    model = load_model(path)
                else:
                    model = make_model()
                model.compile(optimizer="adam", loss="mse")
            model.fit(folds[fold])
        """,
        note="a new model per iteration from either branch",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = make_model()
        current = tf.distribute.get_strategy()
        with current.scope():
            model.compile(optimizer="adam")
        """,
        note="get_strategy returns the current one",
    ),
    Valid(
        """
        import tensorflow as tf

        def make_strategy():
            return tf.distribute.MirroredStrategy()

        def main():
            strategy = make_strategy()
            with strategy.scope():
                model = make_model()
                model.compile(optimizer="adam")
            model.fit(x, y)

        main()
        """,
        note="one strategy from a factory",
    ),
    Valid(
        """
        import tensorflow as tf

        def train(config):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = make_model(config)
                model.compile(optimizer=config.optimizer)
            model.fit(config.data)

        for config in configs:
            train(config)
        """,
        note="called in a loop, builds its own model",
    ),
    Valid(
        """
        import tensorflow as tf

        try:
            resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
            strategy = tf.distribute.TPUStrategy(resolver)
        except ValueError:
            strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = make_model()
            model.compile(optimizer="adam")
        """,
        note="try/except fallback",
    ),
)
