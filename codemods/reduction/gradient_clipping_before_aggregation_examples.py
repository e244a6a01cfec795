"""Examples of TFD304 (gradient-clipping-before-aggregation).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = compute_loss(model(x), y)
            grads = tape.gradient(loss, model.trainable_variables)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        @tf.function
        def distributed_step(x, y):
            return strategy.run(train_step, args=(x, y))
        """,
        note="clip_by_global_norm in the replica function",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(batch):
            with tf.GradientTape() as tape:
                loss = loss_fn(batch)
            gradients = tape.gradient(loss, variables)
            gradients = [tf.clip_by_norm(g, 5.0) for g in gradients]
            opt.apply_gradients(zip(gradients, variables))

        strategy.run(replica_fn, args=(batch,))
        """,
        note="clip_by_norm in a comprehension",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MultiWorkerMirroredStrategy()

        def step_fn(inputs):
            with tf.GradientTape() as tape:
                loss = model_loss(inputs)
            grads_and_vars = [
                (tf.clip_by_norm(g, 1.0), v) for g, v in zip(tape.gradient(loss, model.trainable_weights), model.trainable_weights)
            ]
            optimizer.apply_gradients(grads_and_vars)

        @tf.function
        def train(it):
            strategy.run(step_fn, args=(next(it),))
        """,
        note="pairs built from zip",
    ),
    Invalid(
        """
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()

            def _replica_step(self, x, y):
                with tf.GradientTape() as tape:
                    loss = self.loss(x, y)
                grads = tape.gradient(loss, self.model.trainable_variables)
                clipped, norm = tf.clip_by_global_norm(grads, self.max_norm)
                self.optimizer.apply_gradients(zip(clipped, self.model.trainable_variables))
                return norm

            @tf.function
            def step(self, x, y):
                return self.strategy.run(self._replica_step, args=(x, y))
        """,
        note="a method run by self.strategy",
    ),
    Invalid(
        """
        import tensorflow as tf
        from tensorflow import clip_by_global_norm

        strategy = tf.distribute.MirroredStrategy()

        def train_step(images, labels):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(loss_object(labels, model(images)), global_batch_size=64)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = [g for g in grads if g is not None]
            grads, _ = clip_by_global_norm(grads, 0.5)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(train_step, args=(images, labels))
        """,
        note="imported name, gradients filtered first",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = [tf.math.clip_by_norm(g, 2.0) for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def run_step(x):
            helper(x)

        def helper(x):
            train_step(x)

        strategy.run(run_step, args=(x,))
        """,
        note="tf.math.clip_by_norm in a helper the replica function calls",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x):
            loss = model(x)
            grads = tf.gradients(loss, model.trainable_variables)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(train_step, args=(x,))
        """,
        note="tf.gradients",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        @tf.function
        def distributed_step(batch):
            def step_fn(batch):
                with tf.GradientTape() as tape:
                    loss = compute(batch)
                grads = tape.gradient(loss, weights)
                optimizer.apply_gradients(zip(tf.clip_by_global_norm(grads, 1.0)[0], weights))

            strategy.run(step_fn, args=(batch,))
        """,
        note="clip inline in apply_gradients, nested replica function",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.Adam())

        def train_step(x):
            with tf.GradientTape() as tape:
                scaled_loss = optimizer.get_scaled_loss(model(x))
            scaled = tape.gradient(scaled_loss, model.trainable_variables)
            grads = optimizer.get_unscaled_gradients(scaled)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(train_step, args=(x,))
        """,
        note="unscaled mixed-precision gradients",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def train_step(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce("sum", grads)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            grads = [g / strategy.num_replicas_in_sync for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(train_step, args=(x,))
        """,
        note="all-reduced before clipping",
    ),
    Valid(
        """
        import tensorflow as tf

        def train_step(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        for x in dataset:
            train_step(x)
        """,
        note="no strategy",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")

        def train_step(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(train_step, args=(x,))
        """,
        note="one replica",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return tf.clip_by_norm(model(x), 1.0)

        strategy.run(replica_fn, args=(x,))
        """,
        note="clipping something that is not a gradient",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            clipped, norm = tf.clip_by_global_norm(grads, 1.0)
            return norm

        norms = strategy.run(replica_fn, args=(x,))
        """,
        note="the norm is only measured, nothing is applied",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = [tf.clip_by_value(g, -1.0, 1.0) for g in grads]
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(replica_fn, args=(x,))
        """,
        note="clip_by_value is element-wise: not reported",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, grads)
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            optimizer.apply_gradients(zip(grads, model.trainable_variables), skip_gradients_aggregation=True)

        strategy.run(replica_fn, args=(x,))
        """,
        note="tf-keras: aggregated by hand, optimizer told to skip",
    ),
    Valid(
        """
        import os
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam(global_clipnorm=1.0)

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(replica_fn, args=(x,))
        """,
        note="tf-keras: the optimizer's own global_clipnorm clips after aggregating",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x):
            with tf.GradientTape() as tape:
                loss = model(x)
            return tape.gradient(loss, model.trainable_variables)

        @tf.function
        def step(x):
            per_replica = strategy.run(replica_fn, args=(x,))
            grads = [strategy.reduce("SUM", g, axis=None) for g in per_replica]
            grads, _ = tf.clip_by_global_norm(grads, 1.0)
            manual_update(grads)
        """,
        note="clipped in cross-replica context after a reduce",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            model.compile(optimizer=tf.keras.optimizers.AdamW(1e-3, global_clipnorm=1.0), loss="mse")
        model.fit(dataset, epochs=3)
        """,
        note="Keras 3 optimizer global_clipnorm under MirroredStrategy",
        message=(
            "Keras 3 applies `global_clipnorm` on each replica before the replicas' gradients are summed (a longer "
            "step); clip in a custom `train_step` after an all-reduce, or use tf-keras"
        ),
    ),
    Invalid(
        """
        import keras
        import tensorflow as tf

        def make_optimizer():
            return keras.optimizers.SGD(0.1, momentum=0.9, clipnorm=5.0)

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = make_optimizer()
        """,
        note="standalone Keras clipnorm in a factory called in the scope",
    ),
    Valid(
        """
        import tf_keras
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf_keras.optimizers.Adam(global_clipnorm=1.0)
        """,
        note="tf-keras clips after aggregating",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam(clipvalue=0.5)
        """,
        note="clipvalue is element-wise",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam(global_clipnorm=1.0)
        """,
        note="one replica",
    ),
)
