"""Examples of TFD303 (loss-not-scaled-to-global-batch).

tests/test_rule_examples.py runs them; `distfix explain` shows the first invalid one.
"""

from __future__ import annotations

from fixer.rule import Invalid, Valid

EXAMPLES = (
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def loss_fn(y_true, y_pred):
            return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred))

        def train_step(images, labels):
            with tf.GradientTape() as tape:
                logits = tf.matmul(images, W) + b
                loss = loss_fn(labels, logits)
            gradients = tape.gradient(loss, [W, b])
            optimizer.apply_gradients(zip(gradients, [W, b]))
            return loss

        @tf.function
        def distributed_train_step(images, labels):
            per_replica_losses = strategy.run(train_step, args=(images, labels))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def loss_fn(y_true, y_pred):
            return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred)) / tf.distribute.get_replica_context().num_replicas_in_sync

        def train_step(images, labels):
            with tf.GradientTape() as tape:
                logits = tf.matmul(images, W) + b
                loss = loss_fn(labels, logits)
            gradients = tape.gradient(loss, [W, b])
            optimizer.apply_gradients(zip(gradients, [W, b]))
            return loss

        @tf.function
        def distributed_train_step(images, labels):
            per_replica_losses = strategy.run(train_step, args=(images, labels))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)
        """,
        note="seed 002 mean in a helper then SUM",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y)) / tf.distribute.get_replica_context().num_replicas_in_sync
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="reduce_mean in the replica fn",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            optimizer = tf.keras.optimizers.SGD(0.01)

            def distributed_train_step(dataset_inputs):
                def step_fn(inputs):
                    with tf.GradientTape() as tape:
                        outputs = model(inputs[0])
                        loss = tf.keras.losses.mse(inputs[1], outputs) / strategy.num_replicas_in_sync
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                strategy.run(step_fn, args=(dataset_inputs,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
            optimizer = tf.keras.optimizers.SGD(0.01)

            def distributed_train_step(dataset_inputs):
                def step_fn(inputs):
                    with tf.GradientTape() as tape:
                        outputs = model(inputs[0])
                        loss = tf.nn.compute_average_loss(tf.keras.losses.mse(inputs[1], outputs))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(grads, model.trainable_variables))
                strategy.run(step_fn, args=(dataset_inputs,))
        """,
        note="per-example mse vector divided by the replicas: N replicas step N times smaller",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = loss_object(y, model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="Keras loss object with default reduction: Keras 3 already divides by the replicas",
    ),
    Valid(
        """
        from tensorflow import keras
        import tensorflow as tf

        def train(strategy, dataset):
            mse = keras.losses.MeanSquaredError()

            def replica_step(x, y):
                with tf.GradientTape() as tape:
                    loss = mse(y, model(x))
                grads = tape.gradient(loss, model.trainable_weights)
                opt.apply_gradients(zip(grads, model.trainable_weights))

            for x, y in dataset:
                strategy.run(replica_step, args=(x, y))
        """,
        note="loss object in a function with a strategy parameter: Keras 3 already divides by the replicas",
    ),
    Invalid(
        """
        import tensorflow as tf
        from tensorflow.distribute import MirroredStrategy as Mirrored

        strategy = Mirrored()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.math.reduce_mean(tf.abs(w * x - y))
            g = tape.gradient(loss, w)
            w.assign_sub(0.1 * tf.distribute.get_replica_context().all_reduce("SUM", g))

        strategy.run(replica_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf
        from tensorflow.distribute import MirroredStrategy as Mirrored

        strategy = Mirrored()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.math.reduce_mean(tf.abs(w * x - y)) / tf.distribute.get_replica_context().num_replicas_in_sync
            g = tape.gradient(loss, w)
            w.assign_sub(0.1 * tf.distribute.get_replica_context().all_reduce("SUM", g))

        strategy.run(replica_fn, args=(x, y))
        """,
        note="math.reduce_mean with a manual SUM all-reduce",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()

            def replica_step(self, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(x) - y))
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
                return loss

            @tf.function
            def step(self, x, y):
                return self.strategy.run(self.replica_step, args=(x, y))
        """,
        after="""
        import tensorflow as tf


        class Trainer:
            def __init__(self):
                self.strategy = tf.distribute.MirroredStrategy()

            def replica_step(self, x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(self.model(x) - y)) / tf.distribute.get_replica_context().num_replicas_in_sync
                grads = tape.gradient(loss, self.model.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
                return loss

            @tf.function
            def step(self, x, y):
                return self.strategy.run(self.replica_step, args=(x, y))
        """,
        note="method replica fn on self.strategy",
    ),
    Valid(
        """
        import tensorflow.compat.v2 as tf

        strategy = tf.distribute.MirroredStrategy()
        ce = tf.keras.losses.CategoricalCrossentropy(reduction="none")

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = ce(y, model(x))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="unreduced per-example vector: the replicas' batch sums add up to the one-device code's (a loss scale)",
    ),
    Valid(
        """
        import tensorflow as tf


        class Regressor:
            def __init__(self, strategy):
                self.strategy = strategy
                with strategy.scope():
                    self.net = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                    self.opt = tf.keras.optimizers.SGD(0.1)
                self.criterion = tf.keras.losses.Huber()

            def replica_step(self, x, y):
                with tf.GradientTape() as tape:
                    loss = self.criterion(y, self.net(x))
                grads = tape.gradient(loss, self.net.trainable_variables)
                self.opt.apply_gradients(zip(grads, self.net.trainable_variables))

            @tf.function
            def step(self, x, y):
                self.strategy.run(self.replica_step, args=(x, y))
        """,
        note="Keras loss object held in an attribute set in __init__: Keras 3 already divides by the replicas",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def replica_fn(images, labels, aux_labels):
            with tf.GradientTape() as tape:
                main_logits, aux_logits = model(images)
                total = xent(labels, main_logits) + 0.3 * xent(aux_labels, aux_logits)
            grads = tape.gradient(total, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(replica_fn, args=(images, labels, aux_labels))
        """,
        note="weighted sum of two default-reduction loss objects: Keras 3 already divides by the replicas",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                pred = model(x)
                loss = tf.reduce_mean(tf.square(pred - y)) + 0.01 * tf.reduce_mean(tf.abs(pred))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(replica_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                pred = model(x)
                loss = (tf.reduce_mean(tf.square(pred - y)) + 0.01 * tf.reduce_mean(tf.abs(pred))) / tf.distribute.get_replica_context().num_replicas_in_sync
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(replica_fn, args=(x, y))
        """,
        note="sum of means divided as a whole",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))
            g = tape.gradient(loss, w)
            g = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, g)
            w.assign_sub(0.01 * g)

        strategy.run(replica_fn, args=(x, y))
        """,
        note="per-replica mean loss with a MEAN all-reduce is the single-device gradient",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))
            w.assign_sub(0.01 * tape.gradient(loss, w))

        strategy.run(replica_fn, args=(x, y))
        """,
        note="manual update without aggregation is TFD301's finding (its fix picks MEAN)",
    ),
    Valid(
        """
        import tensorflow as tf

        single = tf.distribute.OneDeviceStrategy(device="/gpu:0")

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        single.run(replica_fn, args=(x, y))
        """,
        note="OneDeviceStrategy: the per-replica mean is the global mean",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        summed = tf.keras.losses.MeanAbsoluteError(reduction="sum")

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = summed(y, model(x)) / GLOBAL_BATCH
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        strategy.run(replica_fn, args=(x, y))
        """,
        note="sum-reduced loss object divided by the global batch",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def forward_backward(batch):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(batch["y"], model(batch["x"])))
            return loss, tape.gradient(loss, model.trainable_variables)

        def replica_fn(batch):
            loss, grads = forward_backward(batch)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        strategy.run(replica_fn, args=(batch,))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def forward_backward(batch):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(batch["y"], model(batch["x"]))) / tf.distribute.get_replica_context().num_replicas_in_sync
            return loss, tape.gradient(loss, model.trainable_variables)

        def replica_fn(batch):
            loss, grads = forward_backward(batch)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        strategy.run(replica_fn, args=(batch,))
        """,
        note="gradients computed in a helper and applied by its caller",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        GLOBAL_BATCH = 64

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                per_example = tf.keras.losses.mse(y, model(x))
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="compute_average_loss",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH_SIZE
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="reduce_sum over global batch",
    ),
    Valid(
        """
        import tensorflow as tf

        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        train_step(x, y)
        """,
        note="single device loop",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def eval_fn(x, y):
            return tf.reduce_mean(tf.square(model(x) - y))

        strategy.run(eval_fn, args=(x, y))
        """,
        note="evaluation replica fn does not train",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            model.compile(optimizer="sgd", loss=tf.keras.losses.MeanSquaredError())
        model.fit(dataset)
        """,
        note="Keras fit scales itself",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y)) / strategy.num_replicas_in_sync
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="mean divided by replicas",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y), axis=0)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="mean over an axis is not a scalar loss",
    ),
    Valid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def step_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))  # distfix: ignore[TFD303]
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        strategy.run(step_fn, args=(x, y))
        """,
        note="suppressed",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss


        @tf.function
        def train_step(x, y):
            return strategy.run(replica_step, args=(x, y))


        for x, y in dist_ds:
            per_replica = train_step(x, y)
            print(strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica, axis=None))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y)) / tf.distribute.get_replica_context().num_replicas_in_sync
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss


        @tf.function
        def train_step(x, y):
            return strategy.run(replica_step, args=(x, y))


        for x, y in dist_ds:
            per_replica = train_step(x, y)
            print(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None))
        """,
        note="the reported loss is SUM-reduced once it is scaled",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.keras.losses.mse(y, model(x)) / strategy.num_replicas_in_sync
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss


        @tf.function
        def train_step(x, y):
            losses = strategy.run(replica_step, args=(x, y))
            return strategy.reduce("SUM", losses, axis=0)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def replica_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.nn.compute_average_loss(tf.keras.losses.mse(y, model(x)))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss


        @tf.function
        def train_step(x, y):
            losses = strategy.run(replica_step, args=(x, y))
            return strategy.reduce("SUM", losses, axis=None)
        """,
        note="a per-example vector divided by the replicas, made a scalar, is reduced with axis=None",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Segmenter:
            def __init__(self, strategy):
                self.strategy = strategy
                with strategy.scope():
                    self.net = build_net()
                    self.opt = tf.keras.optimizers.SGD(0.05)

            def _pixel_loss(self, masks, logits):
                return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=masks, logits=logits))

            def _replica_step(self, images, masks):
                with tf.GradientTape() as tape:
                    loss = self._pixel_loss(masks, self.net(images, training=True))
                grads = tape.gradient(loss, self.net.trainable_variables)
                self.opt.apply_gradients(zip(grads, self.net.trainable_variables))

            @tf.function
            def step(self, images, masks):
                self.strategy.run(self._replica_step, args=(images, masks))
        """,
        after="""
        import tensorflow as tf


        class Segmenter:
            def __init__(self, strategy):
                self.strategy = strategy
                with strategy.scope():
                    self.net = build_net()
                    self.opt = tf.keras.optimizers.SGD(0.05)

            def _pixel_loss(self, masks, logits):
                return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=masks, logits=logits)) / tf.distribute.get_replica_context().num_replicas_in_sync

            def _replica_step(self, images, masks):
                with tf.GradientTape() as tape:
                    loss = self._pixel_loss(masks, self.net(images, training=True))
                grads = tape.gradient(loss, self.net.trainable_variables)
                self.opt.apply_gradients(zip(grads, self.net.trainable_variables))

            @tf.function
            def step(self, images, masks):
                self.strategy.run(self._replica_step, args=(images, masks))
        """,
        note="mean returned by a method helper on self",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def total_loss(labels, logits, model):
            xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
            return xent + tf.math.add_n(model.losses)


        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = total_loss(y, model(x, training=True), model)
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss


        @tf.function
        def train_step(x, y):
            per_replica = strategy.run(replica_fn, args=(x, y))
            return strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica, axis=None)
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def total_loss(labels, logits, model):
            xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
            return xent / tf.distribute.get_replica_context().num_replicas_in_sync + tf.nn.scale_regularization_loss(tf.math.add_n(model.losses))


        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = total_loss(y, model(x, training=True), model)
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss


        @tf.function
        def train_step(x, y):
            per_replica = strategy.run(replica_fn, args=(x, y))
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
        """,
        note="mean plus regularization: the mean divided, the regularization scaled",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def mse(y, p):
            return tf.reduce_mean(tf.square(y - p))


        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = mse(y, model(x))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        strategy.run(replica_fn, args=(x, y))
        print("validation loss", mse(y_val, model(x_val)))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def mse(y, p):
            return tf.reduce_mean(tf.square(y - p))


        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = mse(y, model(x)) / tf.distribute.get_replica_context().num_replicas_in_sync
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


        strategy.run(replica_fn, args=(x, y))
        print("validation loss", mse(y_val, model(x_val)))
        """,
        note="a helper also used outside training is scaled where the step calls it",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                pred = model(x)
                loss = (tf.reduce_mean(tf.abs(pred - y))
                        + 0.1 * tf.reduce_mean(tf.square(pred)))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        strategy.run(replica_fn, args=(x, y))
        """,
        after="""
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()

        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                pred = model(x)
                loss = (tf.reduce_mean(tf.abs(pred - y))
                        + 0.1 * tf.reduce_mean(tf.square(pred))) / tf.distribute.get_replica_context().num_replicas_in_sync
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

        strategy.run(replica_fn, args=(x, y))
        """,
        note="a parenthesised sum is divided after its closing parenthesis",
    ),
    Invalid(
        """
        import tensorflow as tf

        strategy = tf.distribute.MirroredStrategy()


        def replica_step(tokens, targets):
            with tf.GradientTape() as tape:
                logits = model(tokens)
                mask = tf.cast(tf.not_equal(targets, 0), tf.float32)
                xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)
                loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))


        @tf.function
        def train_step(tokens, targets):
            strategy.run(replica_step, args=(tokens, targets))
        """,
        after=None,
        note="a masked mean over this replica's tokens: advice",
    ),
    Invalid(
        """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(y - self(x, training=True)))
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Regressor()
            model.compile(optimizer="sgd")
        """,
        after="""
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(y - self(x, training=True))) / tf.distribute.get_replica_context().num_replicas_in_sync
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": loss}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Regressor()
            model.compile(optimizer="sgd")
        """,
        note="Keras train_step override of a model built in the scope: fit runs it per replica",
    ),
    Valid(
        """
        import tensorflow as tf


        class Regressor(tf.keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    y_pred = self(x, training=True)
                    loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                for metric in self.metrics:
                    metric.update_state(y, y_pred)
                return {m.name: m.result() for m in self.metrics}


        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = Regressor()
            model.compile(optimizer="sgd", loss="mse")
        """,
        note="the compiled loss in train_step: Keras scales it",
    ),
)
