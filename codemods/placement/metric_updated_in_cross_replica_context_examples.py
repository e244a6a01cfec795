"""Examples of TFD114 (metric-updated-in-cross-replica-context).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        @tf.function
        def train_step(batch):
            per_replica = strategy.run(replica_step, args=(batch,))
            loss = strategy.reduce("MEAN", per_replica, axis=None)
            train_loss.update_state(loss)
            return loss
        """,
        note="updated in the outer tf.function after strategy.reduce",
        range="12:5-12:34",
        message=(
            "tf-keras metric `train_loss` made in the scope (line 6) is updated in cross-replica code: "
            "`SyncOnReadVariable does not support assign_add`; update it in the replica function"
        ),
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        for batch in dist_dataset:
            loss = distributed_step(batch)
            train_loss.update_state(loss)
        """,
        note="updated in the Python training loop",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()
            train_loss.update_state(0.5)
        """,
        note="updated directly in the scope block",
    ),
    Invalid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

        for images, labels in dist_dataset:
            predictions = predict(images)
            accuracy.update_state(labels, predictions)
        """,
        note="tf.keras under TF_USE_LEGACY_KERAS=1",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        @tf.function
        def train_step(batch):
            loss = strategy.reduce("SUM", strategy.run(replica_step, args=(batch,)), axis=None)
            train_loss(loss)
            return loss
        """,
        note="the metric called with the reduced loss",
    ),
    Invalid(
        """
        import tensorflow as tf
        from tf_keras import metrics

        strategy = tf.distribute.MultiWorkerMirroredStrategy()
        with strategy.scope():
            epoch_loss = metrics.Mean(name="epoch_loss")

        def distributed_step(batch):
            losses = strategy.run(replica_step, args=(batch,))
            epoch_loss.update_state(strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None))
        """,
        note="MultiWorkerMirroredStrategy, plain function that calls strategy.run",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()

        def make_metrics():
            return tf_keras.metrics.Mean()

        with strategy.scope():
            model = build_model()
            test_loss = tf_keras.metrics.Mean()

        @tf.function
        def eval_step(batch):
            per_replica = strategy.run(replica_eval, args=(batch,))
            test_loss.update_state(strategy.reduce("MEAN", per_replica, axis=None))
        """,
        note="an evaluation step",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()
            train_auc = tf_keras.metrics.AUC()

        for batch in dist_dataset:
            loss = distributed_step(batch)
            train_loss.update_state(loss)
            train_auc.update_state(batch[1], predict(batch))
        """,
        count=2,
        note="two metrics updated in the loop",
    ),
    Invalid(
        """
        import tensorflow as tf
        import tf_keras

        class Trainer:
            def __init__(self, strategy, model):
                self.strategy = strategy
                self.model = model
                self.train_loss = tf_keras.metrics.Mean()

            def replica_step(self, batch):
                return self.model.train_on_batch(batch)

            @tf.function
            def train_step(self, batch):
                losses = self.strategy.run(self.replica_step, args=(batch,))
                self.train_loss.update_state(self.strategy.reduce("SUM", losses, axis=None))

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            trainer = Trainer(strategy, build_model())
        """,
        note="a metric an object keeps, made when the object is built in the scope",
        message=(
            "tf-keras metric `self.train_loss` made in the scope (line 8) is updated in cross-replica code: "
            "`SyncOnReadVariable does not support assign_add`; update it in the replica function"
        ),
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        def replica_step(batch):
            loss = compute_loss(batch)
            train_loss.update_state(loss)
            return loss

        @tf.function
        def train_step(batch):
            return strategy.reduce("MEAN", strategy.run(replica_step, args=(batch,)), axis=None)
        """,
        note="updated inside the replica function (the fix)",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf.keras.metrics.Mean()

        for batch in dist_dataset:
            loss = distributed_step(batch)
            train_loss.update_state(loss)
        """,
        note="Keras 3 (tf.keras on TF 2.21): cross-replica updates work (measured)",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        train_loss = tf_keras.metrics.Mean()

        for batch in dist_dataset:
            loss = distributed_step(batch)
            train_loss.update_state(loss)
        """,
        note="metric made outside the scope: plain variables, the update works (measured)",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        total = 0.0
        for batch in dist_dataset:
            total += float(distributed_step(batch))
        print(train_loss.result())
        train_loss.reset_state()
        """,
        note="a Python accumulator; result() and reset_state() are not updates",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        for batch in dataset:
            train_loss.update_state(train_step(batch))
        """,
        note="OneDeviceStrategy: one replica, plain variables (measured)",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            train_accuracy = tf_keras.metrics.SparseCategoricalAccuracy()

        class Trainer(tf_keras.Model):
            def train_step(self, data):
                x, y = data
                train_accuracy.update_state(y, self(x))
                return {}

        with strategy.scope():
            trainer = Trainer()
            trainer.compile(optimizer="sgd")
        trainer.fit(dataset)
        """,
        note="updated in a Keras train_step, which fit runs in replica context",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        def log(value):
            train_loss.update_state(value)
        """,
        note="a helper whose callers the file does not show",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = build_model()
            model.compile(optimizer="adam", loss="mse", metrics=[tf_keras.metrics.AUC()])
        model.fit(dataset)
        """,
        note="metrics given to compile are updated by fit in replica context",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            error = tf_keras.metrics.mean_squared_error(labels, predictions)

        for batch in dist_dataset:
            error(batch)
        """,
        note="a metric function, not a metric object",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        with strategy.scope():
            train_loss = tf_keras.metrics.Mean()

        for batch in dataset:
            train_loss.update_state(coordinator.schedule(step, args=(batch,)).fetch())
        """,
        note="ParameterServerStrategy only: not measured, not reported",
    ),
    Valid(
        """
        import tensorflow as tf
        import tf_keras

        class Trainer:
            def __init__(self, strategy):
                self.strategy = strategy
                self.train_loss = tf_keras.metrics.Mean()

            def replica_step(self, batch):
                loss = compute_loss(batch)
                self.train_loss.update_state(loss)
                return loss

            @tf.function
            def train_step(self, batch):
                return self.strategy.run(self.replica_step, args=(batch,))

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            trainer = Trainer(strategy)
        """,
        note="a metric an object keeps, updated in its replica method",
    ),
)
