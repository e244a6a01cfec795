"""TFD108: the result of `strategy.run` used as a plain tensor (`.numpy()`, `float()`, NumPy, formats)."""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import RUN_CALL
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.keras_flavour import keras_flavour, legacy_keras
from fixer.tf.one_replica_branches import in_one_replica_branch
from fixer.tf.replica_evidence import may_run_several_replicas
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike, ModuleIndex
    from fixer.tf.replica import RunCall

_PYTHON_NUMBERS = frozenset({"float", "int"})
# An f-string's prefix: `f"`, `rf'`, `fR"`... (the f next to the quote, or before an r that is).
_FSTRING_PREFIX = re.compile(r"[fF][rR]?['\"]")
# TensorFlow functions that accept a PerReplica (they walk composite values, or are the remedy).
# `tf.concat` wraps a lone value in a list and hands a PerReplica back as it is (measured).
_CONCAT = "tensorflow.concat"
_TF_ACCEPTS_PER_REPLICA = ("tensorflow.nest.", "tensorflow.distribute.", "tensorflow.print", "tensorflow.function")


class PerReplicaValueUsedAsTensor(Rule):
    """
    ## What it does
    Finds the result of `strategy.run` used as if it were one tensor in cross-replica code:
    `.numpy()`, `float()`/`int()`, a NumPy function, an f-string format such as `{loss:.4f}`, or a
    TensorFlow op.

    ## Why is this bad in distributed training?
    With more than one replica, `strategy.run` returns a `PerReplica` value (one tensor per
    replica), not a tensor. Measured on TensorFlow 2.21 with two replicas, under Keras 3 and
    tf-keras alike: `.numpy()` raises `AttributeError: 'PerReplica' object has no attribute
    'numpy'`; `float()` raises `TypeError: float() argument must be a string or a real number, not
    'PerReplica'`; `np.mean` raises `TypeError: unsupported operand type(s) for /: 'PerReplica'
    and 'int'`; `f"{loss:.3f}"` raises `TypeError: unsupported format string passed to
    PerReplica.__format__`; `tf.reduce_sum` raises `ValueError: It looks like you are using a
    PerReplica object while not inside a replica context`; `tf.concat` does not raise, it returns
    the PerReplica unchanged, parts not joined. With one replica `strategy.run`
    returns the tensor itself and all of these work, so the script breaks on the day it first runs
    on two GPUs. (`print(result)` and `str(result)` do not raise: they show every replica's value.)
    One case differs by Keras: a replica function that returns metric results (`acc.result()`)
    gives a PerReplica on Keras 3 but one merged tensor on tf-keras, so it is reported, "on
    Keras 3", only where Keras 3 may be in play.

    ## Fix safety
    Display-only: whether the per-replica values should be summed, averaged or looked at one by
    one is the author's choice. Use `strategy.reduce(tf.distribute.ReduceOp.SUM, result,
    axis=None)` (a loss computed with `tf.nn.compute_average_loss`) or `ReduceOp.MEAN`, or
    `strategy.experimental_local_results(result)` for the per-replica tensors.

    ## Known limits
    - Only a run on a strategy that may have several tf.distribute replicas is followed: not one
      whose receiver can only hold a strategy class distfix does not know (a vendor's, such as
      Graphcore's `IPUStrategy`, whose replication happens inside the compiled program),
      `OneDeviceStrategy`, or the default strategy (`tf.distribute.get_strategy()` outside every
      scope), whatever arm of the program built it.
    - The result is followed directly, through a name, or when returned by a step that returns
      `strategy.run(...)`; other ways of passing it on are not followed.
    - A metric result is recognised as a `return` of `<name>.result()` (alone, or in a tuple, list
      or dict) in the replica function; the Keras is the project's (docs/target.md).
    - A use where a replica-count test says there is one replica (the `else:` of `if
      strategy.num_replicas_in_sync > 1`, directly or through a name given that count, or the
      body of `== 1`) is not reported: `strategy.run` returns plain tensors there. The count may
      also be read through a class member that gives it (`self.args.n_replicas`, a property
      returning `num_replicas_in_sync` or an attribute set to it, in a class of the module or of
      a project module it imports; matched by the member's name, one level). The count is not
      matched to the strategy that runs the step.

    ## Runtime evidence
    `distfix validate` with two replicas shows the `runs` check failing with the error above.

    Measured on TensorFlow 2.21 with 2 replicas, Keras 3 and tf-keras alike
    (`benchmarks/probe_replica_function_calls.py`, output in `docs/probes.md`): each of the
    errors above, `print`/`str` showing every replica, and `strategy.reduce(SUM, result,
    axis=None)` giving the number; `tf.concat` of the PerReplica itself, eagerly and in a
    `tf.function` (`benchmarks/probe_concat_of_per_replica.py`); a metric's `result()` returned
    by `strategy.run`, a PerReplica on Keras 3 and one tensor on tf-keras
    (`benchmarks/probe_ledger8b_premises.py`); with one replica (the default strategy,
    `MirroredStrategy` over one device) `strategy.run` returns an `EagerTensor` whose `.numpy()`
    works (`benchmarks/probe_ledger13b_premises.py`, `benchmarks/probe_ledger17a_premises.py`).

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#run
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#reduce
    """

    code = "TFD108"
    name = "per-replica-value-used-as-tensor"
    message = "a `strategy.run` result (PerReplica) used as a tensor"
    applicability = Applicability.DISPLAY_ONLY
    triggers = (".run(", "experimental_run_v2")
    needs = (STRATEGY,)
    facts = (RUN_CALL,)

    def check(self, ctx: RuleContext) -> None:
        if ctx.tf.strategies.single_replica or not ctx.tf.replica.proven_run_calls:
            return
        sources = _PerReplicaSources(ctx)
        # tf-keras hands a metric's `result()` back from `strategy.run` as one merged tensor.
        keras2 = keras_flavour("tensorflow", legacy_keras(ctx.tf), ctx.tf.target) == 2
        for call in ctx.index.calls:
            for value in _tensor_uses(ctx, call):
                prefix = _keras3_prefix(ctx.index, sources.runs_of(value), keras2)
                if prefix is not None and not _replica_or_one_replica_code(ctx, call):
                    ctx.report(call, _message(ctx, call, prefix))
        for fstring in _formatted_expressions(ctx.index, ctx.text):
            prefix = _keras3_prefix(ctx.index, sources.runs_of(fstring.expression), keras2)
            if prefix is not None and not _replica_or_one_replica_code(ctx, fstring):
                ctx.report(
                    fstring,
                    prefix + "a format spec raises on a `strategy.run` result (a PerReplica value with more than one "
                    "replica); reduce it first (`strategy.reduce`) or format its local results",
                )


