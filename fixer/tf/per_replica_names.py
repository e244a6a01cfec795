"""Names that hold the per-replica result of `strategy.run`, not a whole batch.

`batch = strategy.run(split)` where `split` returns `batch[replica_id_in_sync_group]` leaves in
`batch` one value per replica; handed on to `strategy.run(step, args=(batch,))`, each replica
receives its own value, so the batch is already split (TFD201 has nothing to report).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind

if TYPE_CHECKING:
    from fixer.semantic.bindings import Binding
    from fixer.tf.model import TFModel


def holds_run_result(tf: TFModel, value: cst.BaseExpression, depth: int = 0) -> bool:
    """``value`` is a name (or an item of one, `batch[0]`) that every binding reaching it sets to
    the result of a `strategy.run(...)` call of the module; a parameter, when every call of its
    function passes such a name."""
    while isinstance(value, cst.Subscript):
        value = value.value
    if not isinstance(value, cst.Name) or depth > 3:
        return False
    runs = {id(run.call) for run in tf.replica.run_calls}
    bindings = tf.semantic.resolve(value)
    return bool(bindings) and all(_sets_run_result(tf, binding, runs, depth) for binding in bindings)


def _sets_run_result(tf: TFModel, binding: Binding, runs: set[int], depth: int) -> bool:
    if binding.kind is BindingKind.PARAMETER and isinstance(binding.statement, cst.FunctionDef):
        passed = tf.replica.arguments_for(binding.statement, binding.name)
        return bool(passed) and all(arg is not None and holds_run_result(tf, arg, depth + 1) for _, arg in passed or ())
    return binding.value is not None and id(binding.value) in runs
