"""Examples of TFD504 (keras3-fit-under-multiworker).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, epochs=3)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, epochs=3)
        """,
        note="fit after a multi-worker scope",
    ),
    Invalid(
        """
        \"\"\"Train on every worker.\"\"\"
        import os

        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = build_model()
        model.compile(optimizer="sgd", loss="mse")
        model.fit(dataset)
        model.evaluate(dataset)
        """,
        after="""
        \"\"\"Train on every worker.\"\"\"
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"

        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = build_model()
        model.compile(optimizer="sgd", loss="mse")
        model.fit(dataset)
        model.evaluate(dataset)
        """,
        count=2,
        note="docstring and os already imported",
    ),
    Invalid(
        """
        from tensorflow import keras
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(4)])
        model.compile(loss="mse")
        history = model.fit(ds)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        from tensorflow import keras
        import tensorflow as tf

        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(4)])
        model.compile(loss="mse")
        history = model.fit(ds)
        """,
        note="experimental class and keras from tensorflow",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Job:
            def __init__(self):
                self.strategy = tf.distribute.MultiWorkerMirroredStrategy()
                with self.strategy.scope():
                    self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                    self.model.compile(loss="mse")

            def run(self, data):
                self.model.fit(data)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf


        class Job:
            def __init__(self):
                self.strategy = tf.distribute.MultiWorkerMirroredStrategy()
                with self.strategy.scope():
                    self.model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                    self.model.compile(loss="mse")

            def run(self, data):
                self.model.fit(data)
        """,
        note="model on self",
    ),
    Invalid(
        """
        import tensorflow as tf


        class KerasJob:
            def __init__(self):
                self.strategy = tf.distribute.MultiWorkerMirroredStrategy()
                with self.strategy.scope():
                    self.model = self._build()

            def _build(self):
                m = make_network()
                m.compile("adam", "mse")
                return m

            def run(self, x, y):
                self.model.fit(x, y, epochs=3)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf


        class KerasJob:
            def __init__(self):
                self.strategy = tf.distribute.MultiWorkerMirroredStrategy()
                with self.strategy.scope():
                    self.model = self._build()

            def _build(self):
                m = make_network()
                m.compile("adam", "mse")
                return m

            def run(self, x, y):
                self.model.fit(x, y, epochs=3)
        """,
        note="model on self built by a method that compiles and returns it",
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        after=None,
        note="standalone keras 3 cannot switch: advice",
    ),
    Invalid(
        """
        import tensorflow as tf
        from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

        strategy = MWMS()
        with strategy.scope():
            net = tf.keras.applications.MobileNetV2(weights=None)
        net.compile(loss="mse")
        net.fit(images, labels)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf
        from tensorflow.distribute import MultiWorkerMirroredStrategy as MWMS

        strategy = MWMS()
        with strategy.scope():
            net = tf.keras.applications.MobileNetV2(weights=None)
        net.compile(loss="mse")
        net.fit(images, labels)
        """,
        note="aliased class and an application",
    ),
    Invalid(
        """
        import tensorflow as tf

        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
                model.compile(loss="mse")
            model.fit(x, y)

        main()
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        def main():
            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
                model.compile(loss="mse")
            model.fit(x, y)

        main()
        """,
        note="inside main",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(loss="mse")
            model.fit(x, y)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(loss="mse")
            model.fit(x, y)
        """,
        note="fit inside the scope",
    ),
    Valid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        note="legacy Keras requested",
    ),
    Invalid(
        """
        import tensorflow as tf

        def build_and_compile_cnn_model():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(loss="mse", optimizer="sgd")
            return model

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            multi_worker_model = build_and_compile_cnn_model()
        multi_worker_model.fit(dataset, epochs=3, steps_per_epoch=70)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        def build_and_compile_cnn_model():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            model.compile(loss="mse", optimizer="sgd")
            return model

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            multi_worker_model = build_and_compile_cnn_model()
        multi_worker_model.fit(dataset, epochs=3, steps_per_epoch=70)
        """,
        note="the multi-worker Keras tutorial's model factory",
    ),
    Valid(
        """
        import tf_keras
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf_keras.Sequential([tf_keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        note="tf_keras model",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        note="single-machine strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        @tf.function
        def step(x):
            return strategy.run(replica_fn, args=(x,))
        """,
        note="custom training loop",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        scaler = StandardScaler()
        scaler.fit(features)
        """,
        note="fit of another library",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)  # distfix: ignore[TFD504]
        """,
        note="suppressed",
    ),
    Valid(
        """
        import os
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        note="setdefault of the legacy switch",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.predict(x)
        """,
        note="predict only",
    ),
    Invalid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "false"
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            net = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            net.compile(optimizer="sgd", loss="mse")
        net.evaluate(ds)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            net = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            net.compile(optimizer="sgd", loss="mse")
        net.evaluate(ds)
        """,
        note="the switch set to a false value is turned on",
    ),
    Invalid(
        """
        import os
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        note="the switch does not reach standalone keras: advice",
    ),
    Invalid(
        '''
        """Trainer. TF_USE_LEGACY_KERAS=1 used to be needed here."""
        # os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)
        ''',
        after='''
        """Trainer. TF_USE_LEGACY_KERAS=1 used to be needed here."""
        # os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)
        ''',
        note="mentioned in a docstring and a comment only",
    ),
    Valid(
        """
        import os
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "True")
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        note="setdefault with True",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        os.environ["TF_USE_LEGACY_KERAS"] = os.environ.get("LEGACY", "1")
        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.fit(x, y)
        """,
        note="set from the environment: cannot tell",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras as keras

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
        model.fit(x, y)
        """,
        note="tf_keras imported as keras",
    ),
    Invalid(
        """
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        strategy = tf.distribute.ParameterServerStrategy(resolver)
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse", steps_per_execution=10)
        model.fit(dataset, epochs=5, steps_per_epoch=20)
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        strategy = tf.distribute.ParameterServerStrategy(resolver)
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse", steps_per_execution=10)
        model.fit(dataset, epochs=5, steps_per_epoch=20)
        """,
        note="fit under ParameterServerStrategy",
        message=(
            "Keras 3 has no `fit`/`evaluate` under ParameterServerStrategy (`ValueError`); use tf-keras: set "
            "TF_USE_LEGACY_KERAS=1 before importing TensorFlow"
        ),
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        with strategy.scope():
            model = keras.Sequential([keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
        model.evaluate(dataset, steps=10)
        """,
        note="standalone Keras under the experimental ParameterServerStrategy: advice only",
    ),
    Valid(
        """
        import tf_keras
        import tensorflow as tf

        strategy = tf.distribute.ParameterServerStrategy(resolver)
        with strategy.scope():
            model = tf_keras.Sequential([tf_keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
        model.fit(dataset, epochs=5, steps_per_epoch=20)
        """,
        note="tf-keras under ParameterServerStrategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.ParameterServerStrategy(resolver)
        coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.SGD(0.01)
        per_worker = iter(coordinator.create_per_worker_dataset(dataset_fn))
        for _ in range(100):
            coordinator.schedule(train_step, args=(per_worker,))
        coordinator.join()
        """,
        note="a ClusterCoordinator loop",
    ),
    Valid(
        """
        import tensorflow as tf

        ps_strategy = tf.distribute.ParameterServerStrategy(resolver)
        mirrored = tf.distribute.MirroredStrategy()
        with mirrored.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss="mse")
        model.fit(x, y)
        """,
        note="the model is trained under MirroredStrategy",
    ),
)
