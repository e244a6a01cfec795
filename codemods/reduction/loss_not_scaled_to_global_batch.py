"""TFD303: a custom loop's loss is a per-replica mean (or an unreduced per-example vector)."""

from __future__ import annotations

import libcst as cst

from fixer.tf.loss_scaling import (
    Scaling,
    classify,
    gradient_calls,
    is_regularization,
    loss_call,
    loss_origin,
    mentions_replicas,
    only_reduce_means,
    sum_terms,
)
from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability, Edit

_APPLIES = frozenset({"apply_gradients", "minimize"})


class LossNotScaledToGlobalBatch(Rule):
    """
    ## What it does
    In a replica function whose gradients are summed across replicas (it calls
    `apply_gradients` or `minimize`, or all-reduces them with SUM), finds a loss given to
    `tape.gradient` that is a per-replica mean (`tf.reduce_mean`, or a sum of such terms, plus
    unscaled `model.losses`) or an unreduced per-example vector (`tf.keras.losses.mse(...)`,
    a loss object built with `reduction="none"`), directly or through a helper (a function, a
    method called on `self`, or a lambda bound to a name) whose one `return` gives it, also
    when the helper's result is summed with other terms (`get_loss(y, p) + sum(model.losses) +
    AUX_WEIGHT * aux`, a weight being a number or a module-level name bound to one). A
    per-example vector divided by `num_replicas_in_sync` is still a vector and is reported, and
    so is a `tf.reduce_sum(...)` divided by `num_replicas_in_sync` alone (the batch size is
    missing); a `tf.reduce_sum(...)` divided by anything else but a count taken on the replica is
    taken as divided by the global batch (not checked). Not reported: a mean loss whose gradients are all-reduced with MEAN (that is the single-device
    gradient), a manual update without any aggregation (TFD301's finding; its fix picks MEAN
    for a mean loss), programs whose only strategy is `OneDeviceStrategy`, and a Keras 3 loss
    object with its default reduction: in a replica context it already divides by the number
    of replicas (measured on TensorFlow 2.21, 2 replicas: `MeanSquaredError()` returned
    `[1.25, 6.25]` where `tf.reduce_mean` returned `[2.5, 12.5]`).

    ## Why is this bad in distributed training?
    Gradients are summed across replicas (Keras 3 `apply_gradients` sums them; so does an
    all-reduce with `SUM`). A per-replica mean therefore gives an N-times larger step with N
    replicas — measured on TensorFlow 2.21: gradient `[134, 160]` instead of `[67, 80]` with 2
    replicas, `[268, 320]` with 4 — and reporting the loss with `strategy.reduce(SUM, ...)`
    shows it N times too large. Fixing only the reported number hides the bug. A per-example
    vector is worse: its gradient is the sum over the batch.

    ## Fix safety
    Unsafe (it changes the numbers, on purpose). A `tf.reduce_mean(x)` loss becomes
    `tf.reduce_mean(x) / tf.distribute.get_replica_context().num_replicas_in_sync`, which is
    exactly the single-device mean for equal replica batches whatever the rank of `x` (a sum of
    such means is divided as a whole, after its closing parenthesis when it has one); unscaled
    regularization added to it (`tf.add_n(model.losses)`) is wrapped in
    `tf.nn.scale_regularization_loss(...)` instead, which divides it by the replicas too. A
    per-example vector is wrapped in `tf.nn.compute_average_loss(...)`, which divides by the
    global batch (measured equal to single-device training); one divided by
    `num_replicas_in_sync` is averaged that way instead of being divided; a sum divided by the
    replicas gets advice (which tensor is per-example is not known). A helper is edited where it returns
    the loss when every call of it is in a training replica function; a helper also used
    elsewhere (evaluation, cross-replica code, where `get_replica_context()` may be None) keeps
    its meaning, and the loss is scaled where the training step calls it. A mean the fix cannot
    rewrite is explained instead.

    ## Runtime evidence
    `distfix validate` compares a 1-replica and an N-replica run with the same global batch:
    the original fails check `replica-count-invariant` (the variables move N times further),
    the fixed script passes.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/custom_training#define_the_loss_function
    - https://www.tensorflow.org/api_docs/python/tf/nn/compute_average_loss
    """

    code = "TFD303"
    name = "loss-not-scaled-to-global-batch"
    message = "loss is not scaled to the global batch"
    fix_title = "Scale the loss to the global batch"
    applicability = Applicability.UNSAFE
    triggers = (".run(", "experimental_run_v2", "call_for_each_replica")
    needs = (STRATEGY,)

    examples = (
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
                optimizer = tf.keras.optimizers.Adam()

                def distributed_train_step(dataset_inputs):
                    def step_fn(inputs):
                        with tf.GradientTape() as tape:
                            outputs = model(inputs[0])
                            loss = tf.keras.losses.mse(inputs[1], outputs)
                        grads = tape.gradient(loss, model.trainable_variables)
                        optimizer.apply_gradients(zip(grads, model.trainable_variables))
                    strategy.run(step_fn, args=(dataset_inputs,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
                optimizer = tf.keras.optimizers.Adam()

                def distributed_train_step(dataset_inputs):
                    def step_fn(inputs):
                        with tf.GradientTape() as tape:
                            outputs = model(inputs[0])
                            loss = tf.nn.compute_average_loss(tf.keras.losses.mse(inputs[1], outputs))
                        grads = tape.gradient(loss, model.trainable_variables)
                        optimizer.apply_gradients(zip(grads, model.trainable_variables))
                    strategy.run(step_fn, args=(dataset_inputs,))
            """,
            note="seed 000 per-example mse vector",
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
        Invalid(
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
            after="""
            import tensorflow.compat.v2 as tf

            strategy = tf.distribute.MirroredStrategy()
            ce = tf.keras.losses.CategoricalCrossentropy(reduction="none")

            def step_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(ce(y, model(x)))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))

            strategy.run(step_fn, args=(x, y))
            """,
            note="reduction none loss object fed raw",
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
                    loss = tf.keras.losses.mse(y, model(x))
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
            note="a per-example vector made a scalar is reduced with axis=None",
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
    )

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if ctx.tf.strategies.single_replica:
            return  # OneDeviceStrategy: the per-replica mean is the global mean
        reported: set[int] = set()
        for func in replica.replica_functions:
            for gradient in gradient_calls(ctx, func):
                if not self._summed(ctx, func, gradient):
                    continue
                origin, holder = loss_origin(ctx, func, gradient)
                if origin is None or id(origin) in reported:
                    continue
                scaling = classify(ctx, origin, holder)
                if scaling in (Scaling.GLOBAL, Scaling.UNKNOWN):
                    continue
                reported.add(id(origin))
                self._report(ctx, func, gradient, origin, holder, scaling, _reported_loss_reduces(ctx, func, gradient, scaling))

    def _summed(self, ctx: RuleContext, func, gradient: cst.Call) -> bool:
        """True when the gradients are summed across replicas.

        Keras 3 `apply_gradients` / `minimize` sum them (measured), and so does an all-reduce
        with SUM. A MEAN all-reduce averages them (a per-replica mean loss is then right), and a
        manual update without any aggregation is TFD301's finding, whose fix picks the op that
        matches the loss: rescaling the loss too would make the step N times too small.
        """
        replica = ctx.tf.replica
        calls = list(replica.calls_in(func))
        for call in replica.calls_in(func):
            for target in replica.resolve_callable(call.func, call):
                if target in replica.replica_functions and target is not func:
                    calls.extend(replica.calls_in(target))
        for site in ctx.tf.strategies.call_sites(func):  # a helper whose caller applies the gradients
            caller = ctx.index.enclosing_function(site)
            if caller is not func and caller in replica.replica_functions:
                calls.extend(replica.calls_in(caller))
        if any(isinstance(c.func, cst.Attribute) and c.func.attr.value in _APPLIES for c in calls):
            return True
        for call in calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "all_reduce" and call.args:
                if "SUM" in ctx.source(call.args[0].value).upper():
                    return True
        return False

    def _report(
        self, ctx: RuleContext, func, gradient: cst.Call, origin: cst.BaseExpression, holder, scaling: Scaling,
        reduces: list[Edit],
    ) -> None:
        tf, imports = ctx.import_module("tensorflow", "tf")
        divide = f" / {tf}.distribute.get_replica_context().num_replicas_in_sync"
        # A helper also used outside training (evaluation, cross-replica code) keeps its meaning:
        # the loss is then scaled where the training step calls it.
        call = loss_call(ctx, func, gradient) if holder is not func else None
        at_call = call is not None and not _only_trains(ctx, holder)
        if scaling is Scaling.MEAN and only_reduce_means(ctx, origin, holder):
            if at_call:
                edit = ctx.insert_after(call, divide)
            else:
                edit = _divided(ctx, origin, divide, tf)
            ctx.report(
                origin,
                "the loss is a per-replica mean, but gradients are summed across replicas: the step is "
                "N times too large with N replicas; divide by the number of replicas",
                edits=[*imports, edit, *reduces],
            )
        elif scaling is Scaling.REPLICA_SUM:
            ctx.report(
                origin,
                "the loss is the replica's sum divided by `num_replicas_in_sync`: the batch size is missing from "
                "the divisor, so the step grows with the per-replica batch; average the per-example losses over "
                "the global batch with `tf.nn.compute_average_loss(per_example_loss)` (or divide the sum by the "
                "global batch size)",
            )
        elif scaling is Scaling.PER_EXAMPLE and _divided_by_replicas(origin):
            # `per_example / num_replicas_in_sync`: the vector itself is averaged instead, or the
            # loss would be divided by the replicas twice.
            message = (
                "the loss is a per-example vector divided by `num_replicas_in_sync`: still a vector, its "
                "gradient is the batch's sum divided by N; average it over the global batch with "
                "`tf.nn.compute_average_loss` instead of dividing it"
            )
            if at_call:
                ctx.report(origin, message)
            else:
                replacement = f"{tf}.nn.compute_average_loss({ctx.source(origin.left)})"
                ctx.report(origin, message, edits=[*imports, ctx.replace(origin, replacement), *reduces])
        elif scaling is Scaling.PER_EXAMPLE:
            target = call if at_call else origin
            ctx.report(
                origin,
                "the loss is a per-example vector: its gradient is the sum over the batch; average it over "
                "the global batch with `tf.nn.compute_average_loss`",
                edits=[*imports, ctx.replace(target, f"{tf}.nn.compute_average_loss({ctx.source(target)})"), *reduces],
            )
        else:
            ctx.report(
                origin,
                "the loss is a per-replica mean, but gradients are summed across replicas: divide it by "
                "`num_replicas_in_sync`, or average per-example losses with `tf.nn.compute_average_loss`",
            )


def _divided_by_replicas(origin: cst.BaseExpression) -> bool:
    """``<loss> / <something with num_replicas_in_sync>`` (unparenthesised, so it can be replaced)."""
    return (
        isinstance(origin, cst.BinaryOperation)
        and isinstance(origin.operator, cst.Divide)
        and not origin.lpar
        and mentions_replicas(origin.right)
    )


def _only_trains(ctx: RuleContext, helper) -> bool:
    """Every call of the loss helper is in a replica function that computes gradients."""
    if isinstance(helper, cst.Lambda):
        return False  # its calls go through the name it is bound to: not followed
    sites = ctx.tf.strategies.call_sites(helper)
    replica = ctx.tf.replica
    return bool(sites) and all(
        ctx.index.enclosing_function(site) in replica.replica_functions
        and gradient_calls(ctx, ctx.index.enclosing_function(site))
        for site in sites
    )


def _divided(ctx: RuleContext, origin: cst.BaseExpression, divide: str, tf: str) -> Edit:
    """The edit dividing a mean loss by the replicas; unscaled regularization terms
    (`tf.add_n(model.losses)`) are wrapped in `tf.nn.scale_regularization_loss` instead."""
    terms = sum_terms(origin)
    if terms is not None and any(is_regularization(ctx, t) for t in terms) and not all(
        is_regularization(ctx, t) for t in terms
    ):
        parts = []
        for term in terms:
            text = _with_parens(term)
            if is_regularization(ctx, term):
                parts.append(f"{tf}.nn.scale_regularization_loss({text})")
            elif term.lpar or isinstance(term, (cst.Call, cst.Name, cst.Attribute, cst.Subscript)) or (
                isinstance(term, cst.BinaryOperation) and isinstance(term.operator, (cst.Multiply, cst.Divide))
            ):
                parts.append(text + divide)
            else:
                parts.append(f"({text}){divide}")
        return ctx.replace(origin, " + ".join(parts))
    if isinstance(origin, cst.Call) or not origin.lpar:
        text = ctx.source(origin)
        return ctx.insert_after(origin, divide) if isinstance(origin, cst.Call) else ctx.replace(origin, f"({text}){divide}")
    # `(a + b)`: the node's span excludes its parentheses; divide after the closing one.
    end = ctx.span(origin)[1]
    for _ in origin.rpar:
        closing = ctx.text.find(")", end)
        if closing < 0 or ctx.text[end:closing].strip():
            return ctx.replace(origin, f"({ctx.source(origin)}){divide}")
        end = closing + 1
    return Edit(end, end, divide)


def _with_parens(node: cst.BaseExpression) -> str:
    """The original text of ``node`` with its own parentheses (libcst spans exclude them)."""
    return cst.Module(body=[]).code_for_node(node)


def _reported_loss_reduces(ctx: RuleContext, func, gradient: cst.Call, scaling: Scaling) -> list[Edit]:
    """Edits that keep the reported loss right once it is scaled to the global batch.

    When the replica function returns the loss, the `strategy.reduce(...)` of what `strategy.run`
    gives back must SUM the scaled per-replica values (a MEAN would show it N times too small),
    and a per-example vector that became a scalar is reduced with ``axis=None``.
    """
    loss = gradient.args[0].value
    returned = isinstance(loss, cst.Name) and any(
        isinstance(r.value, cst.Name) and r.value.value == loss.value for r in ctx.index.in_function("returns", func)
    )
    if not returned:
        return []
    edits: list[Edit] = []
    for reduce in _reduces_of_runs(ctx, func):
        op = reduce.args[0].value
        text = ctx.source(op)
        if "MEAN" in text.upper():
            edits.append(ctx.replace(op, text.replace("MEAN", "SUM").replace("mean", "sum")))
        axis = _axis_argument(reduce)
        if scaling is Scaling.PER_EXAMPLE and axis is not None and not (isinstance(axis, cst.Name) and axis.value == "None"):
            edits.append(ctx.replace(axis, "None"))
    return edits


def _reduces_of_runs(ctx: RuleContext, func) -> list[cst.Call]:
    """``<strategy>.reduce(op, value, ...)`` calls whose value is what ``strategy.run(func)`` returned.

    The value is the run call itself, a name bound to it, or (when a step returns the run) the
    step's call or a name bound to that, in the same function as the reduce.
    """
    producers: list[cst.Call] = []
    replica = ctx.tf.replica
    for run in replica.run_calls:
        forwards = any(  # `strategy.run(lambda x, y: self._replica_step(x, y), ...)`
            isinstance(t, cst.Lambda)
            and isinstance(t.body, cst.Call)
            and func in replica.resolve_callable(t.body.func, t.body)
            for t in run.targets
        )
        if func not in run.targets and not forwards:
            continue
        producers.append(run.call)
        parent = ctx.index.parent.get(run.call)
        step = ctx.index.enclosing_function(run.call)
        if isinstance(parent, cst.Return) and isinstance(step, cst.FunctionDef):
            producers.extend(ctx.tf.strategies.call_sites(step))
    reduces = []
    for call in ctx.tf.replica.strategy_reduces:
        value = call.args[1].value
        if any(value is p or _bound_to(ctx, value, p, call) for p in producers):
            reduces.append(call)
    return reduces


def _bound_to(ctx: RuleContext, value: cst.BaseExpression, producer: cst.Call, use: cst.CSTNode) -> bool:
    """True when ``value`` is a name assigned from ``producer`` in the function that uses it."""
    if not isinstance(value, cst.Name):
        return False
    statement = ctx.index.parent.get(producer)
    if not isinstance(statement, cst.Assign) or ctx.index.enclosing_function(statement) is not ctx.index.enclosing_function(use):
        return False
    return any(isinstance(t.target, cst.Name) and t.target.value == value.value for t in statement.targets)


def _axis_argument(reduce: cst.Call) -> cst.BaseExpression | None:
    for position, arg in enumerate(reduce.args):
        if (arg.keyword is not None and arg.keyword.value == "axis") or (arg.keyword is None and position == 2):
            return arg.value
    return None
