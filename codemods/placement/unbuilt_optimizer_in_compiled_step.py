"""TFD109: a Keras 3 optimizer with state first built inside a compiled distributed step."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.keras_flavour import keras_flavour, keras_module, legacy_keras
from fixer.tf.names import dotted_name
from fixer.tf.optimizers import (
    State,
    apply_calls,
    compiled_replica_functions,
    is_built,
    needs_ready,
    optimizer_creation,
    plan_build,
)
from fixer.tf.project import pinned_below
from fixer.tf.strategies import Membership
from fixer.types import Applicability

_KERAS3_UPDATES = frozenset({"apply_gradients", "apply"})  # Keras 3 optimizers have no `minimize`


class UnbuiltOptimizerInCompiledStep(Rule):
    """
    ## What it does
    Finds a Keras 3 optimizer with state (Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam,
    Ftrl, Lion, Adafactor, Lamb, SGD with momentum; plain SGD too when the model it trains has no
    weights before the step) created in `strategy.scope()` whose first `apply_gradients` (or
    `apply`) runs in a replica function that a `tf.function` step runs with `strategy.run`, under a
    strategy that can have more than one replica per process (`MirroredStrategy`, or a strategy the
    file does not construct), and that is never built with `optimizer.build(...)` before. Not
    reported: tf-keras (`TF_USE_LEGACY_KERAS=1` set in the file for `tf.keras`, or `import
    tf_keras`), a project that pins TensorFlow below 2.16 (Keras 2), plain SGD on a model that has
    its weights, an optimizer created outside the scope (TFD101), and an eager `strategy.run`
    (TFD402).

    ## Why is this bad in distributed training?
    A Keras 3 optimizer creates its variables (the iteration counter, one or two slots per
    trained variable) on its first update. When that first update runs inside a compiled step
    with 2 replicas, TensorFlow 2.21 fails at the first step with `InvalidArgumentError: You must
    feed a value for placeholder tensor 'cond/else/_1/cond/Placeholder' with dtype int32`. With
    one replica (one GPU, or a CPU) it runs, so the script breaks the day it scales out. This is
    the shape of TensorFlow's own custom-training tutorial (tutorials/distribute/custom_training);
    upstream: keras-team/keras#19246, tensorflow/tensorflow#72686.

    Measured (TensorFlow 2.21.0, Keras 3.15.1, tf-keras 2.21.0, `MirroredStrategy` on 2 logical
    CPUs, `benchmarks/probe_unbuilt_optimizer.py`):

    | optimizer | Keras 3, unbuilt | Keras 3, built in the scope | tf-keras, unbuilt |
    |---|---|---|---|
    | SGD (no momentum), built model | runs | runs | runs |
    | SGD (no momentum), model built by the step | fails | runs (model and SGD built) | runs |
    | SGD(momentum=0.9) | fails | runs | runs |
    | Adam, AdamW, Adamax, Nadam | fails | runs | runs |
    | RMSprop (with and without momentum) | fails | runs | runs |
    | Adagrad, Adadelta, Ftrl | fails | runs | runs |
    | Lion, Adafactor | fails | runs | runs |
    | Lamb | fails | runs | (absent) |

    With Adam: an eager `strategy.run` with 2 replicas runs, a compiled step with 1 replica runs,
    Keras 3's `optimizer.apply(grads, vars)` fails like `apply_gradients`, a model without `Input`
    fails unbuilt and runs after `model.build(input_shape)` and `optimizer.build(...)`; the same
    unbuilt model in a compiled step without any optimizer (forward pass only) runs.
    Optimizer classes not in the table (LossScaleOptimizer, Muon, your own) are not reported.
    `MultiWorkerMirroredStrategy` with 2 workers of one replica each (CPU) runs an unbuilt Adam:
    it is not reported.

    ## Fix safety
    Unsafe: `optimizer.build(model.trainable_variables)` is inserted right after the optimizer is
    created, in the scope (after the model's own statement when the model is created later in
    the same block). When the model has no weights yet (no `Input` layer, `input_shape=`,
    functional inputs, `build` or call before), `model.build((None, ...))` goes first, with the
    input shape the file writes down: the features of a `Dataset.from_tensor_slices` of literal
    tensors (`tf.random.normal((64, 784))`, `tf.constant([[...]])`) or the tensors given to the
    step, when the model is called on them unchanged (`model(x)`, not `model(x[0])`). When the shape is not written in the file (data loaded at run time) or the trained
    variables are not a model's `trainable_variables` or a list of variables, the finding says
    exactly what to add: building the optimizer on an empty variable list makes its first update
    fail. Building early creates the same variables, with the same initial values, that the
    first update would create.

    ## Runtime evidence
    `distfix validate` (2 replicas) shows the original failing check `runs` with the placeholder
    error above, and the fixed script training with identical replicas.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/custom_training
    - https://keras.io/api/optimizers/#core-optimizer-api
    - https://github.com/keras-team/keras/issues/19246
    - https://github.com/tensorflow/tensorflow/issues/72686
    """

    code = "TFD109"
    name = "unbuilt-optimizer-in-compiled-step"
    message = "Keras 3 optimizer first built inside a compiled distributed step"
    fix_title = "Build the optimizer in the scope"
    applicability = Applicability.UNSAFE
    triggers = ("apply_gradients", ".apply(")
    needs = (STRATEGY,)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()


            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss


            @tf.function
            def distributed_train_step(x, y):
                per_replica = strategy.run(train_step, args=(x, y))
                return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()
                optimizer.build(model.trainable_variables)


            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss


            @tf.function
            def distributed_train_step(x, y):
                per_replica = strategy.run(train_step, args=(x, y))
                return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
            """,
            note="the custom-training tutorial shape",
        ),
        Invalid(
            """
            import tensorflow as tf

            features = tf.random.normal((64, 784))
            labels = tf.random.uniform((64, 1))
            dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.RMSprop(1e-3)


            @tf.function
            def step(x, y):
                def replica(x, y):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(model(x) - y))
                    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
                strategy.run(replica, args=(x, y))
            """,
            after="""
            import tensorflow as tf

            features = tf.random.normal((64, 784))
            labels = tf.random.uniform((64, 1))
            dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.RMSprop(1e-3)
                model.build((None, 784))
                optimizer.build(model.trainable_variables)


            @tf.function
            def step(x, y):
                def replica(x, y):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(tf.square(model(x) - y))
                    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
                strategy.run(replica, args=(x, y))
            """,
            note="model without Input, shape from the dataset",
        ),
        Invalid(
            """
            import tensorflow as tf

            (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
            dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(64)

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
                optimizer = tf.keras.optimizers.Adam()


            def train_step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def distributed_train_step(x, y):
                strategy.run(train_step, args=(x, y))
            """,
            note="shape loaded at run time: advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            images = tf.random.normal((64, 28, 28))
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
                optimizer = tf.keras.optimizers.Adam()


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(tf.expand_dims(x, -1)))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))


            step(images)
            """,
            note="input reshaped before the model: its shape is not the data's, advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
                opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)


            def replica_fn(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(model(x))
                opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def train(x):
                strategy.run(replica_fn, args=(x,))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
                opt = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
                opt.build(model.trainable_variables)


            def replica_fn(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(model(x))
                opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def train(x):
                strategy.run(replica_fn, args=(x,))
            """,
            note="SGD with momentum",
        ),
        Invalid(
            """
            import os

            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import keras
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
                optimizer = keras.optimizers.AdamW(weight_decay=1e-4)


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))
            """,
            after="""
            import os

            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import keras
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
                optimizer = keras.optimizers.AdamW(weight_decay=1e-4)
                optimizer.build(model.trainable_variables)


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))
            """,
            note="standalone keras is Keras 3 whatever the switch says",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                W = tf.Variable(tf.random.normal((784, 10)), name="weights")
                b = tf.Variable(tf.zeros((10,)), name="biases")
                optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)


            def train_step(images, labels):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(tf.matmul(images, W) + b - labels))
                gradients = tape.gradient(loss, [W, b])
                optimizer.apply_gradients(zip(gradients, [W, b]))
                return loss


            @tf.function
            def distributed_train_step(images, labels):
                return strategy.run(train_step, args=(images, labels))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                W = tf.Variable(tf.random.normal((784, 10)), name="weights")
                b = tf.Variable(tf.zeros((10,)), name="biases")
                optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
                optimizer.build([W, b])


            def train_step(images, labels):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(tf.matmul(images, W) + b - labels))
                gradients = tape.gradient(loss, [W, b])
                optimizer.apply_gradients(zip(gradients, [W, b]))
                return loss


            @tf.function
            def distributed_train_step(images, labels):
                return strategy.run(train_step, args=(images, labels))
            """,
            note="plain variables (seed 002 shape)",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                optimizer = tf.keras.optimizers.Adagrad(0.1)
                model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            def step(x):
                strategy.run(replica_step, args=(x,))


            step = tf.function(step)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                optimizer = tf.keras.optimizers.Adagrad(0.1)
                model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
                optimizer.build(model.trainable_variables)


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            def step(x):
                strategy.run(replica_step, args=(x,))


            step = tf.function(step)
            """,
            note="model made after its optimizer; step compiled by assignment",
        ),
        Invalid(
            """
            import tensorflow as tf


            class Trainer:
                def __init__(self, strategy):
                    self.strategy = strategy
                    with self.strategy.scope():
                        self.model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
                        self.optimizer = tf.keras.optimizers.Nadam()

                def replica_step(self, x):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(self.model(x))
                    grads = tape.gradient(loss, self.model.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

                @tf.function
                def step(self, x):
                    self.strategy.run(self.replica_step, args=(x,))


            trainer = Trainer(tf.distribute.MirroredStrategy())
            """,
            after="""
            import tensorflow as tf


            class Trainer:
                def __init__(self, strategy):
                    self.strategy = strategy
                    with self.strategy.scope():
                        self.model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
                        self.optimizer = tf.keras.optimizers.Nadam()
                        self.optimizer.build(self.model.trainable_variables)

                def replica_step(self, x):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(self.model(x))
                    grads = tape.gradient(loss, self.model.trainable_variables)
                    self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))

                @tf.function
                def step(self, x):
                    self.strategy.run(self.replica_step, args=(x,))


            trainer = Trainer(tf.distribute.MirroredStrategy())
            """,
            note="a trainer class with self.optimizer",
        ),
        Invalid(
            """
            import keras
            import tensorflow as tf


            def train(strategy, batches):
                with strategy.scope():
                    inputs = keras.Input(shape=(6,))
                    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
                    optimizer = keras.optimizers.Lion(1e-4)

                def replica_step(x):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(model(x))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply(grads, model.trainable_variables)

                @tf.function
                def step(x):
                    strategy.run(replica_step, args=(x,))

                for x in batches:
                    step(x)
            """,
            after="""
            import keras
            import tensorflow as tf


            def train(strategy, batches):
                with strategy.scope():
                    inputs = keras.Input(shape=(6,))
                    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
                    optimizer = keras.optimizers.Lion(1e-4)
                    optimizer.build(model.trainable_variables)

                def replica_step(x):
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_mean(model(x))
                    grads = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply(grads, model.trainable_variables)

                @tf.function
                def step(x):
                    strategy.run(replica_step, args=(x,))

                for x in batches:
                    step(x)
            """,
            note="strategy parameter, functional model, Keras 3 apply",
        ),
        Invalid(
            """
            import tensorflow as tf

            features = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.SGD(0.01)


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))


            step(features)
            """,
            after="""
            import tensorflow as tf

            features = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.SGD(0.01)
                model.build((None, 2))
                optimizer.build(model.trainable_variables)


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))


            step(features)
            """,
            note="plain SGD on a model the step would build; shape from the step's tensor",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()
                optimizer.build(model.trainable_variables)


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="built in the scope",
        ),
        Valid(
            """
            import os

            os.environ["TF_USE_LEGACY_KERAS"] = "1"
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="tf.keras is tf-keras here: measured running",
        ),
        Valid(
            """
            import tensorflow as tf
            import tf_keras

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf_keras.Sequential([tf_keras.layers.Dense(1)])
                optimizer = tf_keras.optimizers.Adam()


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="tf_keras optimizer",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.SGD(0.01)


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="plain SGD keeps no state",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            for x in batches:
                strategy.run(train_step, args=(x,))
            """,
            note="eager strategy.run: measured running",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.OneDeviceStrategy("/gpu:0")
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="one replica",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
            optimizer = tf.keras.optimizers.Adam()


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="created outside the scope is TFD101's finding",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
            model.fit(dataset, epochs=2)
            """,
            note="fit builds the optimizer itself",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy(devices=["/gpu:0"])
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="a MirroredStrategy on one listed device",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))


            def train_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(train_step, args=(x,))
            """,
            note="an optimizer class that was not measured",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MultiWorkerMirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()


            def replica_step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(model(x))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))


            @tf.function
            def step(x):
                strategy.run(replica_step, args=(x,))
            """,
            note="MultiWorkerMirroredStrategy: measured running",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if strategies.single_replica or _imports_tf_keras(ctx):
            return
        functions = compiled_replica_functions(ctx)
        if not functions:
            return
        legacy = legacy_keras(ctx)
        pinned_keras2 = pinned_below(Path(ctx.path).resolve().parent, (2, 16))
        reported: set[int] = set()
        for call in apply_calls(ctx, functions):
            if call.func.attr.value not in _KERAS3_UPDATES:  # type: ignore[attr-defined]
                continue
            receiver = call.func.value  # type: ignore[attr-defined]
            creation = optimizer_creation(ctx, receiver)
            if creation is None or id(creation.call) in reported or not needs_ready(ctx, call, creation):
                continue
            if is_built(ctx, receiver) or strategies.membership(creation.statement) is not Membership.INSIDE:
                continue
            if keras_flavour(keras_module(ctx, creation.call.func), legacy, pinned_keras2) != 3:
                continue
            reported.add(id(creation.call))
            plan = plan_build(ctx, call, creation)
            what = (
                f"Keras 3 `{creation.class_name}` creates its variables"
                if creation.state is State.STATEFUL
                else f"Keras 3 `{creation.class_name}` and its model create their variables"
            )
            message = (
                f"{what} in the compiled step `{functions[ctx.index.enclosing_function(call)]}` (fails with "
                "several replicas); "
            )
            edits = plan.edits(ctx)
            if edits is None:
                message += plan.advice
            elif len(plan.lines) > 1:
                message += "build the model, then the optimizer, right after they are created"
            else:
                message += "build it in the scope right after creating it"
            ctx.report(creation.call, message, edits=edits)


def _imports_tf_keras(ctx: RuleContext) -> bool:
    """The file imports tf-keras (Keras 2): its `tf.keras` code is meant to run on tf-keras too."""
    # Names read without positions: asking for source text would resolve every position of the file.
    for node in ctx.index.imports:
        if isinstance(node, cst.Import):
            if any((dotted_name(a.name) or "").split(".")[0] == "tf_keras" for a in node.names):
                return True
        elif node.module is not None and not node.relative and (dotted_name(node.module) or "").split(".")[0] == "tf_keras":
            return True
    return False
