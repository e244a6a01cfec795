"""Examples of TFD107 (nested-tf-function-in-replica-fn).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf


        class Model(tf.keras.Model):
            @tf.function
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = self.compiled_loss(y, self(x, training=True))
                self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Model()
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf


        class Model(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = self.compiled_loss(y, self(x, training=True))
                self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Model()
        """,
        note="legacy Keras switch",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras


        class Net(tf_keras.Model):
            @tf.function(jit_compile=True)
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        after="""
        import tensorflow as tf
        import tf_keras


        class Net(tf_keras.Model):
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="tf_keras base, decorator with arguments",
    ),
    Invalid(
        """
        import tensorflow as tf
        from tf_keras import Model


        class Net(Model):
            # compiled for speed
            @tf.function
            @some_logger
            def train_step(self, data):
                return super().train_step(data)


        def main(strategy: tf.distribute.Strategy):
            with strategy.scope():
                Net().compile()
        """,
        after="""
        import tensorflow as tf
        from tf_keras import Model


        class Net(Model):
            # compiled for speed
            @some_logger
            def train_step(self, data):
                return super().train_step(data)


        def main(strategy: tf.distribute.Strategy):
            with strategy.scope():
                Net().compile()
        """,
        note="comment above kept, other decorator kept",
    ),
    Invalid(
        """
        import tf_keras as keras
        import tensorflow as tf
        from tensorflow import function


        class Base(keras.Model):
            pass


        class Net(Base):
            @function
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        after="""
        import tf_keras as keras
        import tensorflow as tf
        from tensorflow import function


        class Base(keras.Model):
            pass


        class Net(Base):
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        """,
        note="subclass of a local model class, imported function",
    ),
    Invalid(
        """
        import os
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        import tensorflow as tf


        class Net(tf.keras.Model):
            @tf.function  # keep
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        after=None,
        note="comment on the decorator line: advice",
    ),
    Invalid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "true"
        import tensorflow as tf
        from tensorflow.keras import Model


        class Net(Model):
            @tf.function
            def train_step(self, data):
                return super().train_step(data)

            @tf.function
            def call(self, x):
                return x


        strategy = tf.distribute.MirroredStrategy()
        """,
        after="""
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "true"
        import tensorflow as tf
        from tensorflow.keras import Model


        class Net(Model):
            def train_step(self, data):
                return super().train_step(data)

            @tf.function
            def call(self, x):
                return x


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="only train_step, not call",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras


        class GAN(tf_keras.Sequential):
            @tf.function
            def train_step(self, batch):
                return {}


        class Runner:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
        """,
        after="""
        import tensorflow as tf
        import tf_keras


        class GAN(tf_keras.Sequential):
            def train_step(self, batch):
                return {}


        class Runner:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()
        """,
        note="Sequential subclass, strategy on self",
    ),
    Invalid(
        """
        import tensorflow.compat.v2 as tf
        import tf_keras


        class Net(tf_keras.models.Model):
            @tf.function()
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.TPUStrategy(resolver)
        """,
        after="""
        import tensorflow.compat.v2 as tf
        import tf_keras


        class Net(tf_keras.models.Model):
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.TPUStrategy(resolver)
        """,
        note="compat.v2 alias, TPUStrategy",
    ),
    Valid(
        """
        import tensorflow as tf


        class Net(tf.keras.Model):
            @tf.function
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="Keras 3: measured harmless",
    ),
    Valid(
        """
        import keras
        import tensorflow as tf


        class Net(keras.Model):
            @tf.function
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="standalone keras is Keras 3",
    ),
    Valid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def replica_step(x):
            return model(x)

        @tf.function
        def step(x):
            return strategy.run(replica_step, args=(x,))
        """,
        note="nested tf.function replica fn: measured harmless",
    ),
    Valid(
        """
        import tf_keras


        class Net(tf_keras.Model):
            @tf.function
            def train_step(self, data):
                return super().train_step(data)
        """,
        note="no strategy in the module",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras


        class Net(tf_keras.Model):
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="undecorated",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras


        class Trainer:
            @tf.function
            def train_step(self, data):
                return self.model(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="not a Keras model",
    ),
    Valid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = os.environ.get("LEGACY", "0")
        import tensorflow as tf


        class Net(tf.keras.Model):
            @tf.function
            def train_step(self, data):
                return super().train_step(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="Keras version read at run time: unknown",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras


        class Net(tf_keras.Model):
            @tf.function
            def predict_step(self, data):
                return self(data)


        strategy = tf.distribute.MirroredStrategy()
        """,
        note="predict_step does no cross-replica update",
    ),
)
