"""TFD304: gradients clipped on each replica before the optimizer sums them across replicas."""

from __future__ import annotations

import libcst as cst

from fixer.tf.pipelines import binding
from fixer.context import RuleContext
from fixer.prefilter import STRATEGY
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability

_CLIPS = frozenset(
    {"tensorflow.clip_by_global_norm", "tensorflow.clip_by_norm", "tensorflow.math.clip_by_norm", "keras.ops.clip_by_norm"}
)
_GRADIENTS = frozenset({"tensorflow.gradients"})
# Calls that hand their arguments' gradients through unchanged in kind.
_PASS_THROUGH = frozenset({"zip", "list", "tuple"})
_PASS_THROUGH_METHODS = frozenset({"get_unscaled_gradients"})  # a LossScaleOptimizer's unscaling
_COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp)


class GradientClippingBeforeAggregation(Rule):
    """
    ## What it does
    Inside a replica function (one passed to `strategy.run`, and what it calls), finds
    `tf.clip_by_global_norm` or `tf.clip_by_norm` applied to the gradients that `tape.gradient`
    (or `tf.gradients`) computed on that replica, when they are then given to an optimizer's
    `apply_gradients`, which sums them across replicas. The gradients are followed through
    names, comprehensions (`[tf.clip_by_norm(g, 5.0) for g in grads]`), `zip` and filtering;
    gradients that were all-reduced first (`get_replica_context().all_reduce(...)`) are not
    reported, nor are programs whose only strategy is `OneDeviceStrategy`, nor an
    `apply_gradients(..., skip_gradients_aggregation=True)` (tf-keras: the caller aggregates).

    Not reported (documented instead): `clip_by_value` (element-wise); the optimizer's own
    `clipnorm`/`global_clipnorm`, which Keras 3 also applies on each replica before summing
    while tf-keras applies it after (measured, see below); a Keras `Model.train_step` override
    that clips, which `fit` also runs on each replica, because whether `fit` runs under a
    strategy is not visible there.

    ## Why is this bad in distributed training?
    Each replica's gradient is only its share of the global batch's gradient (with the loss
    scaled to the global batch, the shares add up to it). Clipping each share to the threshold
    bounds every share, not the sum: the applied update can be up to N times the threshold, and
    its direction changes because each share is scaled by its own factor. Measured on
    TensorFlow 2.21 with 2 replicas on the ground truth's toy problem (gradient `[67, 80]`, norm
    104.35, shares `[8.5, 12]` and `[58.5, 68]`), SGD 0.01, threshold 10, one step from
    `[1, 1]`: clipping the whole gradient gives `[0.93579, 0.92334]`; clipping on each replica
    (`clip_by_global_norm` or `clip_by_norm`) then `apply_gradients` gives `[0.87698, 0.84259]`,
    a step 1.9 times longer, under Keras 3 and under tf-keras alike. The optimizer's
    `global_clipnorm=10` (or `clipnorm=10`) gives `[0.87698, 0.84259]` under Keras 3 (it clips
    in `apply` before `apply_gradients` all-reduces) and `[0.93579, 0.92334]` under tf-keras
    (which aggregates first). All-reducing the gradients (SUM), clipping, and dividing by
    `num_replicas_in_sync` before `apply_gradients` gives `[0.93579, 0.92334]` under both
    (`benchmarks/probe_gradient_clipping.py`, output in `docs/probes.md`).

    ## Fix safety
    Display-only: whether per-replica clipping was intended cannot be told from the code, and
    the remedy depends on the Keras in use. The message gives the form measured to match
    single-device clipping under both Keras 3 and tf-keras: `grads =
    tf.distribute.get_replica_context().all_reduce("sum", grads)`, clip, then divide each
    gradient by `num_replicas_in_sync` (Keras 3's `apply_gradients` sums the replicas' copies
    again and has no `skip_gradients_aggregation`); with tf-keras,
    `apply_gradients(..., skip_gradients_aggregation=True)` after the clip, or the optimizer's
    `global_clipnorm`, also work.

    ## Runtime evidence
    Not observable by `distfix validate` as a failure: replicas stay consistent with each other;
    the weights differ from single-device training only once clipping is active.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/clip_by_global_norm
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#all_reduce
    - https://keras.io/api/optimizers/#core-optimizer-api
    """

    code = "TFD304"
    name = "gradient-clipping-before-aggregation"
    message = "gradients are clipped on each replica before they are summed across replicas"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("clip_by_global_norm", "clip_by_norm")
    needs = (STRATEGY,)

    examples = (
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
            note="the optimizer's own global_clipnorm is documented, not reported",
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
    )

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.strategies.single_replica:
            return
        replica = ctx.tf.replica
        for call in ctx.index.calls:
            if ctx.tf.names.callee(call) not in _CLIPS or not call.args:
                continue
            if not replica.in_replica_context(call):
                continue
            if not _from_local_gradients(ctx, call.args[0].value, call):
                continue
            if not _applied_after(ctx, call):
                continue
            name = ctx.source(call.func)
            ctx.report(
                call,
                f"`{name}` clips this replica's share of the gradients before `apply_gradients` sums the shares, "
                "not the whole gradient; all-reduce, clip, then divide by the replica count",
            )


