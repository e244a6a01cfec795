"""TFD106: Keras `fit`/`evaluate`/`predict`/`*_on_batch` called inside a replica function."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import RUN_CALL
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.known_models import known_keras_model
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

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

    ## Known limits
    - Only the function given to `strategy.run` and the helpers it calls in the same module are
      searched: a helper of another module is not followed.
    - `predict` is reported only on an object the module shows to be a Keras model (built by a
      Keras constructor or loader, a Keras model class of the file or a project function that
      returns one, or a parameter annotated as one or given one by every call of its function):
      other classes, such as a detection model
      that subclasses a Keras `Layer`, name their own forward pass `predict`.

    ## Runtime evidence
    `distfix validate` shows the `runs` check failing with the error above.

    Measured on TensorFlow 2.21 with 2 replicas (`benchmarks/probe_replica_function_calls.py`,
    output in `docs/probes.md`): the Keras 3 errors above, eagerly and in a `tf.function`;
    tf-keras raises the cross-replica `RuntimeError` eagerly and, inside a `tf.function` step,
    `RuntimeError: Detected a call to Model.fit inside a tf.function` (the same for the other
    four methods): every variant raises.

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
    facts = (RUN_CALL,)

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
            if func.attr.value == "predict" and not known_keras_model(ctx.tf, func.value):
                continue  # many other classes call their forward pass `predict`
            if not replica.in_proven_replica_context(call):
                continue
            ctx.report(
                func.attr,
                f"`{func.attr.value}` inside a replica function raises (it needs cross-replica context); call it "
                "outside `strategy.run`, or train with a GradientTape and `optimizer.apply_gradients`",
            )
