"""Keras `train_step`/`test_step` overrides are replica functions when the model is used under a
strategy: `fit` and `evaluate` run them inside `strategy.run`. What the rules find in a function
given to `strategy.run` they find there too (TFD101, TFD302, TFD303, TFD304); the usual override (the
compiled loss, `self.optimizer`, metrics the model makes in its own `__init__`) stays clean."""

from __future__ import annotations

import textwrap

import pytest

from fixer.config import Config
from fixer.engine import check_source, fix_source


def findings(source: str, code: str) -> list:
    return [f for f in check_source("train.py", textwrap.dedent(source)).findings if f.code == code]


FOUND = {
    "TFD101: module-level metric updated in train_step": (
        "TFD101",
        """
        import tensorflow as tf

        epoch_loss = tf.keras.metrics.Mean(name="epoch_loss")  # <-


        class Regressor(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.head = tf.keras.layers.Dense(1)

            def call(self, inputs):
                return self.head(inputs)

            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(x=features, y=targets, y_pred=self(features, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                epoch_loss.update_state(loss)
                return {"loss": epoch_loss.result()}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = Regressor()
            net.compile(optimizer="sgd", loss="mse")
        net.fit(features, targets, epochs=3)
        """,
    ),
    "TFD101: metric made by a model constructed outside the scope": (
        "TFD101",
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        class Regressor(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.head = tf.keras.layers.Dense(1)
                self.tracker = tf.keras.metrics.Mean(name="loss")  # <-

            def call(self, inputs):
                return self.head(inputs)

            def test_step(self, batch):
                features, targets = batch
                self.tracker.update_state(self.compute_loss(x=features, y=targets, y_pred=self(features)))
                return {"loss": self.tracker.result()}


        net = Regressor()  # <-
        with strategy.scope():
            net.compile(optimizer="sgd", loss="mse")
        net.evaluate(features, targets)
        """,
    ),
    "TFD302: strategy.reduce in train_step": (
        "TFD302",
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        class Regressor(tf.keras.Sequential):
            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(x=features, y=targets, y_pred=self(features, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None)}  # <-


        with strategy.scope():
            net = Regressor([tf.keras.layers.Dense(1)])
            net.compile(optimizer="sgd", loss="mse")
        net.fit(features, targets)
        """,
    ),
    "TFD302: get_strategy().reduce in a test_step helper": (
        "TFD302",
        """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def _report(self, value):
                return tf.distribute.get_strategy().reduce("MEAN", value, axis=None)  # <-

            def test_step(self, batch):
                features, targets = batch
                return {"loss": self._report(self.compute_loss(x=features, y=targets, y_pred=self(features)))}


        def build():
            return Regressor()


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = build()
        """,
    ),
    "TFD302: the model's own distribute_strategy.reduce in train_step": (
        "TFD302",
        """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(x=features, y=targets, y_pred=self(features, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": self.distribute_strategy.reduce("SUM", loss, axis=None)}  # <-


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = Regressor()
            net.compile(optimizer="sgd", loss="mse")
        """,
    ),
    "TFD303: reduce_mean loss in a subclass's train_step": (
        "TFD303",
        """
        import keras
        import tensorflow as tf


        class Base(keras.Model):
            def call(self, inputs):
                return inputs


        class Regressor(Base):
            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(targets - self(features, training=True)))  # <-
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = Regressor()
            net.compile(optimizer="sgd")
        """,
    ),
    "TFD303: reduce_mean loss applied with Keras 3 optimizer.apply": (
        "TFD303",
        """
        import keras
        import tensorflow as tf


        class Regressor(keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = keras.ops.mean(keras.ops.square(y - self(x, training=True)))  # <-
                trainable_vars = self.trainable_variables
                gradients = tape.gradient(loss, trainable_vars)
                self.optimizer.apply(gradients, trainable_vars)
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            inputs = keras.Input(shape=(32,))
            model = Regressor(inputs, keras.layers.Dense(1)(inputs))
            model.compile(optimizer="adam")
        """,
    ),
    "TFD304: gradients clipped in train_step before apply_gradients sums them": (
        "TFD304",
        """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = self.compute_loss(x=features, y=targets, y_pred=self(features, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                grads, _ = tf.clip_by_global_norm(grads, 1.0)  # <-
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = Regressor()
            net.compile(optimizer="sgd", loss="mse")
        """,
    ),
}


@pytest.mark.parametrize("code, source", FOUND.values(), ids=list(FOUND))
def test_found_in_a_keras_step(code, source):
    source = textwrap.dedent(source)
    marked = [number for number, line in enumerate(source.splitlines(), 1) if line.endswith("# <-")]
    assert [f.start.line for f in findings(source, code)] == marked


CORRECT = {
    "the guide's override: compiled loss, own metrics, compiled metrics": """
        import tensorflow as tf


        class CustomModel(tf.keras.Model):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.loss_tracker = tf.keras.metrics.Mean(name="loss")
                self.mae_metric = tf.keras.metrics.MeanAbsoluteError(name="mae")

            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    y_pred = self(x, training=True)
                    loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
                gradients = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
                self.compiled_metrics.update_state(y, y_pred)
                self.loss_tracker.update_state(loss)
                self.mae_metric.update_state(y, y_pred)
                return {m.name: m.result() for m in self.metrics}

            def test_step(self, data):
                x, y = data
                y_pred = self(x, training=False)
                self.compute_loss(x=x, y=y, y_pred=y_pred)
                for metric in self.metrics:
                    metric.update_state(y, y_pred)
                return {m.name: m.result() for m in self.metrics}

            @property
            def metrics(self):
                return [self.loss_tracker, self.mae_metric]


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            inputs = tf.keras.Input(shape=(32,))
            model = CustomModel(inputs, tf.keras.layers.Dense(1)(inputs))
            model.compile(optimizer="adam", loss="mse", metrics=["mae"])
        model.fit(x, y, epochs=3)
        """,
    "the Keras 3 guide's override: compute_loss and optimizer.apply": """
        import keras
        import tensorflow as tf


        class CustomModel(keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    y_pred = self(x, training=True)
                    loss = self.compute_loss(y=y, y_pred=y_pred)
                trainable_vars = self.trainable_variables
                gradients = tape.gradient(loss, trainable_vars)
                self.optimizer.apply(gradients, trainable_vars)
                for metric in self.metrics:
                    if metric.name == "loss":
                        metric.update_state(loss)
                    else:
                        metric.update_state(y, y_pred)
                return {m.name: m.result() for m in self.metrics}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            inputs = keras.Input(shape=(32,))
            model = CustomModel(inputs, keras.layers.Dense(1)(inputs))
            model.compile(optimizer="adam", loss="mse", metrics=["mae"])
        model.fit(x, y, epochs=3)
        """,
    "a loss object with its default reduction (Keras 3 scales it)": """
        import keras
        import tensorflow as tf


        class GAN(keras.Model):
            def __init__(self, discriminator, generator):
                super().__init__()
                self.discriminator = discriminator
                self.generator = generator
                self.d_loss_tracker = keras.metrics.Mean(name="d_loss")

            def compile(self, d_optimizer, loss_fn):
                super().compile()
                self.d_optimizer = d_optimizer
                self.loss_fn = loss_fn

            def train_step(self, real_images):
                labels = tf.ones((tf.shape(real_images)[0], 1))
                with tf.GradientTape() as tape:
                    predictions = self.discriminator(real_images)
                    d_loss = self.loss_fn(labels, predictions)
                grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
                self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))
                self.d_loss_tracker.update_state(d_loss)
                return {"d_loss": self.d_loss_tracker.result()}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            gan = GAN(discriminator=discriminator, generator=generator)
            gan.compile(d_optimizer=keras.optimizers.Adam(1e-4), loss_fn=keras.losses.BinaryCrossentropy(from_logits=True))
        gan.fit(dataset, epochs=1)
        """,
    "a loss object built with the default reduction in __init__": """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.head = tf.keras.layers.Dense(1)
                self.mse = tf.keras.losses.MeanSquaredError()

            def call(self, inputs):
                return self.head(inputs)

            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = self.mse(targets, self(features, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = Regressor()
            net.compile(optimizer="sgd")
        """,
    "a train_step on a class that is not a Keras model": """
        import tensorflow as tf

        tracker = tf.keras.metrics.Mean()


        class Trainer:
            def train_step(self, batch):
                tracker.update_state(batch)
                return strategy.reduce("SUM", batch, axis=None)


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            trainer = Trainer()
        """,
    "a Keras model the file never builds under the strategy": """
        import tensorflow as tf

        tracker = tf.keras.metrics.Mean()


        class Regressor(tf.keras.Model):
            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(targets - self(features, training=True)))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                tracker.update_state(loss)
                return {"loss": tracker.result()}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            encoder = tf.keras.Sequential([tf.keras.layers.Dense(4)])
        baseline = Regressor()
        baseline.compile(optimizer="sgd")
        """,
    "a reduce_mean computed for the report only": """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    predictions = self(features, training=True)
                    loss = self.compute_loss(x=features, y=targets, y_pred=predictions)
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"abs_error": tf.reduce_mean(tf.abs(targets - predictions))}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = Regressor()
            net.compile(optimizer="sgd", loss="mse")
        """,
    # ledger12a class 3 (benchmarks/probe_ledger12a_premises.py): under `fit` the replicas' per-example sums
    # add up to the one-device sum over the batch (same weights), so this is no distribution mistake.
    "an unreduced loss object given to the tape (the one-device sum)": """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.head = tf.keras.layers.Dense(1)
                self.per_example = tf.keras.losses.MeanSquaredError(reduction=tf.keras.losses.Reduction.NONE)

            def call(self, inputs):
                return self.head(inputs)

            def train_step(self, batch):
                features, targets = batch
                with tf.GradientTape() as tape:
                    loss = self.per_example(targets, self(features, training=True))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": tf.reduce_mean(loss)}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            net = Regressor()
            net.compile(optimizer="sgd")
        net.fit(features, targets)
        """,
}


@pytest.mark.parametrize("source", CORRECT.values(), ids=list(CORRECT))
def test_correct_keras_steps_are_clean(source):
    assert check_source("train.py", textwrap.dedent(source)).findings == []


def test_model_state_made_in_init_is_advice_and_the_model_construction_is_the_fix():
    source = textwrap.dedent(FOUND["TFD101: metric made by a model constructed outside the scope"][1])
    metric, model = findings(source, "TFD101")
    assert metric.fix is None and "`Regressor` itself, which is constructed outside" in metric.message
    assert model.fix is not None and "model created outside" in model.message


def test_unscaled_mean_in_train_step_is_divided_by_the_replicas():
    source = textwrap.dedent(FOUND["TFD303: reduce_mean loss in a subclass's train_step"][1])
    fixed = fix_source("train.py", source, Config(select=("TFD303",)), unsafe=True).fixed_text
    assert fixed == source.replace(
        "loss = tf.reduce_mean(tf.square(targets - self(features, training=True)))  # <-",
        "loss = tf.reduce_mean(tf.square(targets - self(features, training=True))) / "
        "tf.distribute.get_replica_context().num_replicas_in_sync  # <-",
    )


def test_reduce_in_train_step_becomes_the_replica_context_all_reduce():
    source = textwrap.dedent(FOUND["TFD302: strategy.reduce in train_step"][1])
    fixed = fix_source("train.py", source, Config(select=("TFD302",)), unsafe=True).fixed_text
    assert fixed == source.replace(
        "strategy.reduce(tf.distribute.ReduceOp.SUM, loss, axis=None)",
        "tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, loss)",
    )
