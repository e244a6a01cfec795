"""TFD401: a deprecated ``tf.distribute`` spelling that has a current name."""

from __future__ import annotations

import libcst as cst

from fixer.context import RuleContext
from fixer.rule import Rule
from fixer.tf.compat import (
    is_compat_fallback,
    is_declaration_only,
    is_tf1_program,
    is_type_check_argument,
)
from fixer.tf.names import dotted_name
from fixer.types import Applicability

# Deprecated method names on a strategy object -> current names.
_METHODS = {
    "experimental_run_v2": "run",
    "experimental_distribute_datasets_from_function": "distribute_datasets_from_function",
}
# Deprecated qualified names -> (current name, keyword arguments the current one does not take,
# how many positional arguments mean the same in both). The experimental MultiWorkerMirroredStrategy
# takes `communication` first, the current one `cluster_resolver`; TPUStrategy's second
# positional argument is `device_assignment` in one and `experimental_device_assignment` in the other.
_CLASSES: dict[str, tuple[str, frozenset[str], int]] = {
    "tensorflow.distribute.experimental.MultiWorkerMirroredStrategy": (
        "tensorflow.distribute.MultiWorkerMirroredStrategy",
        frozenset({"communication"}),
        0,
    ),
    "tensorflow.distribute.experimental.TPUStrategy": (
        "tensorflow.distribute.TPUStrategy",
        frozenset({"steps_per_run", "device_assignment"}),
        1,
    ),
    "tensorflow.distribute.experimental.CollectiveCommunication": (
        "tensorflow.distribute.experimental.CommunicationImplementation",
        frozenset(),
        99,
    ),
}
_EXPERIMENTAL_MODULE = "tensorflow.distribute.experimental"
# Gone from TensorFlow 2.21 (measured: AttributeError), not only deprecated.
_REMOVED = frozenset({"experimental_run_v2"})


