"""TFD106: Keras `fit`/`evaluate`/`predict`/`*_on_batch` called inside a replica function."""

from __future__ import annotations

import libcst as cst

from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability

# Keras methods that drive their own distributed loop (they enter cross-replica context).
_KERAS_LOOPS = frozenset(
    {
        "fit",
        "evaluate",
        "predict",
        "train_on_batch",
        "test_on_batch",
        "predict_on_batch",
        "fit_generator",
        "evaluate_generator",
        "predict_generator",
    }
)


class KerasTrainApiInReplicaFn(Rule):
    """
    ## What it does
    Finds `model.fit`, `evaluate`, `predict` and the `*_on_batch` methods called inside a replica
    function: the function given to `strategy.run` (or a helper it calls in the same module).

    ## Why is this bad in distributed training?
    These methods run their own distributed loop over the model's strategy: they must be called
    from cross-replica code. Measured on TensorFlow 2.21 with two replicas, in an eager and in a
    `tf.function` step alike:
    - Keras 3: `fit`, `evaluate` and `predict` raise `ValueError: next(iterator) should be
      called from outside of replica_fn`; `train_on_batch` and `predict_on_batch` raise
      `RuntimeError: Method requires being in cross-replica context, use
      get_replica_context().merge_call()`.
    - tf-keras (`TF_USE_LEGACY_KERAS=1`): all five raise `RuntimeError: Method requires being in
      cross-replica context`.

    ## Fix safety
    Display-only. The call has to move to cross-replica code (for a whole epoch: `model.fit` on
    the dataset outside `strategy.run`; for one step: a replica function that computes the loss
    with a `GradientTape` and calls `optimizer.apply_gradients`), and which one was meant cannot be
    told from the code: the replica function receives per-replica batches, and what it returns
    feeds the code around `strategy.run`. A mechanical move would change what the step computes.

    ## Runtime evidence
    `distfix validate` shows the `runs` check failing with the error above.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#run
    - https://www.tensorflow.org/guide/distributed_training#use_tfdistributestrategy_with_keras_modelfit
    """

    code = "TFD106"
    name = "keras-train-api-in-replica-fn"
    message = "Keras training API called inside a replica function"
    applicability = Applicability.DISPLAY_ONLY
    triggers = (".run(", "experimental_run_v2", "call_for_each_replica")
    needs = (STRATEGY,)

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(optimizer="sgd", loss="mse")

            def replica_fn(x, y):
                model.train_on_batch(x, y)

            @tf.function
            def step(x, y):
                strategy.run(replica_fn, args=(x, y))
            """,
            note="train_on_batch in the replica fn",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(batch):
                return model.predict(batch, verbose=0)

            for batch in dist_dataset:
                outputs = strategy.run(replica_fn, args=(batch,))
            """,
            note="predict in an eager run",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def fit_one(model, x, y):
                model.fit(x, y, epochs=1, verbose=0)

            def replica_fn(x, y):
                fit_one(model, x, y)

            strategy.run(replica_fn, args=(x, y))
            """,
            note="fit in a helper of the replica fn",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            @tf.function
            def evaluate_step(x, y):
                return strategy.run(lambda a, b: model.evaluate(a, b, verbose=0), args=(x, y))
            """,
            note="evaluate in a lambda",
        ),
        Invalid(
            """
            import tensorflow as tf


            class Trainer:
                def __init__(self):
                    self.strategy = tf.distribute.MirroredStrategy()

                def _replica_step(self, x, y):
                    return self.model.test_on_batch(x, y)

                def step(self, x, y):
                    return self.strategy.run(self._replica_step, args=(x, y))
            """,
            note="test_on_batch in a method",
        ),
        Invalid(
            """
            from tensorflow.distribute import MirroredStrategy

            strategy = MirroredStrategy()

            def replica_fn(x):
                return keras_model.predict_on_batch(x)

            strategy.run(replica_fn, args=(x,))
            """,
            note="predict_on_batch, strategy imported by name",
        ),
        Invalid(
            """
            import tensorflow as tf

            def train(strategy: tf.distribute.Strategy, model, batches):
                def replica_fn(x, y):
                    model.fit(x, y, verbose=0)

                for x, y in batches:
                    strategy.run(replica_fn, args=(x, y))
            """,
            note="strategy typed as a parameter",
        ),
        Invalid(
            """
            import tensorflow as tf

            def train(strategy, model, batches):
                with strategy.scope():
                    pass

                def replica_fn(x, y):
                    model.fit(x, y, verbose=0)
                    model.evaluate(x, y, verbose=0)

                for x, y in batches:
                    strategy.run(replica_fn, args=(x, y))
            """,
            count=2,
            note="parameter entered as a scope, two calls",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                model.compile(optimizer="sgd", loss="mse")
            model.fit(dataset, epochs=2)
            model.evaluate(dataset)
            """,
            note="fit in cross-replica code",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x, y):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y, model(x, training=True))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            @tf.function
            def step(x, y):
                return strategy.run(replica_fn, args=(x, y))

            model.evaluate(test_dataset)
            """,
            note="custom step, evaluate outside",
        ),
        Valid(
            """
            import ray

            executor = ray.train.Executor()

            def train_fn(config):
                model.fit(config["x"], config["y"])

            executor.run(train_fn, args=[config])
            """,
            note="a Ray executor's run is not strategy.run",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            class Ensemble:
                def predict(self, x):
                    return sum(m(x) for m in self.members)

            def replica_fn(x):
                return ensemble.predict(x)

            strategy.run(replica_fn, args=(x,))
            """,
            note="a predict method defined in the module",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return model(x, training=False)

            def run_eval(x):
                predictions = strategy.run(replica_fn, args=(x,))
                model.predict(x)
                return predictions
            """,
            note="predict next to strategy.run, not in the replica fn",
        ),
        Valid(
            """
            import tensorflow as tf

            class MyModel(tf.keras.Model):
                def train_step(self, data):
                    x, y = data
                    return self.compute_metrics(x, y, self(x), None)

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = MyModel()
                model.compile(optimizer="adam", loss="mse")
            model.fit(x, y)
            """,
            note="train_step override used by fit",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                scaler.fit_transform(x)
                return tf.reduce_sum(x)

            strategy.run(replica_fn, args=(x,))
            """,
            note="other fit-like names",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                def later():
                    model.fit(x)
                return tf.reduce_sum(x)

            strategy.run(replica_fn, args=(x,))
            """,
            note="a nested def that is never called",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if not replica.proven_run_calls:
            return
        for call in ctx.index.calls:
            func = call.func
            if not isinstance(func, cst.Attribute) or func.attr.value not in _KERAS_LOOPS:
                continue
            if ctx.index.functions_by_name.get(func.attr.value):
                continue  # a method of that name is defined here: not (only) Keras'
            if ctx.tf.names.qualified(func.value) is not None:
                continue  # `np.fit`, `tf.keras.Model.fit`: a module attribute, not a model
            if not replica.in_proven_replica_context(call):
                continue
            ctx.report(
                func.attr,
                f"`{func.attr.value}` inside a replica function raises (it needs cross-replica context); call it "
                "outside `strategy.run`, or train with a GradientTape and `optimizer.apply_gradients`",
            )
