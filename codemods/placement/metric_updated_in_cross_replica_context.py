"""TFD114: a tf-keras metric made in `strategy.scope()` and updated in cross-replica code."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

import libcst as cst

from fixer.cell_lines import cell_of
from fixer.facts import SCOPE_BLOCK
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.bindings import assignments_to
from fixer.tf.keras_flavour import keras_module
from fixer.tf.keras_target import keras_major, keras_upgrade_prefix
from fixer.tf.names import dotted_name
from fixer.tf.strategies import Membership
from fixer.tf.tf1_program import runs_tensorflow_1
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext

_METRIC_MODULES = ("keras.metrics.",)
_UPDATES = frozenset({"update_state"})
# Strategies whose metric variables the probe did not measure: a module that builds only these
# is not reported.
_NOT_MEASURED = frozenset(
    "tensorflow.distribute." + name
    for name in (
        "OneDeviceStrategy",
        "ParameterServerStrategy",
        "experimental.ParameterServerStrategy",
        "CentralStorageStrategy",
        "experimental.CentralStorageStrategy",
    )
)


class MetricUpdatedInCrossReplicaContext(Rule):
    """
    ## What it does
    Under tf-keras, finds `metric.update_state(...)` on a Keras metric made inside
    `with strategy.scope():` where the update runs in cross-replica code: at module level (the
    Python training loop), directly in the scope block, or in a function that calls `strategy.run`
    or `strategy.reduce` itself (the outer `tf.function` step); and `metric(...)` there too, except
    eagerly under the scope.

    ## Why is this bad in distributed training?
    A tf-keras metric made in the scope keeps its totals in `SyncOnReadVariable`s summed across
    replicas on read. Adding to one from cross-replica code has no replica to add to. Measured on
    TensorFlow 2.21 with 2 logical CPUs (`benchmarks/probe_metric_updated_cross_replica.py`):
    tf-keras raises `ValueError: SyncOnReadVariable does not support assign_add in
    cross-replica context when aggregation is set to tf.VariableAggregation.SUM` (TensorFlow
    quotes `assign_add` and the aggregation in backticks) in the outer
    `tf.function` after `strategy.reduce`, in the Python loop, directly under
    `with strategy.scope():` and when the metric is called in the outer `tf.function`; the same
    update inside the replica
    function works, and so does a metric made outside the scope or under `OneDeviceStrategy`
    (plain variables). Keras 3 metrics accept all of these updates and report the right value, so
    Keras 3 code is not reported.

    ## Fix safety
    No automatic fix (review): moving the update into the replica function changes what the
    metric averages (per-replica values instead of the reduced one), and keeping a Python
    accumulator of the reduced value changes the code around it. Update the metric inside the
    function given to `strategy.run`, or accumulate the reduced value in Python, or make the
    metric outside the scope if it only ever sees reduced values (measured: it works there).

    ## Known limits
    - tf-keras is Keras 2: `import tf_keras`, or `tf.keras` with `TF_USE_LEGACY_KERAS=1` or a
      TensorFlow before 2.16.
    - Also `self.metric.update_state(...)` on a metric an object makes in its `__init__` while built
      in the scope.
    - Not reported in a notebook whose release no file names and whose saved outputs show a Keras 2
      run, when the update's cell saved output from a run that raised nothing: that run was on a
      release before 2.16, older than the one measured, and it went through the update.
    - Not reported: an update inside the replica function (the function given to `strategy.run`, a
      helper it calls, a Keras `train_step`), a metric made outside any scope, Keras 3 metrics, a
      module whose only strategies are `OneDeviceStrategy` (measured: it works) or
      `ParameterServerStrategy`/`CentralStorageStrategy` (not measured), `result()` and
      `reset_state()`, and updates in functions whose context the file does not show.
    - Not reported: calling the metric (`metric(value)`) eagerly under `with strategy.scope():`
      (the Python loop in the scope): tf-keras's `Metric.__call__` runs the update through
      `call_replica_local_fn`, which takes it (measured: `benchmarks/probe_ledger18b_premises.py`
      part 3); only `metric.update_state(value)` raises there. Called in the outer `tf.function`
      or eagerly outside the scope, it is reported.

    ## Runtime evidence
    `distfix validate` names this rule behind the `SyncOnReadVariable does not support
    assign_add` error.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/custom_training#define_the_metrics_to_track_loss_and_accuracy
    - https://github.com/keras-team/tf-keras/issues/505
    """

    code = "TFD114"
    name = "metric-updated-in-cross-replica-context"
    message = "tf-keras metric made in `strategy.scope()` updated in cross-replica code"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("metrics",)
    needs = (STRATEGY,)
    facts = (SCOPE_BLOCK,)

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if runs_tensorflow_1(ctx.tf.target) or not strategies.scope_blocks or strategies.single_replica:
            return
        built = {kind for _, kind in strategies.constructions}
        if built and built <= _NOT_MEASURED:
            return
        for call in ctx.index.calls:
            metric = _updated_metric(call)
            if metric is None:
                continue
            made = _metric_made_in_scope(ctx, metric)
            if made is None or not _cross_replica(ctx, call):
                continue
            if isinstance(call.func, cst.Name) and _called_eagerly_in_scope(ctx, call):
                continue  # tf-keras's `__call__` runs the update per replica there (call_replica_local_fn)
            if keras_major(ctx.tf, made.func) != 2:
                continue  # Keras 3 metrics take cross-replica updates (measured); unknown: silent
            if _recorded_run_updated(ctx, made, call):
                continue
            ctx.report(
                call,
                f"{keras_upgrade_prefix(ctx.tf, made.func, found_under=2)}"
                f"tf-keras metric `{ctx.source(metric)}` made in the "
                f"scope (line {ctx.range(made).start.line}) is updated in cross-replica code: `SyncOnReadVariable does "
                "not support assign_add`; update it in the replica function",
            )


def _recorded_run_updated(ctx: RuleContext, made: cst.Call, call: cst.Call) -> bool:
    """No file names the notebook's release, its saved outputs show a Keras 2 run (Keras 2
    classes: a release before 2.16), and the saved output of the update's cell shows that run
    went through the update without an error. The error is measured on tf-keras 2.21 only; the
    recorded run on its older release contradicts it, and nothing says the notebook runs anywhere
    else. ``made`` is the metric's construction: a `tf_keras` metric is tf-keras wherever it runs."""
    target = ctx.tf.target
    if not target.recorded_keras2 or keras_module(ctx.tf, made.func) == "tf_keras":
        return False
    cell = cell_of(ctx.text, ctx.range(call).start.line)
    return cell is not None and cell in target.ran_clean


