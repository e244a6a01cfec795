"""TFD403: a Keras 2 distributed-training name that Keras 3 removed, used where Keras 3 is in play."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import KERAS3_REMOVED_NAME
from fixer.rule import Rule
from fixer.tf.compat import is_compat_fallback
from fixer.tf.index import subtree
from fixer.tf.keras_target import keras_major, keras_upgrade_prefix
from fixer.tf.names import canonical, dotted_name
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext

_SYNC_BN = "keras.layers.experimental.SyncBatchNormalization"
_DATASET_CREATOR = "keras.utils.experimental.DatasetCreator"
_LOSS_SCALE_OPTIMIZERS = (
    "keras.mixed_precision.LossScaleOptimizer",
    "keras.mixed_precision.experimental.LossScaleOptimizer",
)
_OLD_LOSS_SCALING = ("get_scaled_loss", "get_unscaled_gradients")
# Methods a subclass of Keras 2's OptimizerV2 overrides; no Keras 3 optimizer has them
# (benchmarks/probe_keras3_removed_api.py): a module that defines them is written for Keras 2.
_KERAS2_OPTIMIZER_HOOKS = ("_resource_apply_dense", "_resource_apply_sparse", "_prepare_local", "_decayed_lr")
# The first TensorFlow whose `tf.keras` is Keras 3: before it, LossScaleOptimizer has no `scale_loss`.
_KERAS3_FROM = (2, 16)
# The first TensorFlow whose Keras takes `BatchNormalization(synchronized=True)`: its r2.12 API page
# lists the argument and deprecates `SyncBatchNormalization`, which r2.11's page does not.
_SYNCHRONIZED_FROM = (2, 12)
# SyncBatchNormalization's keywords, which BatchNormalization takes too under both Kerases;
# anything else (`fused=`, `renorm=`, `**kwargs`) keeps the finding without an edit.
_BN_KEYWORDS = frozenset(
    {
        "axis", "momentum", "epsilon", "center", "scale", "name", "trainable", "dtype",
        "beta_initializer", "gamma_initializer", "moving_mean_initializer", "moving_variance_initializer",
        "beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint",
    }
)  # fmt: skip


class Keras3RemovedDistributeApi(Rule):
    """
    ## What it does
    Finds Keras 2 names from distributed training that Keras 3 (the `tf.keras` of TensorFlow 2.16
    and later) no longer has, where the Keras in play is Keras 3:
    `tf.keras.layers.experimental.SyncBatchNormalization` (also from standalone `keras` and from an
    `import` of `...layers.experimental`), `LossScaleOptimizer.get_scaled_loss(...)` and
    `.get_unscaled_gradients(...)` in a module that uses a strategy, and `tf.keras.utils.experimental.DatasetCreator`.

    ## Why is this bad in distributed training?
    Measured on TensorFlow 2.21 with Keras 3.15 (`benchmarks/probe_keras3_removed_api.py`):
    `SyncBatchNormalization` raises `AttributeError: module 'keras._tf_keras.keras.layers' has no
    attribute 'experimental'`, `get_scaled_loss` raises `AttributeError: 'LossScaleOptimizer'
    object has no attribute 'get_scaled_loss'`, and `DatasetCreator` raises `AttributeError:
    module 'keras.utils' has no attribute 'experimental'`. Under tf-keras all three work.

    `BatchNormalization(synchronized=True)` keeps the replicas' moving statistics equal under
    both Kerases (both replicas hold the moving mean [0.04, 0.05], where plain
    `BatchNormalization()` leaves [0.02, 0.03] and [0.06, 0.07]). Under Keras 3,
    `optimizer.scale_loss(loss)` followed by a plain `apply_gradients`, which unscales the
    gradients itself, gives the same weights as one step on one device.

    ## Fix safety
    `SyncBatchNormalization(...)` called through its module path becomes
    `BatchNormalization(..., synchronized=True)`: safe where the project states a TensorFlow of
    2.12 or later (the argument arrived in Keras 2.12; measured to synchronise the statistics the
    same way under both Kerases), unsafe on an assumed target, which may be an older Keras 2.
    Where the project also runs a release before 2.12 (a package's floor, the oldest container of
    its CI, a pin farther up) the rewrite would raise `TypeError` there: advice, no edit.
    A call with another keyword or `**kwargs`, or an imported name, is reported without an edit.

    `get_scaled_loss(x)` becomes `scale_loss(x)` and `get_unscaled_gradients(g)` becomes `g`
    when both are in the same function and the unscaled gradients go straight to
    `apply_gradients` (clipped or read on the way, they would stay scaled: no edit then; a block
    left without a statement keeps a `pass`): unsafe,
    because the rewrite breaks under tf-keras
    (`'LossScaleOptimizerV3' object has no attribute 'scale_loss'`, measured), so it is right
    only when the environment really is Keras 3. `DatasetCreator` has no Keras 3 equivalent
    (Keras 3 has no ParameterServerStrategy `fit`): advice only, use tf-keras or a
    `ClusterCoordinator` loop.

    ## Known limits
    - The Keras is told as TFD504 tells it: `tf_keras` is Keras 2, standalone `keras` is Keras 3,
      `tf.keras` follows the script's `TF_USE_LEGACY_KERAS`, and a project pinning TensorFlow below
      2.16 is Keras 2 everywhere (a notebook's own install cell counts as its pin). A sub-project's
      `tf-nightly` gives way to the release its repository pins farther up (docs/target.md). Where
      it cannot be told, nothing is reported; a TensorFlow 1.x program gets nothing.
    - A use guarded by a version check, `hasattr` or `try/except AttributeError` is a deliberate
      fallback and is not reported; neither is a class that defines its own `get_scaled_loss`.
    - Loss scaling in a module that overrides Keras 2's optimizer hooks (`_resource_apply_dense`,
      `_prepare_local`, ...: only Keras 2's OptimizerV2 has them, measured) is Keras 2 code: not
      reported. Where the project's floor is before 2.16 (a Keras 2, no `scale_loss`): advice, no edit.

    ## Runtime evidence
    `benchmarks/probe_keras3_removed_api.py` runs each name and each rewrite on 2 replicas
    under both Kerases.

    ## References
    - https://keras.io/api/layers/normalization_layers/batch_normalization/
    - https://www.tensorflow.org/versions/r2.12/api_docs/python/tf/keras/layers/BatchNormalization
      (`synchronized` first appears in r2.12; not in the r2.11 page)
    - https://keras.io/api/mixed_precision/loss_scale_optimizer/
    - https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility
    """

    code = "TFD403"
    name = "keras3-removed-distribute-api"
    message = "a Keras 2 name that Keras 3 removed"
    fix_title = "Use the Keras 3 form"
    applicability = Applicability.SAFE
    triggers = ("SyncBatchNormalization", "get_scaled_loss", "get_unscaled_gradients", "DatasetCreator")
    facts = (KERAS3_REMOVED_NAME,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.target.tf1_program:
            return
        self._check_removed_names(ctx)
        self._check_removed_imports(ctx)
        if ctx.tf.strategies.module_has_strategy and not any(
            ctx.index.functions_by_name.get(n) for n in (*_OLD_LOSS_SCALING, *_KERAS2_OPTIMIZER_HOOKS)
        ):
            self._check_loss_scaling(ctx)

    def _check_removed_names(self, ctx: RuleContext) -> None:
        for attribute in ctx.index.attributes:
            qualified = ctx.tf.names.qualified(attribute)
            if qualified not in (_SYNC_BN, _DATASET_CREATOR) or is_compat_fallback(ctx.index, attribute):
                continue
            if keras_major(ctx.tf, attribute) != 3:
                continue
            prefix = keras_upgrade_prefix(ctx.tf, attribute)
            if qualified == _DATASET_CREATOR:
                ctx.report(
                    attribute,
                    prefix + "`DatasetCreator` is not in Keras 3 (`AttributeError`) and has no Keras 3 equivalent: "
                    "use tf-keras (TF_USE_LEGACY_KERAS=1) or a ClusterCoordinator loop",
                )
                continue
            message = (
                prefix + "`SyncBatchNormalization` is not in Keras 3 (`AttributeError`); "
                "use `BatchNormalization(synchronized=True)`"
            )
            floor = ctx.tf.target.floor
            if floor is not None and floor < _SYNCHRONIZED_FROM:
                # The project also runs a release whose Keras lacks `synchronized` (`TypeError`):
                # the rewrite would break it there, so the finding is advice.
                ctx.report(attribute, message + f" once TF {floor[0]}.{floor[1]} is no longer supported (needs 2.12)")
                continue
            ctx.report(attribute, message, edits=_sync_bn_edits(ctx, attribute), applicability=_sync_bn_safety(ctx))

    def _check_removed_imports(self, ctx: RuleContext) -> None:
        for node in ctx.index.imports:
            if not isinstance(node, cst.ImportFrom) or node.module is None or isinstance(node.names, cst.ImportStar):
                continue
            module = canonical(dotted_name(node.module) or "")
            removed = [
                alias.name.value
                for alias in node.names
                if isinstance(alias.name, cst.Name) and f"{module}.{alias.name.value}" in (_SYNC_BN, _DATASET_CREATOR)
            ]
            if not removed or is_compat_fallback(ctx.index, node) or keras_major(ctx.tf, node.module) != 3:
                continue
            ctx.report(
                node.module,
                keras_upgrade_prefix(ctx.tf, node.module)
                + f"`{dotted_name(node.module)}` is not in Keras 3 (`ModuleNotFoundError`), "
                f"so `{removed[0]}` cannot be imported; "
                + (
                    "use `BatchNormalization(synchronized=True)`"
                    if removed[0] == "SyncBatchNormalization"
                    else "use tf-keras"
                ),
            )

    def _check_loss_scaling(self, ctx: RuleContext) -> None:
        calls = [
            call
            for call in ctx.index.calls
            if isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _OLD_LOSS_SCALING
            and not is_compat_fallback(ctx.index, call)
        ]
        if not calls:
            return
        optimizers = _loss_scale_optimizers(ctx)
        fixed: set[object] = set()
        for call in calls:
            receiver = ctx.source(_method(call).value)
            constructor = optimizers.get(receiver) or _only_constructor(optimizers) or _any_keras_name(ctx)
            if constructor is None or keras_major(ctx.tf, constructor) != 3:
                continue
            method = _method(call).attr.value
            message = (
                keras_upgrade_prefix(ctx.tf, constructor)
                + f"`{method}` is not in Keras 3's LossScaleOptimizer (`AttributeError`); "
                "use `scale_loss(loss)` and pass the gradients to `apply_gradients` as they are (it unscales them)"
            )
            floor = ctx.tf.target.floor
            if floor is not None and floor < _KERAS3_FROM:
                # The project also runs a Keras 2, whose LossScaleOptimizer has no `scale_loss`
                # (measured): the rewrite would break there, so the finding is advice.
                ctx.report(
                    _method(call).attr,
                    keras_upgrade_prefix(ctx.tf, constructor)
                    + f"`{method}` is not in Keras 3's LossScaleOptimizer (`AttributeError`); use `scale_loss` "
                    f"once TF {floor[0]}.{floor[1]} (Keras 2: no `scale_loss`) is no longer supported",
                )
                continue
            function = ctx.index.enclosing_function(call)
            edits = None
            if function not in fixed:
                edits = _loss_scaling_edits(ctx, [c for c in calls if ctx.index.enclosing_function(c) is function])
                if edits:
                    fixed.add(function)
            ctx.report(_method(call).attr, message, edits=edits, applicability=Applicability.UNSAFE)


def _method(call: cst.Call) -> cst.Attribute:
    """The ``optimizer.method`` of a loss-scaling call (the rule keeps only such method calls)."""
    return cst.ensure_type(call.func, cst.Attribute)


def _sync_bn_safety(ctx: RuleContext) -> Applicability:
    """Safe where every TensorFlow the code may run on has `BatchNormalization(synchronized=...)`
    (Keras 2.12 and later): a stated version, its pin before a requested upgrade and a package's
    floor all 2.12 or later. On an assumed or unknown target the code may meet an older Keras 2,
    where the argument is a `TypeError`: unsafe."""
    target = ctx.tf.target
    if target.version_unknown:
        return Applicability.UNSAFE
    stated = [v for v in (target.pinned, target.requested, target.floor) if v is not None]
    return Applicability.SAFE if stated and min(stated) >= _SYNCHRONIZED_FROM else Applicability.UNSAFE


def _sync_bn_edits(ctx: RuleContext, attribute: cst.Attribute) -> list[Edit] | None:
    """``<layers>.experimental.SyncBatchNormalization(args)`` ->
    ``<layers>.BatchNormalization(args, synchronized=True)``."""
    call = ctx.index.parent.get(attribute)
    if not isinstance(call, cst.Call) or call.func is not attribute:
        return None
    experimental = attribute.value
    if not (isinstance(experimental, cst.Attribute) and experimental.attr.value == "experimental"):
        return None  # `experimental.SyncBatchNormalization` after `from keras.layers import experimental`
    if any(arg.star or (arg.keyword is not None and arg.keyword.value not in _BN_KEYWORDS) for arg in call.args):
        return None
    edits = [ctx.replace(attribute, f"{ctx.source(experimental.value)}.BatchNormalization")]
    if not call.args:
        start, end = ctx.span(call)
        edits.append(Edit(end - 1, end - 1, "synchronized=True"))
        return edits
    last = call.args[-1]
    _, end = ctx.span(last.value)
    edits.append(Edit(end, end, ", synchronized=True"))
    return edits


def _loss_scaling_edits(ctx: RuleContext, calls: list[cst.Call]) -> list[Edit] | None:
    """The Keras 3 form of one function's loss scaling, when it both scales and unscales."""
    methods = {_method(call).attr.value for call in calls}
    if methods != set(_OLD_LOSS_SCALING):
        return None  # only half of the pair: what the other half does is not known
    if any(len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star for call in calls):
        return None
    unscaled = [call for call in calls if _method(call).attr.value == "get_unscaled_gradients"]
    if any(_used_before_applied(ctx, call) for call in unscaled):
        return None  # clipped or read while still scaled: `apply_gradients` unscales only at the end
    edits: list[Edit] = []
    dropped = [call for call in calls if _rebinds_its_argument(ctx, call)]
    for call in calls:
        if _method(call).attr.value == "get_scaled_loss":
            edits.append(ctx.replace(_method(call).attr, "scale_loss"))
        elif call in dropped and _last_of_emptied_block(ctx, call, dropped):
            # Every statement of its block would go: keep the block's body as `pass`.
            edits.append(ctx.replace(cst.ensure_type(ctx.index.parent.get(call), cst.Assign), "pass"))
        elif call in dropped:
            # `grads = opt.get_unscaled_gradients(grads)` would become `grads = grads`: drop the line.
            edits.append(Edit(*ctx.statement_block([ctx.index.statement_of(call)]), ""))
        else:
            edits.append(ctx.replace(call, ctx.source(call.args[0].value)))
    return edits


def _last_of_emptied_block(ctx: RuleContext, call: cst.Call, dropped: list[cst.Call]) -> bool:
    """``call``'s statement is the last of a block whose every statement the rewrite drops
    (`if mixed:` holding only two `g = opt.get_unscaled_gradients(g)` lines): deleting it too would
    leave an empty block, which does not parse."""
    statement = ctx.index.statement_of(call)
    block = ctx.index.parent.get(statement)
    if not isinstance(block, cst.IndentedBlock):
        return False
    dropped_statements = [ctx.index.statement_of(c) for c in dropped]
    return all(s in dropped_statements for s in block.body) and block.body[-1] is statement


def _used_before_applied(ctx: RuleContext, call: cst.Call) -> bool:
    """The unscaled gradients ``call`` gives are read for anything but `apply_gradients` (clipped,
    normed, returned), or are not bound to a plain name: without the unscaling those reads would
    see gradients still multiplied by the loss scale."""
    parent = ctx.index.parent.get(call)
    if not (
        isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)
    ):
        return True
    name = parent.targets[0].target.value
    function = ctx.index.enclosing_function(call)
    scope = function if function is not None else ctx.module
    for node in subtree(scope):
        if not (isinstance(node, cst.Name) and node.value == name and ctx.index.before(call, node)):
            continue
        if ctx.index.is_within(node, call):
            continue  # `grads = opt.get_unscaled_gradients(grads)`: its own argument
        if isinstance(ctx.index.parent.get(node), cst.AssignTarget):
            continue
        if not any(
            isinstance(a, cst.Call) and isinstance(a.func, cst.Attribute) and a.func.attr.value == "apply_gradients"
            for a in ctx.index.ancestors(node)
        ):
            return True
    return False


