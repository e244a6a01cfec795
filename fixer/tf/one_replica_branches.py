"""Code that runs only with one replica: the arm of a replica-count test that says so.

`REPLICAS = strategy.num_replicas_in_sync`, then `if REPLICAS > 1: ... .values[0] ...` `else:
x.numpy()`: the `else` runs with one replica, where `strategy.run` returns the replica function's
tensors themselves (measured, benchmarks/probe_ledger13b_premises.py). The count may also be read
through a class member of the project that gives it (`if self.args.n_replicas > 1:`, with
`n_replicas` a property returning `num_replicas_in_sync` in this module or one it imports;
benchmarks/probe_ledger17a_premises.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

_REPLICA_COUNT = "num_replicas_in_sync"
# `k OP count` read as `count OP' k`.
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# `not (count OP k)` read as `count OP' k`.
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_OPERATORS: dict[type[cst.BaseCompOp], str] = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}


def in_one_replica_branch(tf: TFModel, node: cst.CSTNode) -> bool:
    """True when ``node`` runs only where a test on `num_replicas_in_sync` (read directly, through
    a name given it or through a project class member giving it) says there is one replica: the
    body of `== 1` / `<= 1` / `< 2`, the `else` of `> 1` / `>= 2` / `!= 1`, or after an
    `if count > 1: return`."""
    return any(_one_replica(tf, condition.test, condition.holds) for condition in tf.semantic.conditions(node))


def _one_replica(tf: TFModel, test: cst.BaseExpression, holds: bool) -> bool:
    """``test`` being ``holds`` means a replica count of at most one (a count is never below one)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    operator = _OPERATORS.get(type(target.operator))
    if operator is None:
        return False
    left, right = test.left, target.comparator
    if _is_replica_count(tf, left) and isinstance(right, cst.Integer):
        limit = int(right.value, 0)
    elif _is_replica_count(tf, right) and isinstance(left, cst.Integer):
        limit, operator = int(left.value, 0), _MIRRORED[operator]
    else:
        return False
    if not holds:
        operator = _NEGATED[operator]
    return (operator in ("==", "<=") and limit <= 1) or (operator == "<" and limit <= 2)


def _is_replica_count(tf: TFModel, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """``expr`` is ``<strategy>.num_replicas_in_sync``, a class member of the project that gives it
    (``self.args.n_replicas``, a property returning the count: fixer/tf/replica_count_members.py),
    or a name whose one value there is one of these."""
    if isinstance(expr, cst.Name):
        value = tf.semantic.value_of(expr)
        return depth == 0 and value is not None and _is_replica_count(tf, value, depth + 1)
    if not isinstance(expr, cst.Attribute):
        return False
    name = expr.attr.value
    return name == _REPLICA_COUNT or name in tf.project.replica_count_members