def _replica_or_one_replica_code(ctx: RuleContext, node: cst.CSTNode) -> bool:
    """``node`` runs in a replica function (a tensor there), or only where a replica-count test
    says there is one replica (`strategy.run` then returns the tensors themselves)."""
    return ctx.tf.replica.in_proven_replica_context(node) or in_one_replica_branch(ctx.tf, node)


def _keras3_prefix(index: ModuleIndex, runs: list[RunCall], keras2: bool) -> str | None:
    """None when the value is no `strategy.run` result, or is only metric results on Keras 2
    (merged into one tensor there); "on Keras 3, " when every run it comes from returns metric
    results (a PerReplica on Keras 3 only); "" otherwise (a PerReplica on both Kerases)."""
    if not runs:
        return None
    if not all(run.targets and all(_returns_metric_results(index, t) for t in run.targets) for run in runs):
        return ""
    return None if keras2 else "on Keras 3, "


def _returns_metric_results(index: ModuleIndex, function: FunctionLike) -> bool:
    """Every `return` of ``function`` gives `<metric>.result()` values (alone, or in a tuple,
    list or dict): measured (benchmarks/probe_ledger8b_premises.py) to come back from
    `strategy.run` as one merged tensor on tf-keras."""
    if isinstance(function, cst.Lambda):
        values: list[cst.BaseExpression | None] = [function.body]
    else:
        values = [node.value for node in index.in_function("returns", function)]
    return bool(values) and all(value is not None and _metric_results(value) for value in values)


def _metric_results(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Tuple | cst.List):
        return bool(value.elements) and all(_metric_results(e.value) for e in value.elements)
    if isinstance(value, cst.Dict):
        return bool(value.elements) and all(
            isinstance(e, cst.DictElement) and _metric_results(e.value) for e in value.elements
        )
    return (
        isinstance(value, cst.Call)
        and not value.args
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "result"
    )


def _message(ctx: RuleContext, call: cst.Call, prefix: str) -> str:
    what = ctx.source(call.func) if not isinstance(call.func, cst.Attribute) else f".{call.func.attr.value}()"
    if ctx.tf.names.callee(call) == _CONCAT:
        # Measured (benchmarks/probe_concat_of_per_replica.py): no error, the value comes back as is.
        parts = "a PerReplica, its parts" if prefix else "a PerReplica value, its replicas' parts"
        return (
            f"{prefix}`{what}` returns a `strategy.run` result unchanged ({parts} not "
            "joined) instead of one tensor; concatenate `strategy.experimental_local_results(value)` or reduce it"
        )
    return (
        f"{prefix}`{what}` raises on a `strategy.run` result (a PerReplica value with more than one replica); "
        "reduce it first (`strategy.reduce`) or use `strategy.experimental_local_results(value)`"
    )


