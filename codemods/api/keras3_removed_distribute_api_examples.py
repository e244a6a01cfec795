"""Examples of TFD403 (keras3-removed-distribute-api).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid
from fixer.types import Applicability

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([
                tf.keras.layers.Conv2D(16, 3),
                tf.keras.layers.experimental.SyncBatchNormalization(momentum=0.9),
            ])
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([
                tf.keras.layers.Conv2D(16, 3),
                tf.keras.layers.BatchNormalization(momentum=0.9, synchronized=True),
            ])
        """,
        note="sync batch norm in tf.keras",
        range="7:9-7:60",
        message="`SyncBatchNormalization` is not in Keras 3 (`AttributeError`); use `BatchNormalization(synchronized=True)`",
        applicability=Applicability.SAFE,
    ),
    Invalid(
        """
        import keras

        norm = keras.layers.experimental.SyncBatchNormalization()
        """,
        after="""
        import keras

        norm = keras.layers.BatchNormalization(synchronized=True)
        """,
        note="standalone keras, no arguments",
    ),
    Invalid(
        """
        from tensorflow.keras import layers

        def block(x, axis):
            return layers.experimental.SyncBatchNormalization(axis, epsilon=1e-3)(x)
        """,
        after="""
        from tensorflow.keras import layers

        def block(x, axis):
            return layers.BatchNormalization(axis, epsilon=1e-3, synchronized=True)(x)
        """,
        note="positional axis kept",
    ),
    Invalid(
        """
        import tensorflow as tf

        norm = tf.keras.layers.experimental.SyncBatchNormalization(fused=False)
        """,
        note="keyword BatchNormalization may not take: no edit",
    ),
    Invalid(
        """
        import tensorflow as tf

        NORMS = {"sync": tf.keras.layers.experimental.SyncBatchNormalization, "plain": tf.keras.layers.BatchNormalization}
        """,
        note="class passed around: no edit",
    ),
    Invalid(
        """
        from tensorflow.keras.layers.experimental import SyncBatchNormalization

        norm = SyncBatchNormalization()
        """,
        note="import from the removed module",
        message=(
            "`tensorflow.keras.layers.experimental` is not in Keras 3 (`ModuleNotFoundError`), so "
            "`SyncBatchNormalization` cannot be imported; use `BatchNormalization(synchronized=True)`"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(y, model(x))
                scaled_loss = optimizer.get_scaled_loss(loss)
            scaled_grads = tape.gradient(scaled_loss, model.trainable_variables)
            grads = optimizer.get_unscaled_gradients(scaled_grads)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.01))

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(y, model(x))
                scaled_loss = optimizer.scale_loss(loss)
            scaled_grads = tape.gradient(scaled_loss, model.trainable_variables)
            grads = scaled_grads
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """,
        count=2,
        note="old loss scaling in a custom loop",
        applicability=Applicability.UNSAFE,
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        class Trainer(tf.keras.Model):
            def step(self, x):
                with tf.GradientTape() as tape:
                    loss = self.compiled_loss(x, self(x))
                    loss = self.optimizer.get_scaled_loss(loss)
                grads = tape.gradient(loss, self.trainable_variables)
                grads = self.optimizer.get_unscaled_gradients(grads)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))

            def run(self, x):
                return strategy.run(self.step, args=(x,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        class Trainer(tf.keras.Model):
            def step(self, x):
                with tf.GradientTape() as tape:
                    loss = self.compiled_loss(x, self(x))
                    loss = self.optimizer.scale_loss(loss)
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))

            def run(self, x):
                return strategy.run(self.step, args=(x,))
        """,
        count=2,
        note="optimizer set by compile, gradients rebound",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam())

        def scaled(loss):
            return optimizer.get_scaled_loss(loss)
        """,
        note="only half of the pair: no edit",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        with strategy.scope():
            model.compile(optimizer="sgd", loss="mse")
        model.fit(tf.keras.utils.experimental.DatasetCreator(dataset_fn), epochs=2, steps_per_epoch=10)
        """,
        note="DatasetCreator",
        message=(
            "`DatasetCreator` is not in Keras 3 (`AttributeError`) and has no Keras 3 equivalent: use tf-keras "
            "(TF_USE_LEGACY_KERAS=1) or a ClusterCoordinator loop"
        ),
    ),
    Valid(
        """
        import tf_keras

        norm = tf_keras.layers.experimental.SyncBatchNormalization()
        """,
        note="tf-keras still has it",
    ),
    Valid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        norm = tf.keras.layers.experimental.SyncBatchNormalization()
        """,
        note="legacy Keras switched on",
    ),
    Valid(
        """
        import tensorflow as tf

        norm = tf.keras.layers.BatchNormalization(synchronized=True)
        """,
        note="the Keras 3 form",
    ),
    Valid(
        """
        import tensorflow as tf

        try:
            SyncBN = tf.keras.layers.experimental.SyncBatchNormalization
        except AttributeError:
            SyncBN = None
        """,
        note="compat fallback",
    ),
    Valid(
        """
        import os
        import tensorflow as tf

        os.environ["TF_USE_LEGACY_KERAS"] = os.environ.get("LEGACY", "0")
        norm = tf.keras.layers.experimental.SyncBatchNormalization()
        """,
        note="Keras cannot be told",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD())

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = optimizer.scale_loss(compute_loss(y, model(x)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        """,
        note="Keras 3 loss scaling",
    ),
    Valid(
        """
        import tf_keras as keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD())

        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = optimizer.get_scaled_loss(compute_loss(y, model(x)))
            grads = optimizer.get_unscaled_gradients(tape.gradient(loss, model.trainable_variables))
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        """,
        note="tf-keras loss scaling",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        class ScaledOptimizer:
            def get_scaled_loss(self, loss):
                return loss * 128.0

            def get_unscaled_gradients(self, grads):
                return [g / 128.0 for g in grads]

        opt = ScaledOptimizer()
        loss = opt.get_scaled_loss(loss)
        """,
        note="a class of the project with the same method names",
    ),
    Valid(
        """
        import tensorflow as tf

        optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD())
        loss = optimizer.get_scaled_loss(loss)
        """,
        note="loss scaling in a program without a strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        if hasattr(tf.keras.layers, "experimental"):
            norm = tf.keras.layers.experimental.SyncBatchNormalization()
        else:
            norm = tf.keras.layers.BatchNormalization(synchronized=True)
        """,
        note="hasattr check",
    ),
)
