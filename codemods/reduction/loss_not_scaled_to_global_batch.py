"""TFD303: a custom loop's loss is a per-replica mean (or a per-example vector divided by the replicas)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

import libcst as cst

from fixer.facts import RUN_OR_STEP
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.test_files import assertion_free_test, compares_only, enclosing_test, is_test_file
from fixer.tf.bindings import assigned_values
from fixer.tf.calls import argument_value
from fixer.tf.default_strategy import runs_only_on_default_strategy
from fixer.tf.loss_scaling import (
    Scaling,
    classify,
    gradient_calls,
    gradient_passed_through,
    is_regularization,
    last_assignment,
    loss_call,
    loss_origin,
    mentions_replicas,
    only_reduce_means,
    sum_terms,
)
from fixer.tf.names import dotted_name
from fixer.tf.one_device_gradients import mean_reduced_by_hand
from fixer.tf.optimizers import optimizer_creation
from fixer.tf.passed_optimizer import passed_optimizer_class
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from collections.abc import Iterator

    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_APPLIES = frozenset({"apply_gradients", "minimize"})


class LossNotScaledToGlobalBatch(Rule):
    """
    ## What it does
    In a replica function whose gradients are summed across replicas, finds a loss given to
    `tape.gradient` that is a per-replica mean (`tf.reduce_mean`, or a sum of such terms, plus
    unscaled `model.losses`) or a per-example vector (`tf.keras.losses.mse(...)`, a loss object
    built with `reduction="none"`) divided by `num_replicas_in_sync`, directly or through a helper.

    ## Why is this bad in distributed training?
    Gradients are summed across replicas (Keras 3 `apply_gradients` sums them; so does an
    all-reduce with `SUM`). A per-replica mean therefore gives N-times larger gradients with N
    replicas — measured on TensorFlow 2.21: gradient `[134, 160]` instead of `[67, 80]` with 2
    replicas, `[268, 320]` with 4 — and reporting the loss with `strategy.reduce(SUM, ...)`
    shows it N times too large. What that does to training depends on the optimizer, and the
    message names it when one constructor binds the optimizer: SGD (with or without momentum)
    takes different, larger steps, while Adam and RMSprop normalise the gradient's scale and end
    with identical weights and report exactly twice the loss with 2 replicas
    (`benchmarks/probe_loss_scaling_optimizers.py`, Keras 3 and tf-keras). Fixing only the
    reported number hides the bug. A per-example vector divided by `num_replicas_in_sync` has
    the global batch's sum over N as its summed gradient: its scale depends on the replica count,
    and N replicas take SGD steps N times smaller than one device with the same global batch
    (`benchmarks/probe_prec19c_premises.py`, Keras 3 and tf-keras).

    ## Fix safety
    Unsafe (it changes the numbers, on purpose). A `tf.reduce_mean(x)` loss becomes
    `tf.reduce_mean(x) / tf.distribute.get_replica_context().num_replicas_in_sync`, which is
    exactly the single-device mean for equal replica batches whatever the rank of `x` (a sum of
    such means is divided as a whole, after its closing parenthesis when it has one); unscaled
    regularization added to it (`tf.add_n(model.losses)`) is wrapped in
    `tf.nn.scale_regularization_loss(...)` instead, which divides it by the replicas too. A
    per-example vector divided by `num_replicas_in_sync` is averaged over the global batch with
    `tf.nn.compute_average_loss(...)` instead of being divided (in a helper also used outside
    training, or not divided as a whole, it gets advice); a sum divided by the replicas gets advice (which tensor is
    per-example is not known). A helper is edited where it returns
    the loss when every call of it is in a training replica function; a helper also used
    elsewhere (evaluation, cross-replica code, where `get_replica_context()` may be None) keeps
    its meaning, and the loss is scaled where the training step calls it. A mean the fix cannot
    rewrite is explained instead, and so is a loss, mean or per-example vector, whose value the
    step also reads elsewhere (a metric update, a print) or returns to a caller that reads it other
    than by `strategy.reduce`: dividing it where it is computed would make that reading N times
    (a vector's: per-replica-batch times) too small, so only the value given to `tape.gradient` should
    be scaled (measured: a `keras.metrics.Sum` updated with the rewritten loss and read as
    Sum / (global batch x steps) showed 3.188 instead of 25.5 with a global batch of 8, while
    averaging only the gradient's loss kept 25.5 and gave the same gradient,
    `benchmarks/probe_prec18c_premises.py`). The same advice, no edit,
    for a returned loss when the module MEAN-reduces something the rule cannot tie to the step's
    run (a log helper): a MEAN of the divided losses would show the loss N times too small; and
    for a returned loss whose `strategy.run` result the caller reads other than by
    `strategy.reduce` (accumulated into an epoch loss, printed): that reading would shrink too. A loss
    returned alone or as one element of a tuple (`return loss, accuracy`) is followed to the
    `strategy.reduce` of what `strategy.run` gave back, also through the unpacking that binds it
    (`losses, accuracies = strategy.run(...)`, every binding reaching the reduce being that element):
    the fix turns that reduce's MEAN into SUM, which shows the global mean of the divided losses. The
    message says the reported loss is N times too large only where the returns are reduced with SUM.

    ## Known limits
    - Gradients are summed when the function calls `apply_gradients` or `minimize`, Keras 3's
      `optimizer.apply(grads, variables)` on the gradients it computed, or all-reduces them with
      SUM; a Keras model's `train_step` override counts when the file builds or compiles the model
      in a strategy scope, since `fit` runs it on every replica.
    - A helper is a function, a method called on `self`, a lambda bound to a name, or the inner
      function a local factory returns (`compute_loss = make_loss()`, also through
      `tf.function(...)`/`functools.partial`) whose one `return` gives the loss, also when the
      helper's result is summed with other terms (`get_loss(y, p) + sum(model.losses) +
      AUX_WEIGHT * aux`, a weight being a number or a module-level name bound to one).
    - A loss accumulated from zero by one `loss += term` (in a loop) is reported at the term, which
      the fix divides; several `+=` of the same loss are not followed.
    - A loss passed through `tf.grad_pass_through(f)(loss)` is reported: whatever `f` does to the
      value (a division by `num_replicas_in_sync`), the gradient is the loss's own (measured on
      TensorFlow 2.21 with 2 replicas: the value was halved, the summed gradient stayed 5.0 where
      dividing the loss gave 2.5, `benchmarks/probe_grad_pass_through.py`); that finding is advice:
      scale outside it.
    - Not followed: a factory of another module, one stored in an attribute, or a loss object's
      wrapper (`optimizer.get_scaled_loss(loss)`).
    - A `tf.reduce_sum(...)` divided by `num_replicas_in_sync` alone is reported (the batch size is
      missing); a `tf.reduce_sum(...)` divided by anything else but a count taken on the replica is
      taken as divided by the global batch (not checked).
    - Not reported: gradients MEAN-reduced by hand before `apply_gradients` (`ctx.merge_call(...)`
      reducing with MEAN, `ctx.all_reduce(MEAN, grads)`): Keras 3 SGD then takes the one-device
      step with two replicas (tf-keras raises in its own all-reduce, which no loss scaling cures):
      `benchmarks/probe_ledger12b_premises.py`.
    - Not reported: an unreduced per-example vector, in a custom loop or a `train_step` that `fit`
      runs, whatever the optimizer and however its value is read. Its gradient is the sum over the
      batch; each replica sums its share and the replicas' sums add up to the global batch's sum,
      exactly what the same code computes on one device with the global batch (one step gives the
      one-device weights, SGD and Adam, Keras 3 and tf-keras: `benchmarks/probe_ledger12a_premises.py`,
      `benchmarks/probe_prec19c_premises.py`). That is the program's choice of loss scale, not a
      distribution mistake: across the ecosystem ledger's history no such finding was a true
      positive. Only a vector divided by `num_replicas_in_sync` is reported (N times too small).
    - Not reported: a mean loss whose gradients are all-reduced with MEAN (that is the
      single-device gradient), a manual update without any aggregation (TFD301's finding; its fix
      picks MEAN for a mean loss), programs whose only strategy is `OneDeviceStrategy`, a test
      function of a test file (`*_test.py`, `test_*.py`) that asserts nothing, directly or through
      a helper of the module (a smoke test that the loop runs: the loss's scale cannot change its
      outcome), or whose assertions all compare two computed values while its two or more steps
      have losses of one kind (two models trained alike: the scale moves both sides).
    - Not reported: a per-replica mean applied by Adam, AdamW, Adamax or RMSprop (one
      constructor, `tf.optimizers.X` being `tf.keras.optimizers.X`, no clipping) whose value is
      read only by a `return` that a `strategy.reduce(MEAN, ...)` reduces, by a
      `keras.metrics.Mean` update, or by nothing: those optimizers ended with the same weights,
      and the MEAN report and the metric show the global mean (measured, Keras 3 and tf-keras,
      `benchmarks/probe_loss_scaling_optimizers.py`), so nothing a user sees differs. Adagrad is
      not scale-free (its initial accumulator) and Keras 3 clipping (`clipnorm`,
      `global_clipnorm`) clips the N-times gradient differently (measured): both reported. A
      trainer class constructed with `optimizer=None` (to restore) does not count; one this
      module never constructs takes the optimizer the project's other files construct it with.
    - Not reported: a step that a test file runs only on a `tf.distribute.get_strategy()` its class
      keeps, when the file builds no strategy and enters no scope: that is the default strategy (one
      replica). In other files the caller may enter a scope first, so it is reported. A
      `tf.distribute.get_strategy()` at module level outside every `with` is the default strategy
      in any file, also when `tf` comes from a star-imported utility script (a Kaggle notebook's
      `from tweet_utility_scripts import *`, the module binding no `tf` of its own); a name that a
      multi-replica strategy may also bind (the TPU-or-default picker) stays reported.
    - Not reported: a Keras 3 loss object with its default reduction: in a replica context it
      already divides by the number of replicas (measured on TensorFlow 2.21, 2 replicas:
      `MeanSquaredError()` returned `[1.25, 6.25]` where `tf.reduce_mean` returned `[2.5, 12.5]`).
    - In a `train_step` override, the compiled loss (`self.compute_loss(...)`,
      `self.compiled_loss(...)`) is scaled by Keras and not reported (measured: the same weights
      with 1 and 2 replicas, Keras 3 and tf-keras), while a `tf.reduce_mean` loss there moved the
      weights twice as far with 2 replicas.

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
    triggers = (".run(", "experimental_run_v2", "call_for_each_replica", "train_step")
    needs = (STRATEGY,)
    facts = (RUN_OR_STEP,)

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if ctx.tf.strategies.single_replica:
            return  # OneDeviceStrategy: the per-replica mean is the global mean
        reported: set[int] = set()
        smoke_test = is_test_file(ctx.path, ctx.module)
        for func in replica.replica_functions:
            if runs_only_on_default_strategy(ctx.tf, ctx.path, func):
                continue  # the default strategy has one replica: nothing is summed
            for gradient in gradient_calls(ctx.tf, func):
                if not self._summed(ctx, func, gradient):
                    continue
                origin, holder = loss_origin(ctx.tf, func, gradient)
                if origin is None or id(origin) in reported:
                    continue
                scaling = classify(ctx.tf, origin, holder)
                if scaling in (Scaling.GLOBAL, Scaling.UNKNOWN):
                    continue
                if mean_reduced_by_hand(ctx.tf, func, gradient):
                    continue  # averaged before it is applied: the one-device step
                if scaling is Scaling.PER_EXAMPLE and not mentions_replicas(origin):
                    continue  # the replicas' batch sums add up to the one-device code's: a loss scale, not a bug
                if smoke_test and assertion_free_test(ctx.index, origin):
                    continue  # a test that asserts nothing only checks the loop runs: its scale cannot matter
                if smoke_test and _compares_steps_scaled_alike(ctx, func, scaling):
                    continue  # both sides of every comparison move by the same scale
                if scaling is Scaling.MEAN and _nothing_visible_changes(ctx, func, gradient):
                    continue
                reported.add(id(origin))
                reduces = _reported_loss_reduces(ctx, func, gradient, scaling)
                self._report(ctx, func, gradient, origin, holder, scaling, reduces)

    def _summed(self, ctx: RuleContext, func: FunctionLike, gradient: cst.Call) -> bool:
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
        if any(_applies_gradients(ctx, c) for c in calls):
            return True
        for call in calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "all_reduce" and call.args:
                if "SUM" in ctx.source(call.args[0].value).upper():
                    return True
        return False

    def _report(
        self,
        ctx: RuleContext,
        func: FunctionLike,
        gradient: cst.Call,
        origin: cst.BaseExpression,
        holder: FunctionLike,
        scaling: Scaling,
        reduces: list[Edit],
    ) -> None:
        if gradient_passed_through(ctx.tf, origin) is not None:
            ctx.report(
                origin,
                f"`tf.grad_pass_through` changes the loss's value, not its gradient, which stays {scaling.value}'s "
                "and is summed across replicas; scale the loss outside it",
            )
            return
        tf, imports = ctx.import_module("tensorflow", "tf")
        divide = f" / {tf}.distribute.get_replica_context().num_replicas_in_sync"
        # A helper also used outside training (evaluation, cross-replica code) keeps its meaning:
        # the loss is then scaled where the training step calls it.
        call = loss_call(ctx.tf, func, gradient) if holder is not func else None
        at_call = call is not None and not _only_trains(ctx, holder)
        shared = _other_use(ctx, func, gradient)
        if scaling is Scaling.MEAN and shared is not None:
            # Dividing where the loss is computed would also divide what the metric or log reads.
            effect = _step_effect(_optimizer_class(ctx, func), _clips(ctx, func))
            ctx.report(
                origin,
                f"the loss is a per-replica mean, but gradients are summed across replicas{effect}; it also feeds "
                f"`{shared}`: divide only the value given to `tape.gradient` by the number of replicas",
            )
        elif scaling is Scaling.MEAN and only_reduce_means(ctx.tf, origin, holder):
            report = _loss_report(ctx, func, gradient)
            message = _mean_message(_optimizer_class(ctx, func), _clips(ctx, func), report)
            reader = None if report == "unfollowed" else _returned_loss_reader(ctx, func, gradient)
            if report == "unfollowed" or reader is not None:
                # Dividing the loss would also divide what the caller reads (a MEAN of it for a log
                # would become N times too small, an accumulated epoch loss too): only the value
                # given to `tape.gradient` changes.
                returned = f"it is also returned to `{reader}`" if reader else "it is also returned"
                message = message.replace("; divide by", f"; {returned}: divide only the gradient's loss by")
                ctx.report(origin, message)
                return
            if at_call and call is not None:
                edit = ctx.insert_after(call, divide)
            else:
                edit = _divided(ctx, origin, divide, tf)
            ctx.report(origin, message, edits=[*imports, edit, *reduces])
        elif scaling is Scaling.REPLICA_SUM:
            ctx.report(
                origin,
                "the loss is the replica's sum divided by `num_replicas_in_sync`: the batch size is missing from "
                "the divisor, so the step grows with the per-replica batch; average the per-example losses over "
                "the global batch with `tf.nn.compute_average_loss(per_example_loss)` (or divide the sum by the "
                "global batch size)",
            )
        elif scaling is Scaling.PER_EXAMPLE:
            # Only a vector divided by `num_replicas_in_sync` gets here: its summed gradient is the
            # global batch's sum over N, so the step shrinks as replicas are added
            # (benchmarks/probe_prec19c_premises.py).
            reader = shared or _returned_loss_reader(ctx, func, gradient)
            if reader is not None:
                # Averaging it where it is computed would also shrink what the metric update, the
                # print or the caller reads (benchmarks/probe_prec18c_premises.py).
                ctx.report(
                    origin,
                    "the loss is a per-example vector divided by `num_replicas_in_sync` (its gradient shrinks with the "
                    f"replicas) and feeds `{reader}`: average only what `tape.gradient` gets "
                    "(`tf.nn.compute_average_loss`)",
                )
                return
            message = (
                "the loss is a per-example vector divided by `num_replicas_in_sync`: its gradient, the batch's sum "
                "over N, shrinks with the replicas; average it with `tf.nn.compute_average_loss` instead"
            )
            if at_call or not _divided_by_replicas(origin):
                ctx.report(origin, message)
            else:
                # The vector itself is averaged, or the loss would be divided by the replicas twice.
                replacement = f"{tf}.nn.compute_average_loss({ctx.source(origin.left)})"
                ctx.report(origin, message, edits=[*imports, ctx.replace(origin, replacement), *reduces])
        else:
            ctx.report(
                origin,
                "the loss is a per-replica mean, but gradients are summed across replicas: divide it by "
                "`num_replicas_in_sync`, or average per-example losses with `tf.nn.compute_average_loss`",
            )


# What a per-replica mean loss does with gradients summed over N replicas, by optimizer class
# (benchmarks/probe_loss_scaling_optimizers.py, TF 2.21, Keras 3 and tf-keras, 2 replicas, 5 steps):
# Adam, AdamW, Adamax and RMSprop normalise the gradient's scale, so their weights came out
# identical and their SUM-reported loss exactly doubled (a MEAN report equal to the scaled one);
# SGD (with or without momentum) and Adagrad moved the weights differently. Nadam matched on Keras 3
# but gave NaN on tf-keras in this probe, so it is not counted.
_SCALE_FREE = frozenset({"Adam", "AdamW", "Adamax", "RMSprop"})
_PLAIN_STEP = frozenset({"SGD"})


def _mean_message(optimizer: str | None, clips: bool, report: str | None) -> str:
    """The TFD303 message for a per-replica mean loss, said for the optimizer that applies it.

    The reported loss is N times too large only when the replicas' returns are reduced with SUM:
    a MEAN of per-replica means is the global mean (benchmarks/probe_loss_scaling_optimizers.py).
    """
    start = "the loss is a per-replica mean, but gradients are summed across replicas"
    fix = "divide by the number of replicas"
    if optimizer in _SCALE_FREE and clips:
        return f"{start}: clipping sees N-times gradients, so {optimizer} steps differ from one device's; {fix}"
    if optimizer in _SCALE_FREE:
        shown = "the reported loss is" if report == "sum" else "a SUM of the returned loss would be"
        return f"{start}: {optimizer} normalises their scale (same steps), but {shown} N times too large; {fix}"
    if optimizer in _PLAIN_STEP:
        return f"{start}: {optimizer} takes steps N times too large with N replicas; {fix}"
    if report == "sum":
        return (
            f"{start}: gradients and reported loss are N times too large (SGD steps too; Adam/RMSprop steps not); {fix}"
        )
    return f"{start}: gradients are N times too large (SGD steps too; Adam/RMSprop steps not); {fix}"


def _loss_report(ctx: RuleContext, func: FunctionLike, gradient: cst.Call) -> str | None:
    """How the replicas' returned loss is reduced: "sum" or "mean" (every reduce found), "unfollowed"
    (returned, and the module MEAN-reduces something this rule cannot tie to the step's run: perhaps
    the loss, for a log), None (not returned, reduced both ways, or no MEAN reduce at all)."""
    loss = gradient.args[0].value
    reduces = _loss_reduces(ctx, func, loss) if isinstance(loss, cst.Name) else None
    if reduces is None:
        return None
    ops = {"MEAN" if _is_mean(ctx, r) else "SUM" for r in reduces}
    if not ops:
        return "unfollowed" if any(_is_mean(ctx, r) for r in ctx.tf.replica.strategy_reduces) else None
    return ops.pop().lower() if len(ops) == 1 else None


def _is_mean(ctx: RuleContext, reduce: cst.Call) -> bool:
    return "MEAN" in ctx.source(reduce.args[0].value).upper()


def _compares_steps_scaled_alike(ctx: RuleContext, func: FunctionLike, scaling: Scaling) -> bool:
    """``func`` is one of two or more replica functions of one test function whose losses are all
    of kind ``scaling``, and every assertion of that test compares two computed values (two models
    trained by those steps): the scale moves both sides alike, so it cannot change the outcome."""
    test = enclosing_test(ctx.index, func)
    if test is None or not compares_only(ctx.index, test):
        return False
    steps = 0
    for other in ctx.tf.replica.replica_functions:
        if enclosing_test(ctx.index, other) is not test:
            continue
        for gradient in gradient_calls(ctx.tf, other):
            origin, holder = loss_origin(ctx.tf, other, gradient)
            if origin is None or classify(ctx.tf, origin, holder) is not scaling:
                return False
            steps += 1
    return steps >= 2


def _step_effect(optimizer: str | None, clips: bool) -> str:
    """What the N-times gradients do to the steps, in parentheses, when the optimizer is known
    to change them (benchmarks/probe_loss_scaling_optimizers.py); empty otherwise."""
    if clips:
        return " (N-times gradients clipped)"
    if optimizer in _PLAIN_STEP:
        return f" ({optimizer}: N-times steps)"
    return ""


def _nothing_visible_changes(ctx: RuleContext, func: FunctionLike, gradient: cst.Call) -> bool:
    """A scale-free optimizer applies the N-times gradients (the same steps) and every reading of
    the loss shows the global mean, so nothing a user sees differs.

    The readings allowed: a `return` whose `strategy.reduce` is MEAN (a MEAN of per-replica means
    is the global mean), and a `keras.metrics.Mean` updated with the loss on each replica (it
    averages the replicas' values: measured equal to the global mean, while the scaled loss made
    it N times too small). A loss read nowhere else is not reported at all. Clipping by norm or
    value breaks the invariance (a clipped N-times gradient is not N times the clipped one), so a
    step that clips, or an optimizer built with `clipnorm`/`clipvalue`/`global_clipnorm`, is
    still reported.
    """
    if _optimizer_class(ctx, func) not in _SCALE_FREE or _clips(ctx, func):
        return False
    loss = gradient.args[0].value
    if not isinstance(loss, cst.Name):
        return False
    reduces = _loss_reduces(ctx, func, loss)
    if reduces is not None and (not reduces or not all(_is_mean(ctx, r) for r in reduces)):
        return False  # summed (N times too large), or handed on where it is not followed
    return all(_updates_a_mean_metric(ctx, read) for read in _other_reads(ctx, func, loss))


# The slot of a loss that a replica function returns as its whole value (not in a tuple).
_WHOLE = -1


def _returned_slot(ctx: RuleContext, func: FunctionLike, loss: cst.Name) -> int | None:
    """How ``func`` returns the loss name as it is: :data:`_WHOLE` when a `return` gives it alone,
    else its position in the tuples the returns give (``return loss, accuracy``: 0), the same in
    every one; None when no return gives it as it is."""
    slots: set[int] = set()
    for statement in ctx.index.in_function("returns", func):
        value = statement.value
        if isinstance(value, cst.Name) and value.value == loss.value:
            return _WHOLE
        if isinstance(value, cst.Tuple) and not any(isinstance(e, cst.StarredElement) for e in value.elements):
            slots.update(
                i for i, e in enumerate(value.elements) if isinstance(e.value, cst.Name) and e.value.value == loss.value
            )
    return slots.pop() if len(slots) == 1 else None


def _loss_reduces(ctx: RuleContext, func: FunctionLike, loss: cst.Name) -> list[cst.Call] | None:
    """The `strategy.reduce` calls of the loss ``func`` returns (alone, or as one element of a
    tuple that the caller unpacks); None when ``func`` does not return the loss as it is."""
    slot = _returned_slot(ctx, func, loss)
    if slot is None:
        return None
    if slot == _WHOLE:
        return _reduces_of_runs(ctx, func)
    return _reduces_of_slot(ctx, func, slot)


def _updates_a_mean_metric(ctx: RuleContext, read: cst.Name) -> bool:
    """``read`` is the value given to a `keras.metrics.Mean` (``train_loss(loss)``,
    ``train_loss.update_state(loss)``), the metric being bound only to that constructor."""
    call = _calling(ctx, read)
    if call is None or not call.args or call.args[0].value is not read:
        return False
    metric = call.func
    if isinstance(metric, cst.Attribute) and metric.attr.value == "update_state":
        metric = metric.value
    values = assigned_values(ctx.index, dotted_name(metric))
    return bool(values) and all(
        isinstance(v, cst.Call) and (ctx.tf.names.callee(v) or "").endswith(_MEAN_METRIC) for v in values
    )


_MEAN_METRIC = "keras.metrics.Mean"


def _clips(ctx: RuleContext, func: FunctionLike) -> bool:
    """The step clips gradients, or its optimizer is built to clip them."""
    for call in ctx.tf.replica.calls_in(func):
        callee = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")
        if isinstance(callee, str) and callee.startswith("clip_by"):
            return True
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _APPLIES:
            creation = optimizer_creation(ctx.tf, call.func.value)
            keywords = {a.keyword.value for a in creation.call.args if a.keyword} if creation is not None else set()
            if keywords & _CLIPPING:
                return True
    return False


_CLIPPING = frozenset({"clipnorm", "clipvalue", "global_clipnorm"})


def _other_use(ctx: RuleContext, func: FunctionLike, gradient: cst.Call) -> str | None:
    """Where else ``func`` reads the loss value that ``gradient`` differentiates (a metric update,
    a print, a summary), as the called name; None when only `tape.gradient` (and a `return`,
    whose reduction the fix adjusts) reads it."""
    loss = gradient.args[0].value
    if not isinstance(loss, cst.Name):
        return None
    for name in _other_reads(ctx, func, loss):
        parent = ctx.index.parent.get(name)
        user = _calling(ctx, name)
        return ctx.source(user.func)[:40] if user is not None else ctx.source(parent)[:40] if parent else loss.value
    return None


def _other_reads(ctx: RuleContext, func: FunctionLike, loss: cst.Name) -> Iterator[cst.Name]:
    """The reads in ``func`` of the value ``loss`` names, other than ``loss`` itself and a `return`
    (whose reduction `_reported_loss_reduces` keeps right)."""
    semantic = ctx.tf.semantic
    resolved = semantic.resolve(loss)
    bindings = {id(b) for b in resolved}
    statements = {id(b.statement) for b in resolved}
    for name in ctx.index.names.get(loss.value, ()):
        if name is loss or ctx.index.enclosing_function(name) is not func:
            continue
        if not bindings & {id(b) for b in semantic.resolve(name)} or semantic.binding_at(name) is not None:
            continue  # another value of the name, or the name being bound
        if any(id(a) in statements for a in _up_to_statement(ctx, name)):
            continue  # `loss = loss + aux_loss`: read into the very value given to `tape.gradient`
        if not _in_return(ctx, name):
            yield name


def _up_to_statement(ctx: RuleContext, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The ancestors of ``node`` up to and including its small or compound statement."""
    for ancestor in ctx.index.ancestors(node):
        yield ancestor
        if isinstance(ancestor, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            return


def _in_return(ctx: RuleContext, node: cst.CSTNode) -> bool:
    """``node`` is part of a `return` statement's value."""
    for ancestor in ctx.index.ancestors(node):
        if isinstance(ancestor, cst.Return):
            return True
        if isinstance(ancestor, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            return False
    return False


def _calling(ctx: RuleContext, node: cst.CSTNode) -> cst.Call | None:
    """The nearest call that takes ``node`` in its arguments."""
    for ancestor in ctx.index.ancestors(node):
        if isinstance(ancestor, cst.Call):
            return ancestor
        if isinstance(ancestor, cst.BaseSmallStatement | cst.BaseCompoundStatement):
            return None
    return None


def _optimizer_class(ctx: RuleContext, func: FunctionLike) -> str | None:
    """The Keras optimizer class whose `apply_gradients`/`minimize` the replica function calls,
    when one constructor binds it (also through a trainer's `__init__` parameter); None when
    unknown or several."""
    classes: set[str | None] = set()
    for call in ctx.tf.replica.calls_in(func):
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _APPLIES:
            creation = optimizer_creation(ctx.tf, call.func.value)
            # `self.optimizer = optimizer` in a trainer's `__init__`: what the module constructs it with.
            name = creation.class_name if creation is not None else passed_optimizer_class(ctx.tf, call.func.value)
            classes.add(name)
    return classes.pop() if len(classes) == 1 else None


def _applies_gradients(ctx: RuleContext, call: cst.Call) -> bool:
    """``optimizer.apply(grads, variables)`` (Keras 3), where ``grads`` is what a `tape.gradient`
    call of the same function gave: it sums them across replicas as `apply_gradients` does
    (measured on TensorFlow 2.21, 2 replicas: a `tf.reduce_mean` loss moved the weights twice as far).
    Other objects' `apply` methods (datasets, moving averages) take no gradients."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "apply" and call.args):
        return False
    grads = call.args[0].value
    if not isinstance(grads, cst.Name):
        return False
    func = ctx.index.enclosing_function(call)
    value = last_assignment(ctx.tf, func, grads.value, call) if func is not None else None
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "gradient"


def _divided_by_replicas(origin: cst.BaseExpression) -> TypeGuard[cst.BinaryOperation]:
    """``<loss> / <something with num_replicas_in_sync>`` (unparenthesised, so it can be replaced)."""
    return (
        isinstance(origin, cst.BinaryOperation)
        and isinstance(origin.operator, cst.Divide)
        and not origin.lpar
        and mentions_replicas(origin.right)
    )


def _only_trains(ctx: RuleContext, helper: FunctionLike) -> bool:
    """Every call of the loss helper is in a replica function that computes gradients."""
    if isinstance(helper, cst.Lambda):
        return False  # its calls go through the name it is bound to: not followed
    sites = ctx.tf.strategies.call_sites(helper)
    replica = ctx.tf.replica
    owners = [ctx.index.enclosing_function(site) for site in sites]
    return bool(sites) and all(
        owner is not None and owner in replica.replica_functions and gradient_calls(ctx.tf, owner) for owner in owners
    )


def _divided(ctx: RuleContext, origin: cst.BaseExpression, divide: str, tf: str) -> Edit:
    """The edit dividing a mean loss by the replicas; unscaled regularization terms
    (`tf.add_n(model.losses)`) are wrapped in `tf.nn.scale_regularization_loss` instead."""
    terms = sum_terms(origin)
    if (
        terms is not None
        and any(is_regularization(ctx.tf, t) for t in terms)
        and not all(is_regularization(ctx.tf, t) for t in terms)
    ):
        parts = []
        for term in terms:
            text = _with_parens(term)
            if is_regularization(ctx.tf, term):
                parts.append(f"{tf}.nn.scale_regularization_loss({text})")
            elif (
                term.lpar
                or isinstance(term, (cst.Call, cst.Name, cst.Attribute, cst.Subscript))
                or (isinstance(term, cst.BinaryOperation) and isinstance(term.operator, (cst.Multiply, cst.Divide)))
            ):
                parts.append(text + divide)
            else:
                parts.append(f"({text}){divide}")
        return ctx.replace(origin, " + ".join(parts))
    if isinstance(origin, cst.Call) or not origin.lpar:
        text = ctx.source(origin)
        if isinstance(origin, cst.Call):
            return ctx.insert_after(origin, divide)
        return ctx.replace(origin, f"({text}){divide}")
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


def _reported_loss_reduces(ctx: RuleContext, func: FunctionLike, gradient: cst.Call, scaling: Scaling) -> list[Edit]:
    """Edits that keep the reported loss right once it is scaled to the global batch.

    When the replica function returns the loss, the `strategy.reduce(...)` of what `strategy.run`
    gives back must SUM the scaled per-replica values (a MEAN would show it N times too small),
    and a per-example vector that became a scalar is reduced with ``axis=None``.
    """
    loss = gradient.args[0].value
    reduces = _loss_reduces(ctx, func, loss) if isinstance(loss, cst.Name) else None
    edits: list[Edit] = []
    for reduce in reduces or ():
        op = reduce.args[0].value
        text = ctx.source(op)
        if "MEAN" in text.upper():
            edits.append(ctx.replace(op, text.replace("MEAN", "SUM").replace("mean", "sum")))
        axis = argument_value(reduce, 2, "axis")
        axis_is_none = isinstance(axis, cst.Name) and axis.value == "None"
        if scaling is Scaling.PER_EXAMPLE and axis is not None and not axis_is_none:
            edits.append(ctx.replace(axis, "None"))
    return edits


def _run_producers(ctx: RuleContext, func: FunctionLike) -> list[cst.Call]:
    """The calls whose value is what ``strategy.run(func)`` returned: the run calls themselves and,
    when a step returns the run, the step's calls."""
    producers: list[cst.Call] = []
    for run in ctx.tf.runs_by_function.get(func, ()):
        producers.append(run.call)
        parent = ctx.index.parent.get(run.call)
        step = ctx.index.enclosing_function(run.call)
        if isinstance(parent, cst.Return) and isinstance(step, cst.FunctionDef):
            producers.extend(ctx.tf.strategies.call_sites(step))
    return producers


def _reduces_of_slot(ctx: RuleContext, func: FunctionLike, slot: int) -> list[cst.Call]:
    """``<strategy>.reduce(op, name, ...)`` calls whose ``name`` is element ``slot`` of what
    ``strategy.run(func)`` returned, unpacked by the assignment that binds it
    (``losses, accuracies = strategy.run(step, ...)``): every binding of the name that reaches the
    reduce must be that element (the semantic model says which reach it)."""
    produced = set(map(id, _run_producers(ctx, func)))
    semantic = ctx.tf.semantic
    reduces = []
    for call in ctx.tf.replica.strategy_reduces:
        value = call.args[1].value
        if not isinstance(value, cst.Name):
            continue
        values = semantic.resolve(value)
        if values and all(_unpacked_at(b.statement, b.node, slot, produced) for b in values):
            reduces.append(call)
    return reduces


def _unpacked_at(statement: cst.CSTNode, name: cst.CSTNode, slot: int, produced: set[int]) -> bool:
    """``statement`` is ``a, b = <producer>`` and ``name`` is its target element ``slot``."""
    if not isinstance(statement, cst.Assign) or id(statement.value) not in produced or len(statement.targets) != 1:
        return False
    target = statement.targets[0].target
    if not isinstance(target, cst.Tuple | cst.List) or slot >= len(target.elements):
        return False
    if any(isinstance(e, cst.StarredElement) for e in target.elements):
        return False
    return target.elements[slot].value is name


def _returned_loss_reader(ctx: RuleContext, func: FunctionLike, gradient: cst.Call) -> str | None:
    """What reads the loss ``func`` returns as its whole value, other than a `strategy.reduce` the
    fix adjusts (`epoch_loss.assign_add(l)` in another `strategy.run`, a print): dividing the loss
    where it is computed would change that reading. The reader as its called name (or the
    statement), None when the returned value is only reduced, discarded or not returned alone."""
    loss = gradient.args[0].value
    if not isinstance(loss, cst.Name) or _returned_slot(ctx, func, loss) != _WHOLE:
        return None
    reduced = {id(call.args[1].value) for call in ctx.tf.replica.strategy_reduces}
    for producer in _run_producers(ctx, func):
        statement = ctx.index.parent.get(producer)
        if statement is None or isinstance(statement, cst.Expr | cst.Return) or id(producer) in reduced:
            continue  # discarded, handed on (its caller is a producer too), or reduced as it is
        targets = statement.targets if isinstance(statement, cst.Assign) else ()
        names = [t.target.value for t in targets if isinstance(t.target, cst.Name)]
        if len(names) != len(targets) or not names:
            return ctx.source(statement)[:40]
        scope = ctx.index.enclosing_function(statement)
        for name in (n for value in names for n in ctx.index.names.get(value, ())):
            if ctx.index.enclosing_function(name) is not scope or id(name) in reduced:
                continue
            if ctx.tf.semantic.binding_at(name) is not None:
                continue  # the name being bound, not read
            if not any(b.statement is statement for b in ctx.tf.semantic.resolve(name)):
                continue  # another value of the name (`loss = strategy.reduce(..., loss)` read later)
            user = _calling(ctx, name)
            parent = ctx.index.parent.get(name)
            return ctx.source(user.func)[:40] if user is not None else ctx.source(parent)[:40] if parent else name.value
    return None


def _reduces_of_runs(ctx: RuleContext, func: FunctionLike) -> list[cst.Call]:
    """``<strategy>.reduce(op, value, ...)`` calls whose value is what ``strategy.run(func)`` returned.

    The value is the run call itself, a name bound to it, or (when a step returns the run) the
    step's call or a name bound to that, in the same function as the reduce.
    """
    producers = _run_producers(ctx, func)
    # A value is a producer itself, or a name assigned from one in the function that reduces it.
    bound: set[tuple[str, FunctionLike | None]] = set()
    for producer in producers:
        statement = ctx.index.parent.get(producer)
        if isinstance(statement, cst.Assign):
            scope = ctx.index.enclosing_function(statement)
            bound.update((t.target.value, scope) for t in statement.targets if isinstance(t.target, cst.Name))
    produced = set(map(id, producers))
    reduces = []
    for call in ctx.tf.replica.strategy_reduces:
        value = call.args[1].value
        if id(value) in produced or (
            isinstance(value, cst.Name) and (value.value, ctx.index.enclosing_function(call)) in bound
        ):
            reduces.append(call)
    return reduces