def _from_local_gradients(ctx: RuleContext, expr: cst.BaseExpression, at: cst.CSTNode, depth: int = 0) -> bool:
    """``expr`` holds gradients computed on this replica (``tape.gradient``, ``tf.gradients``) that
    were not all-reduced on the way: followed through names, comprehensions, ``zip`` and indexing."""
    if depth > 6:
        return False
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "gradient" and expr.args:
            return True
        if ctx.tf.names.callee(expr) in _GRADIENTS:
            return True
        through = isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _PASS_THROUGH_METHODS
        if through or (isinstance(expr.func, cst.Name) and expr.func.value in _PASS_THROUGH):
            return any(_from_local_gradients(ctx, arg.value, at, depth + 1) for arg in expr.args)
        return False
    if isinstance(expr, cst.Subscript):
        return _from_local_gradients(ctx, expr.value, at, depth + 1)
    if isinstance(expr, _COMPREHENSIONS):
        return _from_local_gradients(ctx, expr.for_in.iter, expr, depth + 1)
    if isinstance(expr, cst.Name):
        comprehension = _comprehension_binding(ctx, expr)
        if comprehension is not None:
            return _from_local_gradients(ctx, comprehension.iter, comprehension, depth + 1)
        bound = binding(ctx, expr.value, at)
        return bound is not None and _from_local_gradients(ctx, bound[0], bound[1], depth + 1)
    return False


def _comprehension_binding(ctx: RuleContext, name: cst.Name) -> cst.CompFor | None:
    """The ``for ... in`` clause of an enclosing comprehension whose target binds ``name``."""
    for ancestor in ctx.index.ancestors(name):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
            return None
        if isinstance(ancestor, _COMPREHENSIONS):
            clause: cst.CompFor | None = ancestor.for_in
            while clause is not None:
                if _binds(clause.target, name.value):
                    return clause
                clause = clause.inner_for_in
    return None


def _binds(target: cst.BaseExpression, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(element.value, name) for element in target.elements)
    return False


def _applied_after(ctx: RuleContext, clip: cst.Call) -> bool:
    """An optimizer's ``apply_gradients`` that aggregates runs in the clip's function after it (or
    takes the clip inline)."""
    func = ctx.index.enclosing_function(clip)
    for call in ctx.tf.replica.calls_in(func):
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "apply_gradients"):
            continue
        if not (ctx.index.before(clip, call) or ctx.index.is_within(clip, call)):
            continue
        if any(_skips_aggregation(arg) for arg in call.args):
            continue
        return True
    return False


def _skips_aggregation(arg: cst.Arg) -> bool:
    """``skip_gradients_aggregation=True`` or ``experimental_aggregate_gradients=False``."""
    if arg.keyword is None or not isinstance(arg.value, cst.Name):
        return False
    keyword, value = arg.keyword.value, arg.value.value
    return (keyword, value) in {("skip_gradients_aggregation", "True"), ("experimental_aggregate_gradients", "False")}
