"""Values each replica owns by design: what `strategy.experimental_distribute_values_from_function(fn)`
makes, one value per replica (`fn(ctx)` on each), followed to a replica function's parameter.

Model parallelism builds its partitioned weights so: ``w = strategy.experimental_distribute_values_from_function(
lambda ctx: tf.Variable(<the ctx.replica_id_in_sync_group-th slice>))``, handed to `strategy.run`,
gives every replica a distinct variable of its own. Updating it from the replica's own gradient is
the design, not drift (TFD301, ledger12b class 7): there is no copy on another replica to agree with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.tf.bindings import assigned_values
from fixer.tf.names import dotted_name
from fixer.tf.parameters import positional_parameters

if TYPE_CHECKING:
    from fixer.semantic.bindings import Binding
    from fixer.tf.model import TFModel

_FROM_FUNCTION = frozenset({"experimental_distribute_values_from_function", "distribute_values_from_function"})


def made_per_replica(tf: TFModel, value: cst.BaseExpression, depth: int = 0) -> bool:
    """``value`` holds what `experimental_distribute_values_from_function` made: the call itself; a
    name every binding reaching it sets so (a parameter of a function `strategy.run` runs, when each
    such run passes such a value in its place); ``self.x`` whose last assignment in the module does."""
    if depth > 3:
        return False
    if isinstance(value, cst.Call):
        func = value.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in _FROM_FUNCTION
            and tf.strategies.is_strategy(func.value)
        )
    if isinstance(value, cst.Attribute):
        key = dotted_name(value)
        if key is None or key.split(".", 1)[0] not in ("self", "cls"):
            return False
        values = assigned_values(tf.index, key)
        return bool(values) and made_per_replica(tf, values[-1], depth + 1)
    if not isinstance(value, cst.Name):
        return False
    bindings = tf.semantic.resolve(value)
    return bool(bindings) and all(_binds_per_replica(tf, binding, depth) for binding in bindings)


def _binds_per_replica(tf: TFModel, binding: Binding, depth: int) -> bool:
    if binding.kind is BindingKind.PARAMETER:
        func = binding.scope.node
        passed = _run_arguments(tf, func, binding.name)
        return bool(passed) and all(made_per_replica(tf, arg, depth + 1) for arg in passed)
    return binding.value is not None and made_per_replica(tf, binding.value, depth + 1)


def _run_arguments(tf: TFModel, func: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """What the `strategy.run` calls running ``func`` pass for its parameter ``name`` (the element of a
    literal ``args=(...)`` tuple in its place); [] when one of them cannot be read so."""
    if not isinstance(func, (cst.FunctionDef, cst.Lambda)):
        return []
    names = [p.name.value for p in positional_parameters(func)]
    if name not in names:
        return []
    position = names.index(name)
    found: list[cst.BaseExpression] = []
    for run in tf.replica.run_calls:
        if func not in run.targets:
            continue
        args = run.args
        if not isinstance(args, (cst.Tuple, cst.List)) or position >= len(args.elements):
            return []
        element = args.elements[position]
        if isinstance(element, cst.StarredElement):
            return []
        found.append(element.value)
    return found
