"""Name the rule that explains a run's error: the crashes distfix knows by their message.

One table maps what TensorFlow or Keras says to the rule (or rules) whose mistake produces it.
The report then names the rule, the script's line, and whether ``distfix fix`` has a fix: from
the static check of the same script when it finds that rule there, else from the rule itself.
A code the rule registry does not know (a rule added later, or not installed) is still named,
with the table's own description.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fixer.registry import default_registry
from fixer.types import Applicability, Finding


@dataclass(frozen=True)
class KnownError:
    """An error message that one of the rules explains."""

    codes: tuple[str, ...]
    pattern: re.Pattern[str]
    what: str  # the mistake, for codes the registry does not know
    error_type: str | None = None  # the exception type, when the message alone is not enough


KNOWN_ERRORS = (
    KnownError(
        ("TFD109",),
        re.compile(r"You must feed a value for placeholder tensor '[^']*cond/Placeholder"),
        "a Keras 3 optimizer with state is not built before the first compiled step with several replicas",
    ),
    # The same error for a synchronization point under a graph condition (TFD110) and for one in
    # a nested `tf.function` (TFD107: `@tf.function` on a tf-keras `train_step`).
    KnownError(
        ("TFD110", "TFD107"),
        re.compile(r"merge_call`? called while defining a new graph"),
        "an optimizer update (a synchronization point) under a tensor condition or in a nested `tf.function`",
    ),
    KnownError(
        ("TFD104",),
        re.compile(r"Mixing different tf\.distribute\.Strategy objects"),
        "objects made under one strategy are used under another (several strategies, or one made outside the scope)",
    ),
    KnownError(
        ("TFD113", "TFD101"),
        re.compile(r"was not created in the distribution strategy scope"),
        "a model (a saved one loaded, or one built) outside `strategy.scope()` is compiled or trained in it",
    ),
    # TensorFlow filters its own frames out of tracebacks, so a bare AssertionError inside a
    # strategy call can end at validate's wrapper of that call (child/steps.py).
    KnownError(
        ("TFD101", "TFD113"),
        re.compile(
            r"^\(no message\) raised at (optimizer|mirrored_strategy|mirrored_run|values|distribute_lib"
            r"|distribute_utils|cross_device_ops|steps)\.py:"
        ),
        "a variable created outside `strategy.scope()` is used by distributed code",
        error_type="AssertionError",
    ),
    KnownError(
        ("TFD103",),
        re.compile(r"DistributedVariable\.handle is not available outside the replica context"),
        "the training step is called directly instead of through `strategy.run`",
    ),
    KnownError(
        ("TFD105",),
        re.compile(r"Collective ops must be configured at program startup"),
        "MultiWorkerMirroredStrategy is created after TensorFlow ran ops",
    ),
    KnownError(
        ("TFD302",),
        re.compile(r"Method requires being in cross-replica context"),
        "a cross-replica call (`strategy.reduce`, ...) inside a replica function",
    ),
    KnownError(
        ("TFD401",),
        re.compile(r"has no attribute '(experimental_run_v2|experimental_distribute_datasets_from_function)'"),
        "a distribution API removed from TensorFlow (`experimental_run_v2` is `run` since 2.2)",
        error_type="AttributeError",
    ),
    KnownError(
        ("TFD403",),
        re.compile(
            r"module 'keras[\w.]*\.(layers|utils)' has no attribute 'experimental'"
            r"|'LossScaleOptimizer' object has no attribute 'get_(scaled_loss|unscaled_gradients)'"
        ),
        "a Keras 2 name Keras 3 removed (`SyncBatchNormalization`, `get_scaled_loss`, `DatasetCreator`)",
        error_type="AttributeError",
    ),
    KnownError(
        ("TFD404",),
        re.compile(r"Trying to access resource \S*replica_\d+\S* .*located in device \S+ from device "),
        "XLA (`jit_compile=True`) around a step that spans the replicas of MirroredStrategy",
    ),
    KnownError(
        ("TFD111",),
        re.compile(r"(Virtual|Physical|Visible) devices cannot be modified after being initialized"),
        "device configuration (memory growth, logical or visible devices) after TensorFlow started",
    ),
    KnownError(
        ("TFD305",),
        re.compile(
            r"apply_gradients\(\) got an unexpected keyword argument '(experimental_aggregate_gradients"
            r"|skip_gradients_aggregation)'"
        ),
        "Keras 3 `apply_gradients` told to skip an aggregation it has no switch for",
        error_type="TypeError",
    ),
    KnownError(
        ("TFD114",),
        re.compile(r"SyncOnReadVariable does not support `?assign_add`? in cross-replica context"),
        "a tf-keras metric made in `strategy.scope()` is updated in cross-replica code",
    ),
    KnownError(
        ("TFD205",),
        re.compile(r"Could not apply FILE based sharding: the dataset only has \d+ file\(s\)"),
        "input read from fewer files than workers is auto-sharded by file",
    ),
    KnownError(
        ("TFD601", "TFD603"),
        re.compile(r"Could not start gRPC server"),
        "several processes claim the same task of the cluster (a hard-coded or malformed TF_CONFIG)",
    ),
    KnownError(
        ("TFD504",),
        re.compile(r"Attempt to convert a value \(PerReplica:|PerReplica.*unsupported type"),
        "Keras 3 `fit` under MultiWorkerMirroredStrategy",
    ),
    KnownError(
        ("TFD504",),
        re.compile(r"you need to pass this dataset to ClusterCoordinator\.create_per_worker_dataset"),
        "Keras 3 `fit` under ParameterServerStrategy",
    ),
)


def known_error(error: dict[str, Any], table: tuple[KnownError, ...] = KNOWN_ERRORS) -> KnownError | None:
    """The table's entry for a run's error record (``child/errors.py``), if any."""
    message = error.get("message") or ""
    for entry in table:
        if entry.error_type not in (None, error.get("type")):
            continue
        if entry.pattern.search(message):
            return entry
    return None


def _fix_text(finding: Finding) -> str:
    applicability = finding.fix.applicability if finding.fix is not None else None
    if applicability in (None, Applicability.DISPLAY_ONLY):
        return "distfix has no automatic fix for it (advice)"
    if applicability is Applicability.SAFE:
        return "`distfix fix` fixes it"
    return "`distfix fix --unsafe-fixes` fixes it"


def _rule_text(code: str, entry: KnownError) -> str:
    rule = default_registry().get(code)
    if rule is None:
        return f"{code} ({entry.what}; this distfix does not have that rule yet)"
    return f"{code} {rule.name}"


def explain(error: dict[str, Any], findings: list[Finding], table: tuple[KnownError, ...] = KNOWN_ERRORS) -> list[str]:
    """One line per rule that explains ``error``: the rule, the lines, and what ``distfix fix`` can do."""
    entry = known_error(error, table)
    if entry is None:
        return []
    where = f" (error at line {error['line']})" if error.get("line") else ""
    lines = []
    # When the script holds some of the rules that explain the error, those are the explanation:
    # naming the others too (a bare AssertionError is TFD101's or TFD113's) would only mislead.
    present = [code for code in entry.codes if any(f.code == code for f in findings)]
    for code in present or entry.codes:
        found = [f for f in findings if f.code == code]
        if found:
            at = ", ".join(str(f.start.line) for f in found)
            lines.append(
                f"{_rule_text(code, entry)} explains this error{where}: distfix check finds it at line {at}; "
                f"{_fix_text(found[0])}"
            )
            continue
        rule = default_registry().get(code)
        fix = (
            ""
            if rule is None
            else f"; the rule's fix is {rule.applicability.label}"
            if rule.has_fix()
            else "; the rule has no automatic fix"
        )
        lines.append(
            f"{_rule_text(code, entry)} explains this error{where}, but distfix check does not find it in this "
            f"script{fix}"
        )
    return lines