def _updated_metric(call: cst.Call) -> cst.Name | cst.Attribute | None:
    """What ``call`` updates as a metric: ``name.update_state(...)``, ``self.name.update_state(...)``
    or ``name(...)``."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _UPDATES:
        receiver = func.value
        if isinstance(receiver, cst.Name) or _self_attribute(receiver):
            return receiver
        return None
    if isinstance(func, cst.Name) and call.args:
        return func
    return None


def _self_attribute(node: cst.BaseExpression) -> TypeGuard[cst.Attribute]:
    """``self.name``: a metric an object keeps."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


def _metric_made_in_scope(ctx: RuleContext, metric: cst.Name | cst.Attribute) -> cst.Call | None:
    """The Keras metric constructor call ``metric`` holds when that call runs in a strategy scope:
    for a name, the one binding that reaches it; for ``self.name``, the one assignment in the file."""
    if isinstance(metric, cst.Name):
        value = ctx.tf.semantic.value_of(metric)
    else:
        assigned = assignments_to(ctx.index, dotted_name(metric))
        value = assigned[0].value if len(assigned) == 1 else None
    if not isinstance(value, cst.Call):
        return None
    callee = ctx.tf.names.callee(value) or ""
    if not any(callee.startswith(module) for module in _METRIC_MODULES):
        return None
    class_name = callee.rsplit(".", 1)[-1]
    if not class_name[:1].isupper():
        return None  # keras.metrics.mean_squared_error(...) is a function, not a metric object
    if ctx.tf.strategies.membership(value) is not Membership.INSIDE:
        return None
    return value


def _called_eagerly_in_scope(ctx: RuleContext, call: cst.Call) -> bool:
    """``call`` stands under ``with strategy.scope():`` and runs eagerly: in no function that is a
    `tf.function` or traced by one (measured only so: a call outside the scope has no strategy to
    hand the update to, and raises as `update_state` does)."""
    if ctx.tf.strategies.lexical_scope_block(call) is None:
        return False
    replica = ctx.tf.replica
    func = ctx.index.enclosing_function(call)
    while func is not None:
        if replica.is_tf_function(func) or replica.only_called_from_graphs(func):
            return False
        func = ctx.index.enclosing_function(func)
    return True


def _cross_replica(ctx: RuleContext, call: cst.Call) -> bool:
    """True when ``call`` evidently runs in cross-replica code: at module level, directly in a
    scope block, or in a function that itself calls `strategy.run` or `strategy.reduce`; and
    never in a replica function."""
    replica = ctx.tf.replica
    func = ctx.index.enclosing_function(call)
    if replica.in_replica_context(call) or func in replica.probable_replica_functions:
        return False
    if func is None or ctx.tf.strategies.lexical_scope_block(call) is not None:
        return True
    if func in replica.steps():
        return True
    return any(ctx.index.enclosing_function(reduce) is func for reduce in replica.strategy_reduces)