def _rebinds_its_argument(ctx: RuleContext, call: cst.Call) -> bool:
    """``x = <call>(x)`` as a statement of its own."""
    parent = ctx.index.parent.get(call)
    statement = ctx.index.statement_of(call)
    return (
        isinstance(parent, cst.Assign)
        and len(parent.targets) == 1
        and ctx.source(parent.targets[0].target) == ctx.source(call.args[0].value)
        and isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and _has_siblings(ctx, statement)
    )


def _has_siblings(ctx: RuleContext, statement: cst.SimpleStatementLine) -> bool:
    """Removing ``statement`` leaves its block non-empty (an `if` body of one line would not parse)."""
    block = ctx.index.parent.get(statement)
    return isinstance(block, cst.Module) or (isinstance(block, cst.IndentedBlock) and len(block.body) > 1)


def _loss_scale_optimizers(ctx: RuleContext) -> dict[str, cst.BaseExpression]:
    """Names bound to a LossScaleOptimizer, and the class expression each is built from."""
    found: dict[str, cst.BaseExpression] = {}
    for assign in ctx.index.assigns:
        if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call):
            if (ctx.tf.names.callee(assign.value) or "") in _LOSS_SCALE_OPTIMIZERS:
                for target in assign.targets:
                    found[ctx.source(target.target)] = assign.value.func
    for call in ctx.index.calls:
        if (ctx.tf.names.callee(call) or "") in _LOSS_SCALE_OPTIMIZERS:
            found.setdefault("", call.func)  # built in a compile(...) or a return: known by class only
    return found


def _only_constructor(optimizers: dict[str, cst.BaseExpression]) -> cst.BaseExpression | None:
    """The class of the module's LossScaleOptimizers when they all come from one spelling."""
    spellings = {dotted_name(func) for func in optimizers.values()}
    return next(iter(optimizers.values())) if len(spellings) == 1 else None


def _any_keras_name(ctx: RuleContext) -> cst.BaseExpression | None:
    """The first Keras name of the module (``tf.keras.Model``), which tells its Keras when the
    optimizer comes from elsewhere (``self.optimizer`` set by `compile`)."""
    for attribute in ctx.index.attributes:
        qualified = ctx.tf.names.qualified(attribute) or ""
        if qualified.startswith("keras.") and not isinstance(ctx.index.parent.get(attribute), cst.Attribute):
            return attribute
    return None
