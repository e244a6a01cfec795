"""TFD103: a training step called directly instead of through `strategy.run`."""

from __future__ import annotations

import libcst as cst

from codemods.reduction.loss_scaling import Scaling, classify, gradient_calls, loss_origin
from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.tf.reach import strategy_in_reach
from fixer.types import Applicability

_APPLIES = frozenset({"apply_gradients", "minimize"})
_KERAS_MODEL_BASES = frozenset({"keras.Model", "keras.models.Model"})


class TrainStepOutsideStrategyRun(Rule):
    """
    ## What it does
    Finds a training step — a function that calls `optimizer.apply_gradients` or `minimize` —
    called directly in a program that has a distribution strategy, instead of through
    `strategy.run(step, args=(...))` (Keras' own `train_step`, run by `fit`, is not reported).

    ## Why is this bad in distributed training?
    Measured on TensorFlow 2.21 with Keras 3: called inside `with strategy.scope():`, the step
    raises `ValueError: DistributedVariable.handle is not available outside the replica context
    or a tf.distribute.Strategy.update() call` (from `tape.gradient`). Called outside the scope it
    runs without error but on one device, on the whole batch: the other replicas sit idle and
    nothing is distributed.

    ## Fix safety
    Unsafe: `step(a, b)` becomes `strategy.run(step, args=(a, b))`. When the step's result is
    used, it is a per-replica value: the fix reduces it with `strategy.reduce(SUM, ..., axis=None)`
    when the step's loss is divided by the global batch and with `MEAN` when it is a per-replica
    mean; otherwise the finding says what to do. Feed the step a distributed dataset (TFD201).

    ## Runtime evidence
    `distfix validate` shows the original failing check `runs` (the `ValueError` above) when the
    step is called inside the scope, and the fixed script training on every replica.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#run
    - https://www.tensorflow.org/tutorials/distribute/custom_training
    """

    code = "TFD103"
    name = "train-step-outside-strategy-run"
    message = "training step called directly instead of through `strategy.run`"
    fix_title = "Call the step through `strategy.run`"
    applicability = Applicability.UNSAFE
    triggers = ("apply_gradients", "minimize(")

    examples = (
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()

                def train_step(data, labels):
                    with tf.GradientTape() as tape:
                        loss = tf.nn.compute_average_loss(tf.square(model(data) - labels))
                    gradients = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
                    return loss

                for data, labels in dataset:
                    loss = train_step(data, labels)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
                optimizer = tf.keras.optimizers.Adam()

                def train_step(data, labels):
                    with tf.GradientTape() as tape:
                        loss = tf.nn.compute_average_loss(tf.square(model(data) - labels))
                    gradients = tape.gradient(loss, model.trainable_variables)
                    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
                    return loss

                for data, labels in dataset:
                    loss = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(train_step, args=(data, labels)), axis=None)
            """,
            note="seed 004 step called inside the scope",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for x, y in batches:
                print(step(x, y))
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            for x, y in batches:
                print(strategy.reduce(tf.distribute.ReduceOp.MEAN, strategy.run(step, args=(x, y)), axis=None))
            """,
            note="per-replica mean loss reduced with MEAN",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                optimizer.minimize(lambda: loss_fn(x), model.trainable_variables)

            for x in batches:
                step(x)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                optimizer.minimize(lambda: loss_fn(x), model.trainable_variables)

            for x in batches:
                strategy.run(step, args=(x,))
            """,
            note="minimize, result unused",
        ),
        Invalid(
            """
            from tensorflow.distribute import MirroredStrategy as Mirrored
            import tensorflow as tf

            strategy = Mirrored()

            @tf.function
            def train_step(x, training=True):
                with tf.GradientTape() as tape:
                    loss = custom_loss(model(x, training=training))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

            train_step(batch, training=True)
            """,
            after="""
            from tensorflow.distribute import MirroredStrategy as Mirrored
            import tensorflow as tf

            strategy = Mirrored()

            @tf.function
            def train_step(x, training=True):
                with tf.GradientTape() as tape:
                    loss = custom_loss(model(x, training=training))
                optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

            strategy.run(train_step, args=(batch,), kwargs={"training": True})
            """,
            note="keyword arguments",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                with tf.GradientTape() as tape:
                    loss = my_loss(x)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            history = [step(x) for x in batches]
            """,
            after=None,
            note="result used and loss scaling unknown: advice",
        ),
        Invalid(
            """
            import tensorflow as tf


            class Trainer:
                def __init__(self):
                    self.strategy = tf.distribute.MirroredStrategy()

                def train_step(self, x):
                    with tf.GradientTape() as tape:
                        loss = self.loss(x)
                    self.optimizer.apply_gradients(zip(tape.gradient(loss, self.weights), self.weights))

                def fit(self, batches):
                    for x in batches:
                        self.train_step(x)
            """,
            after=None,
            note="method call: advice",
        ),
        Invalid(
            """
            import tensorflow as tf

            def train(strategy, batches):
                def step(x):
                    with tf.GradientTape() as tape:
                        loss = tf.nn.compute_average_loss(model(x))
                    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

                with strategy.scope():
                    for x in batches:
                        step(x)
            """,
            after="""
            import tensorflow as tf

            def train(strategy, batches):
                def step(x):
                    with tf.GradientTape() as tape:
                        loss = tf.nn.compute_average_loss(model(x))
                    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))

                with strategy.scope():
                    for x in batches:
                        strategy.run(step, args=(x,))
            """,
            note="strategy parameter",
        ),
        Invalid(
            """
            import tensorflow as tf

            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()

            def step(x):
                optimizer.apply_gradients(compute(x))

            step(x)
            """,
            after="""
            import tensorflow as tf

            strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()

            def step(x):
                optimizer.apply_gradients(compute(x))

            strategy.run(step, args=(x,))
            """,
            note="multi-worker",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                optimizer.apply_gradients(compute(x))

            @tf.function
            def distributed_step(x):
                return strategy.run(step, args=(x,))
            """,
            note="through strategy.run",
        ),
        Valid(
            """
            import tensorflow as tf

            def step(x):
                optimizer.apply_gradients(compute(x))

            for x in batches:
                step(x)
            """,
            note="no strategy",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            class Net(tf.keras.Model):
                def train_step(self, data):
                    x, y = data
                    with tf.GradientTape() as tape:
                        loss = self.compute_loss(y=y, y_pred=self(x))
                    self.optimizer.apply_gradients(zip(tape.gradient(loss, self.trainable_variables), self.trainable_variables))
                    return {"loss": loss}
            """,
            note="Keras train_step override",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def replica_fn(x):
                return helper_step(x)

            def helper_step(x):
                optimizer.apply_gradients(compute(x))

            strategy.run(replica_fn, args=(x,))
            """,
            note="helper called from the replica fn",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                per_replica = strategy.run(inner, args=(x,))
                optimizer.apply_gradients(per_replica)

            step(x)
            """,
            note="a step that calls strategy.run itself",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                optimizer.apply_gradients(compute(x))

            step(x)  # distfix: ignore[TFD103]
            """,
            note="suppressed",
        ),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()

            def step(x):
                optimizer.apply_gradients(compute(x))

            distributed = functools.partial(strategy.run, step)
            """,
            note="passed as a value not called",
        ),
        Valid(
            """
            import tensorflow as tf

            def make_strategy():
                return tf.distribute.MirroredStrategy()

            def warm_start(x):
                local_optimizer.apply_gradients(compute(x))

            warm_start(x)
            """,
            note="strategy factory never called",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if not strategies.strategy_keys and not strategies.scope_blocks:
            return  # no strategy in play (e.g. only an uncalled factory)
        replica = ctx.tf.replica
        steps = {id(f) for f in replica.steps()}
        for func in ctx.index.functions:
            if func in replica.replica_functions or id(func) in steps or self._keras_train_step(ctx, func):
                continue
            if not any(
                isinstance(c.func, cst.Attribute) and c.func.attr.value in _APPLIES for c in replica.calls_in(func)
            ):
                continue
            for site in strategies.call_sites(func):
                if replica.in_replica_context(site) or ctx.index.enclosing_function(site) is func:
                    continue
                self._report(ctx, func, site)

    def _keras_train_step(self, ctx: RuleContext, func: cst.FunctionDef) -> bool:
        owner = ctx.index.method_class(func)
        return owner is not None and any(
            ctx.tf.names.qualified(base.value) in _KERAS_MODEL_BASES for base in owner.bases
        )

    def _report(self, ctx: RuleContext, func: cst.FunctionDef, site: cst.Call) -> None:
        strategy = strategy_in_reach(ctx, ctx.index.statement_of(site))
        message = (
            f"`{func.name.value}` applies gradients but is called directly: inside the scope this raises "
            "`DistributedVariable.handle is not available outside the replica context`, outside it trains on "
            "one device"
        )
        if strategy is None or not isinstance(site.func, cst.Name) or any(a.star for a in site.args):
            ctx.report(site, message + "; call it through `strategy.run(step, args=(...))`")
            return
        positional = [ctx.source(a.value) for a in site.args if a.keyword is None]
        keywords = [f'"{a.keyword.value}": {ctx.source(a.value)}' for a in site.args if a.keyword is not None]
        args = f"({', '.join(positional)}{',' if len(positional) == 1 else ''})"
        call = f"{strategy}.run({func.name.value}, args={args}"
        call += f", kwargs={{{', '.join(keywords)}}})" if keywords else ")"
        parent = ctx.index.parent.get(site)
        if isinstance(parent, cst.Expr):
            ctx.report(site, message + "; run it through `strategy.run`", edits=[ctx.replace(site, call)])
            return
        op = self._reduce_op(ctx, func)
        if op is None:
            ctx.report(
                site,
                message + "; call it through `strategy.run` and reduce what it returns with `strategy.reduce` "
                "(SUM for a loss divided by the global batch, MEAN for a per-replica mean)",
            )
            return
        tf, imports = ctx.import_module("tensorflow", "tf")
        reduced = f"{strategy}.reduce({tf}.distribute.ReduceOp.{op}, {call}, axis=None)"
        ctx.report(site, message + f"; run it through `strategy.run` and reduce its result with {op}", edits=[*imports, ctx.replace(site, reduced)])

    def _reduce_op(self, ctx: RuleContext, func: cst.FunctionDef) -> str | None:
        for gradient in gradient_calls(ctx, func):
            scaling = classify(ctx, *loss_origin(ctx, func, gradient))
            return {Scaling.GLOBAL: "SUM", Scaling.MEAN: "MEAN"}.get(scaling)
        return None
