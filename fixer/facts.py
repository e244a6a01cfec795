"""Per-rule facts on CPython's tree: the pre-filter's fourth stage, before libcst is paid for.

The text stages (fixer/prefilter.py, fixer/code_text.py) ask whether a rule's words occur. Most
files of a distribution-heavy tree pass them (their strategies are real code), yet produce no
finding: a rule's ``check`` starts from a structure (a `with <x>.scope():` block, a
`strategy.run(fn)` call, `jit_compile=True`...) that the file does not hold. A :class:`Fact` names
that structure as a predicate over :class:`fixer.ast_facts.ModuleFacts` (the one walk of the tree
the engine already parsed, shared by the stages before libcst); a rule runs only when every fact
it declares holds (:func:`fixer.engine.rules_in_code`), and a file none of whose rules is left is
not parsed by libcst at all.

Facts over-approximate, as the text stages do: each stands for a condition without which the
rule's ``check`` provably reports nothing, and matches more code than that condition (any
`with` over a name may enter a scope object; any `def` inside a `with` may be a step written for
the scope). A strategy class counts as present when its name occurs in the code, the assumption
the text stage's triggers (``"MultiWorkerMirroredStrategy"``, ``"MirroredStrategy"``) already make.
tests/test_facts.py runs every rule's Invalid examples and the corpus through them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fixer.class_calls import annotated_with, calls_of
from fixer.test_files import is_test_path
from fixer.tf.keras_models import STEP_METHODS
from fixer.tf.strategies import MULTI_WORKER_CLASSES, STRATEGY_CLASSES, STRATEGY_ONLY_ATTRIBUTES

if TYPE_CHECKING:
    from collections.abc import Callable

    from fixer.ast_facts import ModuleFacts

# The names a strategy constructor ends in (`get_strategy` only fetches the current one).
_STRATEGY_CLASS_NAMES = frozenset(name.rsplit(".", 1)[1] for name in STRATEGY_CLASSES) - {"get_strategy"}
_MULTI_WORKER_NAMES = frozenset(name.rsplit(".", 1)[1] for name in MULTI_WORKER_CLASSES)
_MIRRORED = frozenset({"MirroredStrategy"})
# TFD401's starting points (codemods/api/renamed_distribute_api.py): the strategy methods it renames
# or replaces, the last names of the experimental classes it renames, and the modules it imports from.
_RENAMED_DISTRIBUTE_NAMES = frozenset(
    {
        "experimental_run_v2",
        "experimental_distribute_datasets_from_function",
        "make_dataset_iterator",
        "experimental_run",
        "MultiWorkerMirroredStrategy",
        "TPUStrategy",
        "CollectiveCommunication",
    }
)
_DATASET_DISTRIBUTION = frozenset(
    {
        "experimental_distribute_dataset",
        "distribute_datasets_from_function",
        "experimental_distribute_datasets_from_function",
    }
)


def _anywhere(_: str) -> bool:
    return True


@dataclass(frozen=True)
class Fact:
    """A structure a rule's ``check`` starts from; ``holds`` may say True for more modules.

    ``on_path``: the files it may hold in, by their path (most facts: any file).
    """

    name: str
    holds: Callable[[ModuleFacts], bool]
    on_path: Callable[[str], bool] = _anywhere


def _names_multi_worker(facts: ModuleFacts) -> bool:
    return not _MULTI_WORKER_NAMES.isdisjoint(facts.identifiers)


def _has_step_method(facts: ModuleFacts) -> bool:
    return not facts.defined.isdisjoint(STEP_METHODS)


SCOPE_BLOCK = Fact("a `with` that may enter a strategy scope", lambda f: f.scope_like_with)

MULTI_WORKER = Fact("a MultiWorkerMirroredStrategy named", _names_multi_worker)

# TFD101: creations are judged against scope blocks and strategy constructions; without either,
# only a helper module's Keras step methods (read by an importer's distributed `fit`) count. A
# construction needs a strategy class named in the code (as above) and a call that may build one
# (a class named only in an `isinstance` test builds none).
STRATEGY_IN_PLAY = Fact(
    "a strategy scope, a strategy constructed, or a Keras step method",
    lambda f: (
        _has_step_method(f)
        or (not _STRATEGY_CLASS_NAMES.isdisjoint(f.identifiers) and f.strategy_constructed)
        or f.scope_like_with
    ),
)

# Replica functions: what `strategy.run` (or `extended.call_for_each_replica`) runs, Keras step
# overrides, and functions defined inside a scope block (steps whose loop is elided).
REPLICA_FUNCTION = Fact(
    "a replica function",
    lambda f: f.strategy_run or _has_step_method(f) or f.def_in_with,
)

# A call that may run a function on every replica of a strategy (`strategy.run`,
# `extended.call_for_each_replica`): not `session.run`.
RUN_CALL = Fact("a `strategy.run` call", lambda f: f.strategy_run)

# What `strategy.run` runs, and the Keras step overrides `fit` runs (ReplicaModel.replica_functions).
RUN_OR_STEP = Fact("a `strategy.run` call or a Keras step method", lambda f: f.strategy_run or _has_step_method(f))

# TFD110: steps `strategy.run` runs, Keras step overrides `fit` runs, or Keras 3 gradient accumulation.
REPLICA_STEP_OR_ACCUMULATION = Fact(
    "a `strategy.run` call, a Keras step method or `gradient_accumulation_steps`",
    lambda f: RUN_OR_STEP.holds(f) or "gradient_accumulation_steps" in f.identifiers,
)

# TFD401: a deprecated strategy method or experimental class named as an attribute or imported
# name (an attribute's qualified name ends in its own last name), or an import from
# `tensorflow.distribute...` (a stale module or an experimental class).
RENAMED_DISTRIBUTE_API = Fact(
    "a renamed strategy method or class, or an import from `tensorflow.distribute`",
    lambda f: f.distribute_import or not _RENAMED_DISTRIBUTE_NAMES.isdisjoint(f.identifiers),
)

# TFD404: XLA switched on, and a MirroredStrategy whose scope or `run` it spans.
JIT_UNDER_MIRRORED = Fact(
    "`jit_compile=True` and a MirroredStrategy",
    lambda f: f.jit_true and "MirroredStrategy" in f.identifiers,
)

# TFD203: a dataset handed to a strategy, `fit` of a model built in a scope block, or (for the
# worker counts spelled as strings) a multi-worker strategy.
DISTRIBUTED_INPUT = Fact(
    "a dataset distributed by a strategy or fitted under a scope",
    lambda f: (
        ("fit" in f.called_with_args and f.scope_like_with)
        or not f.called.isdisjoint(_DATASET_DISTRIBUTION)
        or _names_multi_worker(f)
    ),
)


def _given_devices(call: ast.Call) -> bool:
    # `_device_argument` of codemods/placement/hard_coded_device_list.py: the first argument when
    # positional (not starred), or `devices=`.
    return bool(call.args and not isinstance(call.args[0], ast.Starred)) or any(
        keyword.arg == "devices" for keyword in call.keywords
    )


# TFD112: a MirroredStrategy built with a device list (a name in a message, a comment or an
# `isinstance` test builds none; `MirroredStrategy()` lists no device).
MIRRORED_GIVEN_DEVICES = Fact(
    "a MirroredStrategy built with devices",
    lambda f: any(_given_devices(call) for call in calls_of(f, _MIRRORED)),
)

# TFD601-TFD603 look at no test file: a test's TF_CONFIG and clusters are fixtures
# (codemods/cluster/hardcoded_tf_config.py, fixer/tf/tf_config_sources.py:cluster_problems).
NOT_A_TEST = Fact("not a test file", lambda f: True, on_path=lambda path: not is_test_path(path))


# TFD103 (codemods/placement/train_step_outside_strategy_run.py): a step, or an inline loop, is
# reported only at an `apply_gradients`/`minimize` call whose optimizer or variables were created
# in a scope block (`Membership.INSIDE`: the creation, or a call site of its function, lies in one).
_UPDATES = frozenset({"apply_gradients", "minimize"})
UPDATES_SCOPE_VARIABLES = Fact(
    "an `apply_gradients`/`minimize` call and a `with` that may enter a strategy scope",
    lambda f: f.scope_like_with and not f.called.isdisjoint(_UPDATES),
)

# TFD104 (codemods/placement/several_strategies.py): a strategy construction whose scope blocks
# hold a call that creates or updates an object's variables (`name.fit(...)`: its _STATEFUL_USES).
STATEFUL_USES = frozenset(
    {
        "compile",
        "fit",
        "evaluate",
        "predict",
        "train_on_batch",
        "test_on_batch",
        "apply_gradients",
        "minimize",
        "build",
        "assign",
        "assign_add",
        "assign_sub",
    }
)
STATEFUL_USE_IN_BUILT_SCOPE = Fact(
    "a strategy constructed, a `with` that may enter its scope and a call that creates or updates variables",
    lambda f: f.scope_like_with and f.strategy_constructed and not f.called.isdisjoint(STATEFUL_USES),
)

# TFD304 (codemods/reduction/gradient_clipping_before_aggregation.py): a clip in a replica function
# (`strategy.run`'s or a Keras step) followed by `apply_gradients` in the same function, or a Keras
# optimizer given norm clipping in a scope block.
_NORM_CLIPPING = frozenset({"clipnorm", "global_clipnorm"})


def _clipped_on_replicas(facts: ModuleFacts) -> bool:
    if "apply_gradients" in facts.called and RUN_OR_STEP.holds(facts):
        return True
    return facts.scope_like_with and not facts.identifiers.isdisjoint(_NORM_CLIPPING)


CLIPPED_ON_REPLICAS = Fact(
    "`apply_gradients` with a replica function, or norm clipping with a strategy scope", _clipped_on_replicas
)

# TFD403 (codemods/api/keras3_removed_distribute_api.py): an attribute `x.SyncBatchNormalization` /
# `x.DatasetCreator` (a qualified name ends in its own last name), an import of one from a module
# `...experimental`, or the old loss-scaling methods called in a module that has a strategy.
_REMOVED_KERAS_NAMES = frozenset({"SyncBatchNormalization", "DatasetCreator"})
_OLD_LOSS_SCALING = frozenset({"get_scaled_loss", "get_unscaled_gradients"})
# StrategyModel.module_has_strategy: a strategy key used with one of these (or annotated, or built).
_USED_AS_STRATEGY = STRATEGY_ONLY_ATTRIBUTES | {"scope"}


def _imported_from_experimental(facts: ModuleFacts, names: frozenset[str]) -> bool:
    return any(
        type(node) is ast.ImportFrom
        and (node.module or "").endswith("experimental")
        and any(alias.name in names for alias in node.names)
        for node in facts.evidence
    )


def _may_have_strategy(facts: ModuleFacts) -> bool:
    """A necessary condition of `StrategyModel.module_has_strategy` (a strategy built, a parameter
    annotated with a strategy class, or a strategy key used as one)."""
    return (
        not facts.attributes.isdisjoint(_USED_AS_STRATEGY)
        or facts.strategy_constructed
        or annotated_with(facts, lambda name: name.endswith("Strategy"))
    )


def _keras3_removed_name(facts: ModuleFacts) -> bool:
    if not facts.attributes.isdisjoint(_REMOVED_KERAS_NAMES):
        return True
    if not _REMOVED_KERAS_NAMES.isdisjoint(facts.identifiers) and _imported_from_experimental(
        facts, _REMOVED_KERAS_NAMES
    ):
        return True
    return not facts.called.isdisjoint(_OLD_LOSS_SCALING) and _may_have_strategy(facts)


KERAS3_REMOVED_NAME = Fact("a Keras 2 distribution name Keras 3 removed", _keras3_removed_name)

# TFD504 (codemods/multiworker/keras3_fit_under_multiworker.py): `fit`/`evaluate` in a module that
# builds, or is typed with, a MultiWorkerMirroredStrategy or a ParameterServerStrategy
# (`StrategyModel.uses_multi_worker`, `_uses_parameter_server`: a class named in an `isinstance`
# test is neither).
_MULTI_WORKER_OR_PS = _MULTI_WORKER_NAMES | {"ParameterServerStrategy"}
_TRAINING = frozenset({"fit", "evaluate"})


def _fits_under_multi_worker(facts: ModuleFacts) -> bool:
    if facts.called.isdisjoint(_TRAINING) or _MULTI_WORKER_OR_PS.isdisjoint(facts.identifiers):
        return False
    return bool(calls_of(facts, _MULTI_WORKER_OR_PS)) or annotated_with(facts, _MULTI_WORKER_OR_PS.__contains__)


FITS_UNDER_MULTI_WORKER = Fact(
    "`fit`/`evaluate` and a multi-worker or parameter-server strategy built or annotated", _fits_under_multi_worker
)

# TFD604 (codemods/cluster/cluster_resolver_misuse.py): a call of a class whose signature it checks,
# without `*args`/`**kwargs` (which it leaves alone).
_SIGNATURE_CHECKED = frozenset(
    {"SimpleClusterResolver", "TFConfigClusterResolver", "ClusterSpec", "ParameterServerStrategy"}
)


def _unpacks(call: ast.Call) -> bool:
    return any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords)


RESOLVER_CALLED = Fact(
    "a cluster resolver, ClusterSpec or ParameterServerStrategy called",
    lambda f: any(not _unpacks(call) for call in calls_of(f, _SIGNATURE_CHECKED)),
)


def facts_hold(facts: tuple[Fact, ...], module: ModuleFacts, path: str = "") -> bool:
    """True when every one of a rule's ``facts`` holds for ``module``, the code of the file at
    ``path`` (no facts: always)."""
    return all(fact.on_path(path) and fact.holds(module) for fact in facts)
