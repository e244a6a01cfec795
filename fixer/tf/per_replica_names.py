"""Names that hold the per-replica result of `strategy.run`, not a whole batch.

`batch = strategy.run(split)` where `split` returns `batch[replica_id_in_sync_group]` leaves in
`batch` one value per replica; handed on to `strategy.run(step, args=(batch,))`, each replica
receives its own value, so the batch is already split (TFD201 has nothing to report).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.model import TFModel


def holds_run_result(tf: TFModel, value: cst.BaseExpression) -> bool:
    """``value`` is a name (or an item of one, `batch[0]`) that every binding reaching it sets to
    the result of a `strategy.run(...)` call of the module."""
    while isinstance(value, cst.Subscript):
        value = value.value
    if not isinstance(value, cst.Name):
        return False
    runs = {id(run.call) for run in tf.replica.run_calls}
    bindings = tf.semantic.resolve(value)
    return bool(bindings) and all(binding.value is not None and id(binding.value) in runs for binding in bindings)
