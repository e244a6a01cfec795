"""TFD109: a Keras 3 optimizer with state first built inside a compiled distributed step."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import RUN_CALL
from fixer.fixes.optimizer_build import build_plan_edits
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.keras_flavour import keras_flavour, keras_module, legacy_keras
from fixer.tf.keras_target import keras_upgrade_prefix
from fixer.tf.names import dotted_name
from fixer.tf.optimizer_kinds import State
from fixer.tf.optimizers import (
    apply_calls,
    compiled_replica_functions,
    is_built,
    needs_ready,
    optimizer_creation,
    plan_build,
)
from fixer.tf.strategies import Membership
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

_KERAS3_UPDATES = frozenset({"apply_gradients", "apply"})  # Keras 3 optimizers have no `minimize`


class UnbuiltOptimizerInCompiledStep(Rule):
    """
    ## What it does
    Finds a Keras 3 optimizer with state created in `strategy.scope()` whose first
    `apply_gradients` (or `apply`) runs in a replica function that a `tf.function` step runs with
    `strategy.run`, under a strategy that can have more than one replica per process, and that is
    never built with `optimizer.build(...)` before.

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
    | LossScaleOptimizer around plain SGD | fails | runs | runs |

    With Adam: an eager `strategy.run` with 2 replicas runs, a compiled step with 1 replica runs,
    Keras 3's `optimizer.apply(grads, vars)` fails like `apply_gradients`, a model without `Input`
    fails unbuilt and runs after `model.build(input_shape)` and `optimizer.build(...)`; the same
    unbuilt model in a compiled step without any optimizer (forward pass only) runs.
    A `LossScaleOptimizer` keeps its own state (the loss scale and its step counter), so it fails
    even around plain SGD. `MultiWorkerMirroredStrategy` with 2 workers of one replica each (CPU)
    runs an unbuilt Adam.

    ## Fix safety
    Unsafe: `optimizer.build(model.trainable_variables)` is inserted right after the optimizer is
    created, in the scope (after the model's own statement when the model is created later in
    the same block). When the model has no weights yet (no `Input` layer, `input_shape=`,
    functional inputs, `build` or call before), `model.build((None, ...))` goes first, with the
    input shape the file writes down: the features of a `Dataset.from_tensor_slices` of literal
    tensors (`tf.random.normal((64, 784))`, `tf.constant([[...]])`) or the tensors given to the
    step, when the model is called on them unchanged (`model(x)`, not `model(x[0])`). A Keras
    model class of the file without its own `build()` is called on one batch of that shape
    instead (`model(tf.zeros((1, 784)))`): Keras 3's `model.build(shape)` creates no variables
    for it and the first step fails with `ValueError: Unknown variable`
    (benchmarks/probe_model_built_in_scope.py). When the shape is not written in the file (data
    loaded at run time) or the trained
    variables are not a model's `trainable_variables` or a list of variables, the finding says
    exactly what to add: building the optimizer on an empty variable list makes its first update
    fail. Building early creates the same variables, with the same initial values, that the
    first update would create.

    ## Known limits
    - Optimizers with state are Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, Nadam, Ftrl, Lion,
      Adafactor, Lamb, SGD with momentum, a `LossScaleOptimizer` whatever it wraps; plain SGD too
      when the model it trains has no weights before the step.
    - A strategy that can have more than one replica per process is `MirroredStrategy`, or a
      strategy the file does not construct. `MultiWorkerMirroredStrategy` with 2 workers of one
      replica each (CPU) runs an unbuilt Adam (measured, above): it is not reported.
    - Optimizer classes not in the table above (Muon, your own) are not reported.
    - Not reported: tf-keras (`TF_USE_LEGACY_KERAS=1` set in the file for `tf.keras`, or `import
      tf_keras`), a project that pins TensorFlow below 2.16 (Keras 2), a project that states no
      release whose code only Keras 2 accepts (an optimizer's `lr=`; a model only Keras 2 builds,
      `Input(shape=150)` or `tf.shape` of a symbolic Keras tensor, in the file or a project module
      it imports: Keras 3 stops where that model is built, `benchmarks/probe_ledger13a_premises.py`;
      docs/target.md), plain SGD on a model that has its weights, an optimizer created outside the
      scope (TFD101), and an eager `strategy.run` (TFD402).

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
    facts = (RUN_CALL,)

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if strategies.single_replica or _imports_tf_keras(ctx):
            return
        functions = compiled_replica_functions(ctx.tf)
        if not functions:
            return
        legacy = legacy_keras(ctx.tf)
        reported: set[int] = set()
        for call in apply_calls(ctx.tf, functions):
            method = cst.ensure_type(call.func, cst.Attribute)  # apply_calls keeps method calls only
            if method.attr.value not in _KERAS3_UPDATES:
                continue
            receiver = method.value
            creation = optimizer_creation(ctx.tf, receiver)
            if creation is None or id(creation.call) in reported or not needs_ready(ctx.tf, call, creation):
                continue
            if is_built(ctx.tf, receiver) or strategies.membership(creation.statement) is not Membership.INSIDE:
                continue
            if keras_flavour(keras_module(ctx.tf, creation.call.func), legacy, ctx.tf.target) != 3:
                continue
            reported.add(id(creation.call))
            plan = plan_build(ctx.tf, call, creation)
            what = (
                f"Keras 3 `{creation.class_name}` creates its variables"
                if creation.state is State.STATEFUL
                else f"Keras 3 `{creation.class_name}` and its model create their variables"
            )
            step = ctx.index.enclosing_function(call)
            assert step is not None  # apply_calls finds the calls inside the compiled functions
            message = keras_upgrade_prefix(ctx.tf, creation.call.func) + (
                f"{what} in the compiled step `{functions[step]}` (fails with several replicas); "
            )
            edits = build_plan_edits(ctx, plan)
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
        elif (
            node.module is not None
            and not node.relative
            and (dotted_name(node.module) or "").split(".")[0] == "tf_keras"
        ):
            return True
    return False
