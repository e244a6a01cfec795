"""Per-rule facts on CPython's tree: the pre-filter's fourth stage, before libcst is paid for.

The text stages (fixer/prefilter.py, fixer/code_text.py) ask whether a rule's words occur. Most
files of a distribution-heavy tree pass them (their strategies are real code), yet produce no
finding: a rule's ``check`` starts from a structure (a `with <x>.scope():` block, a
`strategy.run(fn)` call, `jit_compile=True`...) that the file does not hold. A :class:`Fact` names
that structure as a predicate over :class:`ModuleFacts`, one walk of the tree the engine already
parsed; a rule runs only when every fact it declares holds (:func:`fixer.engine.rules_in_code`),
and a file none of whose rules is left is not parsed by libcst at all.

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

from fixer.strategy_receivers import may_run_on_strategy, run_receiver
from fixer.tf.keras_models import STEP_METHODS
from fixer.tf.strategies import MULTI_WORKER_CLASSES, STRATEGY_CLASSES

if TYPE_CHECKING:
    from collections.abc import Callable

# The names a strategy constructor ends in (`get_strategy` only fetches the current one).
_STRATEGY_CLASS_NAMES = frozenset(name.rsplit(".", 1)[1] for name in STRATEGY_CLASSES) - {"get_strategy"}
_MULTI_WORKER_NAMES = frozenset(name.rsplit(".", 1)[1] for name in MULTI_WORKER_CLASSES)
_JIT_KEYWORDS = frozenset({"jit_compile", "experimental_compile"})
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
_DISTRIBUTE_MODULE = "tensorflow.distribute"
_COMPAT_V2_EXPERIMENTAL = "tensorflow.compat.v2.distribute.experimental"
_DATASET_DISTRIBUTION = frozenset(
    {
        "experimental_distribute_dataset",
        "distribute_datasets_from_function",
        "experimental_distribute_datasets_from_function",
    }
)


@dataclass(frozen=True)
class ModuleFacts:
    """What one walk of a module's CPython tree tells the facts.

    ``identifiers``: every name, attribute, keyword, import and definition name in the code.
    ``called``: the method names of calls `x.m(...)`; ``called_with_args``: those with arguments.
    ``defined``: names of functions and classes. ``jit_true``: a `jit_compile=True` (or
    `experimental_compile=True`) argument. ``scope_like_with``: a `with` entering `x.scope(...)`
    or a bare name or attribute (a scope object kept in a variable). ``def_in_with``: a function
    defined inside a `with` that may enter a scope, outside every function (classes may lie
    between: ReplicaModel.probable_replica_functions). ``strategy_run``: a `x.run(...)`,
    `x.experimental_run_v2(...)` or `x.extended.call_for_each_replica(...)` whose ``x`` may be a
    strategy (fixer/strategy_receivers.py). ``distribute_import``: a `from tensorflow.distribute...
    import` (or from `tensorflow.compat.v2.distribute.experimental`).
    """

    identifiers: frozenset[str]
    called: frozenset[str]
    called_with_args: frozenset[str]
    defined: frozenset[str]
    jit_true: bool
    scope_like_with: bool
    def_in_with: bool
    strategy_run: bool
    distribute_import: bool

    @classmethod
    def of(cls, tree: ast.Module) -> ModuleFacts:
        """The facts of ``tree``, in one iterative walk (trees may be deep)."""
        identifiers: set[str] = set()
        called: set[str] = set()
        called_with_args: set[str] = set()
        defined: set[str] = set()
        jit_true = scope_like_with = def_in_with = distribute_import = False
        receivers: list[ast.expr] = []
        # Per node: whether it lies in a `with` that may enter a scope (None: inside a function,
        # where a def is never the step of a scope's elided loop).
        stack: list[tuple[ast.AST, bool | None]] = [(tree, False)]
        while stack:
            node, in_with = stack.pop()
            if isinstance(node, ast.Name):
                identifiers.add(node.id)
                continue
            if isinstance(node, ast.Attribute):
                identifiers.add(node.attr)
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute):
                    called.add(node.func.attr)
                    if node.args or node.keywords:
                        called_with_args.add(node.func.attr)
                    receiver = run_receiver(node)
                    if receiver is not None:
                        receivers.append(receiver)
            elif isinstance(node, ast.keyword):
                if node.arg is not None:
                    identifiers.add(node.arg)
                    value = node.value
                    if node.arg in _JIT_KEYWORDS and isinstance(value, ast.Constant) and value.value is True:
                        jit_true = True
            elif isinstance(node, ast.ImportFrom):
                distribute_import = distribute_import or _imports_from_distribute(node)
            elif isinstance(node, ast.alias):
                identifiers.update(node.name.split("."))
                if node.asname:
                    identifiers.add(node.asname)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
                identifiers.add(node.name)
                if not isinstance(node, ast.ClassDef):
                    def_in_with = def_in_with or bool(in_with)
                    in_with = None
            elif isinstance(node, ast.Lambda):
                in_with = None
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                entering = any(_may_enter_scope(item.context_expr) for item in node.items)
                if entering and in_with is not None:
                    in_with = True
                scope_like_with = scope_like_with or entering
            stack.extend((child, in_with) for child in ast.iter_child_nodes(node))
        return cls(
            frozenset(identifiers),
            frozenset(called),
            frozenset(called_with_args),
            frozenset(defined),
            jit_true,
            scope_like_with,
            def_in_with,
            may_run_on_strategy(tree, receivers),
            distribute_import,
        )


def _imports_from_distribute(node: ast.ImportFrom) -> bool:
    module = node.module or ""
    return not node.level and (module.startswith(_DISTRIBUTE_MODULE) or module == _COMPAT_V2_EXPERIMENTAL)


def _may_enter_scope(entered: ast.expr) -> bool:
    """`with x.scope():`, or `with scope:` over a name or attribute that may hold one."""
    if isinstance(entered, (ast.Name, ast.Attribute)):
        return True
    return isinstance(entered, ast.Call) and isinstance(entered.func, ast.Attribute) and entered.func.attr == "scope"


@dataclass(frozen=True)
class Fact:
    """A structure a rule's ``check`` starts from; ``holds`` may say True for more modules."""

    name: str
    holds: Callable[[ModuleFacts], bool]


def _names_multi_worker(facts: ModuleFacts) -> bool:
    return not _MULTI_WORKER_NAMES.isdisjoint(facts.identifiers)


def _has_step_method(facts: ModuleFacts) -> bool:
    return not facts.defined.isdisjoint(STEP_METHODS)


SCOPE_BLOCK = Fact("a `with` that may enter a strategy scope", lambda f: f.scope_like_with)

MULTI_WORKER = Fact("a MultiWorkerMirroredStrategy named", _names_multi_worker)

# TFD101: creations are judged against scope blocks and strategy constructions; without either,
# only a helper module's Keras step methods (read by an importer's distributed `fit`) count.
STRATEGY_IN_PLAY = Fact(
    "a strategy scope, a strategy constructed, or a Keras step method",
    lambda f: f.scope_like_with or not _STRATEGY_CLASS_NAMES.isdisjoint(f.identifiers) or _has_step_method(f),
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


def facts_hold(facts: tuple[Fact, ...], module: ModuleFacts) -> bool:
    """True when every one of a rule's ``facts`` holds for ``module`` (no facts: always)."""
    return all(fact.holds(module) for fact in facts)