def _tensor_uses(ctx: RuleContext, call: cst.Call) -> list[cst.BaseExpression]:
    """The expressions ``call`` uses as one tensor or number: its receiver for ``.numpy()``, the
    argument of ``float``/``int``, the first argument of a NumPy or TensorFlow function."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "numpy" and not call.args:
        return [func.value]
    if not call.args or call.args[0].keyword is not None or call.args[0].star:
        return []
    first = call.args[0].value
    if isinstance(func, cst.Name) and func.value in _PYTHON_NUMBERS and ctx.tf.names.qualified(func) is None:
        return [first]
    qualified = ctx.tf.names.callee(call) or ""
    if qualified.startswith("numpy."):
        return [first]
    if qualified.startswith("tensorflow.") and not qualified.startswith(_TF_ACCEPTS_PER_REPLICA):
        return [first]
    return []


def _formatted_expressions(index: ModuleIndex, text: str) -> list[cst.FormattedStringExpression]:
    """Every ``{value:spec}`` of every f-string (those with a format spec), in source order.

    Read from the index, which holds every node: a second visit of the tree costs more than all
    the rest of the rule on a long file. A text without an f-string prefix needs no scan."""
    if not _FSTRING_PREFIX.search(text):
        return []
    return [node for node in index.order if type(node) is cst.FormattedStringExpression and node.format_spec]


class _PerReplicaSources:
    """Which expressions hold what a proven `strategy.run` returned (a PerReplica value)."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        # A run on a strategy class distfix does not know (a vendor's), on OneDeviceStrategy or on
        # the default strategy hands back plain values: no PerReplica to misuse.
        self.runs = {
            id(run.call): run
            for run in ctx.tf.replica.proven_run_calls
            if may_run_several_replicas(ctx.tf, run.strategy)
        }

    def runs_of(self, node: cst.BaseExpression, depth: int = 0) -> list[RunCall]:
        """The `strategy.run` calls whose result (or an element of it) ``node`` evaluates to;
        [] when it is none."""
        if depth > 4:
            return []
        if isinstance(node, cst.Subscript):
            return self.runs_of(node.value, depth + 1)
        if isinstance(node, cst.Call):
            if id(node) in self.runs:
                return [self.runs[id(node)]]
            # Every def the name may call returns a run result (a notebook may redefine the step).
            callees = self._callees(node)
            if not callees or not all(f in self._run_returning for f in callees):
                return []
            return [run for f in callees for run in self._returned_runs(f)]
        if isinstance(node, cst.Name):
            value = self._reaching_value(node)
            return [] if value is None else self.runs_of(value, depth + 1)
        return []

    def _returned_runs(self, function: FunctionLike) -> list[RunCall]:
        """The `strategy.run` calls a run-returning function gives back."""
        found: list[RunCall] = []
        for ret in self.ctx.index.in_function("returns", function):
            value = ret.value
            if isinstance(value, cst.Name):
                value = self._reaching_value(value)
            if isinstance(value, cst.Call) and id(value) in self.runs:
                found.append(self.runs[id(value)])
        return found

    def _callees(self, call: cst.Call) -> list[FunctionLike]:
        """The functions of this module the call may run (``step = tf.function(fn)`` followed)."""
        if self.ctx.tf.names.qualified(call.func) is not None:
            return []
        return self.ctx.tf.replica.resolve_callable(call.func, call)

    @cached_property
    def _run_returning(self) -> frozenset[cst.FunctionDef]:
        """Functions every `return` of which gives back a `strategy.run` result."""
        found = set()
        for func in self.ctx.index.functions:
            returns = [r for r in self.ctx.index.in_function("returns", func)]
            if returns and all(r.value is not None and self._is_run_value(r.value) for r in returns):
                found.add(func)
        return frozenset(found)

    def _is_run_value(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call):
            return id(node) in self.runs
        if isinstance(node, cst.Name):
            value = self._reaching_value(node)
            return isinstance(value, cst.Call) and id(value) in self.runs
        return False

    def _reaching_value(self, name: cst.Name) -> cst.BaseExpression | None:
        """The value of the last assignment to ``name`` in its own function that can reach it; for
        a name unpacked from a tuple assignment (``a, b = value``), ``value`` itself."""
        scope = self.ctx.index.enclosing_function(name) or self.ctx.module
        reaching = [
            b.statement
            for b in self.ctx.tf.semantic.resolve(name)
            if b.scope.node is scope and isinstance(b.statement, cst.Assign | cst.AnnAssign | cst.AugAssign)
        ]
        if not reaching or isinstance(reaching[-1], cst.AugAssign):
            return None
        return reaching[-1].value
