"""Examples of TFD113 (model-loaded-outside-strategy-scope).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.models.load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        model.fit(dataset, epochs=3)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.models.load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        model.fit(dataset, epochs=3)
        """,
        note="loaded outside, compiled inside",
        range="4:9-4:50",
        message=(
            "model loaded outside `strategy.scope()`, then `compile` in it (line 6): training it then fails "
            "with a bare `AssertionError`; load it in the scope"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.models.load_model("model.keras")
        with strategy.scope():
            model.fit(dataset, epochs=3)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.models.load_model("model.keras")
        with strategy.scope():
            model.fit(dataset, epochs=3)
        """,
        note="the saved compile kept, fit inside the scope",
        message=(
            "model loaded outside `strategy.scope()`, then `fit` in it (line 6): training it there fails with "
            "an `AssertionError`; load it in the scope"
        ),
    ),
    Invalid(
        """
        import tf_keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf_keras.models.load_model("model.h5")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        after="""
        import tf_keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf_keras.models.load_model("model.h5")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        note="tf-keras names its own error",
        message=(
            "model loaded outside `strategy.scope()`, then `compile` in it (line 7): compiling it there raises "
            "`ValueError: Variable ... was not created in the ... scope`; load it in the scope"
        ),
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        model = keras.saving.load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        after="""
        import keras
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            model = keras.saving.load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        note="standalone Keras 3, keras.saving",
    ),
    Invalid(
        """
        from tensorflow.keras.models import load_model
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        after="""
        from tensorflow.keras.models import load_model
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        note="imported loader",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def compile_model(model):
            model.compile(optimizer="adam", loss="mse")

        model = tf.keras.models.load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def compile_model(model):
            model.compile(optimizer="adam", loss="mse")

        with strategy.scope():
            model = tf.keras.models.load_model("model.keras")
        with strategy.scope():
            model.compile(optimizer="adam", loss="mse")
        """,
        note="a helper elsewhere does not hide the compile in the scope",
    ),
    Invalid(
        """
        import tensorflow as tf

        def main(path):
            strategy = tf.distribute.MirroredStrategy()
            model = tf.keras.models.load_model(path)
            with strategy.scope():
                model.compile(optimizer="adam", loss="mse")
            model.fit(dataset)
        """,
        after="""
        import tensorflow as tf

        def main(path):
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.models.load_model(path)
            with strategy.scope():
                model.compile(optimizer="adam", loss="mse")
            model.fit(dataset)
        """,
        note="inside a function",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.models.load_model("model.keras", compile=False)
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()
            model.compile(optimizer=optimizer, loss="mse")
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.models.load_model("model.keras", compile=False)
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()
            model.compile(optimizer=optimizer, loss="mse")
        """,
        note="compile=False does not help: the weights are still outside",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.models.load_model("model.keras")
            model.compile(optimizer="adam", loss="mse")
        model.fit(dataset, epochs=3)
        """,
        note="loaded in the scope",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def build():
            return tf.keras.models.load_model("model.keras")

        with strategy.scope():
            model = build()
            model.compile(optimizer="adam", loss="mse")
        """,
        note="a factory called only in the scope",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.models.load_model("model.keras")
        print(model.predict(features))
        """,
        note="used outside any scope: runs on one device, as written",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.models.load_model("model.keras")
        model.compile(optimizer="adam", loss="mse")
        model.fit(dataset)
        """,
        note="compiled and trained outside the scope too",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        model = tf.keras.models.load_model("model.keras")
        with strategy.scope():
            model = tf.keras.models.load_model("model.keras")
            model.compile(optimizer="adam", loss="mse")
        """,
        note="loaded again inside the scope before the compile",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        loaded = tf.saved_model.load("export")
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="adam", loss="mse")
        """,
        note="tf.saved_model.load, not a Keras model",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        teacher = tf.keras.models.load_model("teacher.keras")
        with strategy.scope():
            student = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            student.compile(optimizer="adam", loss="mse")
        """,
        note="another model compiled in the scope",
    ),
    Valid(
        """
        import tensorflow as tf

        model = tf.keras.models.load_model("model.keras")
        model.compile(optimizer="adam", loss="mse")
        model.fit(dataset)
        """,
        note="no strategy",
    ),
)