class RenamedDistributeApi(Rule):
    """
    ## What it does
    Finds `tf.distribute` APIs used under a deprecated name: `strategy.experimental_run_v2`,
    `strategy.experimental_distribute_datasets_from_function`,
    `tf.distribute.experimental.MultiWorkerMirroredStrategy`,
    `tf.distribute.experimental.TPUStrategy` and `tf.distribute.experimental.CollectiveCommunication`.

    ## Why is this bad in distributed training?
    The old names print deprecation warnings on every worker, some are gone from recent
    TensorFlow releases, and the experimental strategy classes take different keyword arguments
    than the current ones, so copied snippets break in confusing ways.

    ## Fix safety
    Safe: the new name is the same function or class. When a call passes a keyword that only
    the experimental class takes (`communication=`, `steps_per_run=`, `device_assignment=`), or
    positional arguments the current class reads as something else (the experimental
    `MultiWorkerMirroredStrategy` takes `communication` first, the current one
    `cluster_resolver`), the rename would change the call, so the finding is reported without an
    edit.

    ## Runtime evidence
    None needed: the renamed APIs are aliases in TensorFlow 2.x.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#run
    - https://www.tensorflow.org/api_docs/python/tf/distribute/MultiWorkerMirroredStrategy
    """

    code = "TFD401"
    name = "renamed-distribute-api"
    message = "deprecated tf.distribute API name"
    fix_title = "Use the current name"
    applicability = Applicability.SAFE
    triggers = (
        "experimental_run_v2",
        "experimental_distribute_datasets_from_function",
        "distribute.experimental",
        "MultiWorkerMirroredStrategy",
        "TPUStrategy",
        "CollectiveCommunication",
    )

    def check(self, ctx: RuleContext) -> None:
        if is_tf1_program(ctx.index):
            return  # TF 1.x APIs: the current names do not exist there (tf.compat.v1.distribute, contrib)
        self._check_methods(ctx)
        self._check_qualified_attributes(ctx)
        self._check_imports(ctx)

    def _check_methods(self, ctx: RuleContext) -> None:
        for attribute in ctx.index.attributes:
            new = _METHODS.get(attribute.attr.value)
            if new is None or not ctx.tf.strategies.is_strategy(attribute.value):
                continue
            if is_compat_fallback(ctx.index, attribute):
                continue  # kept on purpose for older TensorFlow releases
            message = f"`{attribute.attr.value}` is deprecated; use `{new}`"
            if attribute.attr.value in _REMOVED:
                message = f"`{attribute.attr.value}` is removed in TensorFlow 2.21 (`AttributeError`); use `{new}`"
            ctx.report(attribute.attr, message, edits=[ctx.replace(attribute.attr, new)])

    def _check_qualified_attributes(self, ctx: RuleContext) -> None:
        for attribute in ctx.index.attributes:
            qualified = ctx.tf.names.qualified(attribute)
            if qualified not in _CLASSES:
                continue
            if is_declaration_only(ctx.index, attribute):
                continue  # an annotation or a monkey-patch follows the class the program constructs
            if is_compat_fallback(ctx.index, attribute) or is_type_check_argument(ctx.index, attribute):
                # Older releases on purpose, or a type test that must match the old class too
                # (the experimental and current TPUStrategy are different classes).
                continue
            new, blocked, positional = _CLASSES[qualified]
            old_text = dotted_name(attribute) or qualified
            local = ctx.tf.names.local_name_for(new)
            parent = ctx.index.parent.get(attribute)
            call = parent if isinstance(parent, cst.Call) and parent.func is attribute else None
            blocker = _blocking_argument(call, blocked, positional) if call is not None else None
            message = f"`{old_text}` is deprecated; use `{local or new}`"
            if local is None or blocker is not None:
                if blocker is not None:
                    message += f" (rewrite {blocker} by hand)"
                ctx.report(attribute, message)
                continue
            ctx.report(attribute, message, edits=[ctx.replace(attribute, local)])

    def _check_imports(self, ctx: RuleContext) -> None:
        for node in ctx.index.imports:
            if not isinstance(node, cst.ImportFrom) or node.module is None:
                continue
            if dotted_name(node.module) not in {_EXPERIMENTAL_MODULE, "tensorflow.compat.v2.distribute.experimental"}:
                continue
            if isinstance(node.names, cst.ImportStar):
                continue
            renamed = [a for a in node.names if isinstance(a.name, cst.Name) and f"{_EXPERIMENTAL_MODULE}.{a.name.value}" in _CLASSES]
            if not renamed:
                continue
            movable = len(renamed) == len(node.names) and all(
                _CLASSES[f"{_EXPERIMENTAL_MODULE}.{a.name.value}"][0].rsplit(".", 1)[0] == "tensorflow.distribute"
                and not _name_used_with_blocking_arguments(ctx, a, *_CLASSES[f"{_EXPERIMENTAL_MODULE}.{a.name.value}"][1:])
                for a in renamed
            )
            names = ", ".join(a.name.value for a in renamed)  # type: ignore[union-attr]
            message = f"`{names}` from `tensorflow.distribute.experimental` is deprecated; import it from `tensorflow.distribute`"
            if movable:
                ctx.report(node.module, message, edits=[ctx.replace(node.module, "tensorflow.distribute")])
            else:
                ctx.report(node.module, message)


def _blocking_argument(call: cst.Call, blocked: frozenset[str], positional: int) -> str | None:
    """What in ``call`` the current class would read differently: a keyword it lacks, or a
    positional argument it takes in another place; None when the rename keeps the call's meaning."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in blocked:
            return f"`{arg.keyword.value}=`"
    if sum(1 for arg in call.args if arg.keyword is None) > positional:
        return "the positional arguments"
    return None


def _name_used_with_blocking_arguments(ctx: RuleContext, alias: cst.ImportAlias, blocked: frozenset[str], positional: int) -> bool:
    local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else alias.name.value  # type: ignore[union-attr]
    return any(
        isinstance(call.func, cst.Name) and call.func.value == local and _blocking_argument(call, blocked, positional)
        for call in ctx.index.calls
    )
