"""TFD102: an assignment made by replica 0 (or the chief) only, inside a replica function."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.edits import reindented_statements
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.calls import calls_within
from fixer.tf.dataflow import value_names
from fixer.tf.parameters import has_parameter
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_GUARD_ATTRIBUTES = frozenset({"replica_id_in_sync_group", "task_id", "is_chief"})
_ASSIGNS = frozenset({"assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub"})


def _attributes(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class _Collect(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> None:
            found.add(attribute.attr.value)

        def visit_Name(self, name: cst.Name) -> None:
            found.add("name:" + name.value)

    node.visit(_Collect())
    return found


class ReplicaZeroOnlyAssignment(Rule):
    """
    ## What it does
    Inside a replica function (given to `strategy.run`, or a helper it calls), finds `assign`,
    `assign_add`, `assign_sub` (and scatter updates) guarded by the replica id
    (`get_replica_context().replica_id_in_sync_group == 0`), the task id or a chief flag — as an
    `if`, a conditional expression, or `tf.cond(tf.equal(replica_id, 0), lambda: v.assign(x), ...)`.

    ## Why is this bad in distributed training?
    Every replica holds its own copy of a mirrored variable. When only replica 0 assigns, the
    other copies keep their old value: measured on TensorFlow 2.21, per-replica values
    `[[5, 7], [0, 0]]` after `v.assign([5, 7])` on replica 0 — and a cross-replica read returns
    replica 0's copy, which hides the divergence. With `aggregation=MEAN` or
    `ONLY_FIRST_REPLICA` the same code raises `RuntimeError: Some replicas made a different
    number of replica_context().merge_call() calls`.

    ## Fix safety
    Unsafe. When the guard holds only the assignment(s), has no `else`, and the assigned value
    is the same on every replica (literals, constants, module-level names, `self` attributes,
    closure captures of cross-replica code, a helper's parameter that every call of the helper
    gives such a value), the guard is removed so that every replica assigns it (verified to give
    `[[5, 7], [5, 7]]`); the same for a conditional-expression statement
    (`v.assign(x) if rid == 0 else None` becomes `v.assign(x)`). When the value may differ per replica (the replica
    function's parameters such as a batch or a loss, values computed from them, random ops),
    dropping the guard would store a different value on each copy: the finding says to assign an
    all-reduced value (`tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN,
    value)`), or to assign once in cross-replica code from the result of `strategy.run`. Other
    code under the guard, an `else`, `rid == 0 and v.assign(x)`, a
    conditional expression inside a larger expression and `tf.cond` also get advice.

    ## Known limits
    - Programs whose only strategy is `OneDeviceStrategy` have one replica and are not reported.

    ## Runtime evidence
    `distfix validate` reports check `replicas-consistent` failing for the original (the copies
    differ) and passing for the fixed script.

    Measured on TensorFlow 2.21 with 2 replicas, Keras 3 and tf-keras alike
    (`benchmarks/probe_replica_function_calls.py`, output in `docs/probes.md`): replica 0 alone
    assigning `[5, 7]` leaves the copies at `[[5, 7], [0, 0]]` while the cross-replica read
    shows `[5, 7]`; with `aggregation=MEAN` or `ONLY_FIRST_REPLICA` it raises `RuntimeError`
    (eagerly the `merge_call` count error above; inside a `tf.function`, `merge_call called
    while defining a new graph or a tf.function`); every replica assigning gives `[[5, 7], [5,
    7]]`.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext
    - https://www.tensorflow.org/api_docs/python/tf/distribute/StrategyExtended#update
    """

    code = "TFD102"
    name = "replica-zero-only-assignment"
    message = "variable assigned on one replica only"
    fix_title = "Assign on every replica"
    applicability = Applicability.UNSAFE
    triggers = ("replica_id_in_sync_group", "task_id", "is_chief")
    needs = (STRATEGY,)

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if ctx.tf.strategies.single_replica:
            return  # OneDeviceStrategy: replica 0 is every replica
        for node in ctx.index.ifs:
            if replica.in_replica_context(node) and self._guards_on_replica(ctx, node.test, node):
                self._report_if(ctx, node)
        reported: set[int] = set()
        for call in ctx.index.calls:
            if (
                isinstance(call.func, cst.Attribute)
                and call.func.attr.value in _ASSIGNS
                and replica.in_replica_context(call)
            ):
                guard = self._expression_guard(ctx, call)
                if guard is not None and id(guard) not in reported:
                    reported.add(id(guard))
                    self._report_expression(ctx, guard, call)
        for call in ctx.index.calls:
            if ctx.tf.names.callee(call) in _CONDS and replica.in_replica_context(call):
                self._check_cond(ctx, call)

    def _expression_guard(self, ctx: RuleContext, call: cst.Call) -> cst.IfExp | cst.BooleanOperation | None:
        """The conditional expression (``v.assign(x) if rid == 0 else None``) or ``rid == 0 and
        v.assign(x)`` around ``call`` in the same statement whose test is the replica id."""
        child: cst.CSTNode = call
        for ancestor in ctx.index.ancestors(call):
            if isinstance(ancestor, (cst.BaseStatement, cst.BaseSmallStatement, cst.FunctionDef, cst.Lambda)):
                return None
            if isinstance(ancestor, cst.IfExp) and child is not ancestor.test:
                if self._guards_on_replica(ctx, ancestor.test, ancestor):
                    return ancestor
            if (
                isinstance(ancestor, cst.BooleanOperation)
                and isinstance(ancestor.operator, cst.And)
                and child is ancestor.right
                and self._guards_on_replica(ctx, ancestor.left, ancestor)
            ):
                return ancestor
            child = ancestor
        return None

    def _report_expression(self, ctx: RuleContext, guard: cst.IfExp | cst.BooleanOperation, call: cst.Call) -> None:
        """A guard written as an expression: drop it when it is a whole statement that only assigns a
        value that is the same on every replica, else advice."""
        statement = ctx.index.parent.get(guard)
        whole = (
            isinstance(guard, cst.IfExp)
            and guard.body is call
            and isinstance(statement, cst.Expr)
            and not guard.lpar
            and isinstance(guard.orelse, (cst.Name, cst.Integer, cst.Float, cst.SimpleString))
            and (not isinstance(guard.orelse, cst.Name) or guard.orelse.value in ("None", "True", "False"))
        )
        if not whole:
            ctx.report(guard, self._advice())
            return
        if not self._invariant_value(ctx, call, guard):
            value = ctx.source(call.args[0].value) if call.args else "the value"
            ctx.report(guard, self._varying_advice(value))
            return
        ctx.report(
            guard,
            "only replica 0 assigns, so the other copies keep their old value; every replica should assign "
            "the same value (guard removed)",
            edits=[ctx.replace(guard, ctx.source(call))],
        )

    def _varying_advice(self, value: str) -> str:
        return (
            f"only one replica assigns, and `{value}` differs per replica: assign an all-reduced value on every "
            "replica, or assign once in cross-replica code from the result of `strategy.run`"
        )

    def _check_cond(self, ctx: RuleContext, call: cst.Call) -> None:
        """`tf.cond(tf.equal(replica_id, 0), lambda: v.assign(x), ...)`: the graph form of the guard."""
        positional = [a.value for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        pred = keywords.get("pred", positional[0] if positional else None)
        branches = [
            keywords.get("true_fn", positional[1] if len(positional) > 1 else None),
            keywords.get("false_fn", positional[2] if len(positional) > 2 else None),
        ]
        if pred is None or not self._guards_on_replica(ctx, pred, call):
            return
        for branch in branches:
            if branch is None:
                continue
            bodies = [branch] if isinstance(branch, cst.Lambda) else ctx.tf.replica.resolve_callable(branch, call)
            if any(self._assigns(body) for body in bodies):
                ctx.report(call, "`tf.cond` on the replica id: " + self._advice())
                return

    def _guards_on_replica(self, ctx: RuleContext, test: cst.BaseExpression, near: cst.CSTNode) -> bool:
        found = _attributes(test)
        if found & _GUARD_ATTRIBUTES:
            return True
        func = ctx.index.enclosing_function(near)
        local_names = {f[5:] for f in found if f.startswith("name:")}
        if local_names & {"is_chief", "task_id"}:
            return True
        for assign in ctx.index.in_function("assigns", func):
            if not isinstance(assign, cst.Assign):
                continue
            bound = {t.target.value for t in assign.targets if isinstance(t.target, cst.Name)}
            if bound & local_names and _attributes(assign.value) & _GUARD_ATTRIBUTES:
                return True
        return False

    def _assigns(self, node: cst.CSTNode) -> bool:
        found = _attributes(node)
        return bool(found & _ASSIGNS)

    def _advice(self) -> str:
        return (
            "only one replica assigns, so the other copies keep their old value; assign the same value on "
            "every replica, or assign once in cross-replica code outside `strategy.run`"
        )

    def _report_if(self, ctx: RuleContext, node: cst.If) -> None:
        if not self._assigns(node.body) and not (node.orelse is not None and self._assigns(node.orelse)):
            return
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        only_assigns = bool(body) and all(
            isinstance(s, cst.SimpleStatementLine)
            and all(
                isinstance(small, cst.Expr)
                and isinstance(small.value, cst.Call)
                and isinstance(small.value.func, cst.Attribute)
                and small.value.func.attr.value in _ASSIGNS
                for small in s.body
            )
            for s in body
        )
        if node.orelse is not None or not only_assigns:
            ctx.report(node.test, self._advice())
            return
        # Each statement is a lone `v.assign(...)` call (only_assigns).
        calls = [
            cst.ensure_type(cst.ensure_type(small, cst.Expr).value, cst.Call)
            for statement in body
            for small in cst.ensure_type(statement, cst.SimpleStatementLine).body
        ]
        varying = [call for call in calls if not self._invariant_value(ctx, call, node)]
        if varying:
            value = ctx.source(varying[0].args[0].value) if varying[0].args else "the value"
            ctx.report(node.test, self._varying_advice(value))
            return
        _, end = ctx.statement_block(list(body))
        moved = reindented_statements(ctx, list(body), ctx.indentation(node))
        # The guard line goes with its comment (`# Only chief worker`): it describes the guard.
        if_start = ctx.textmap.line_starts[ctx.range(node).start.line - 1]
        ctx.report(
            node.test,
            "only replica 0 assigns, so the other copies keep their old value; every replica should assign "
            "the same value (guard removed)",
            edits=[Edit(if_start, end, moved)],
        )

    def _invariant_value(self, ctx: RuleContext, call: cst.Call, near: cst.CSTNode) -> bool:
        """True when the value ``call`` assigns is the same on every replica.

        Literals, constants, imported names, module-level names, closure captures of a function
        that is not a replica function, and ``self`` attributes are; the replica function's
        parameters (they may be per-replica batches or losses), values computed from them, loop
        variables, random ops and the replica id are not.
        """
        values = [a.value for a in call.args[:1]]
        return all(_same_on_every_replica(ctx, value, near, 0) for value in values)


_CONDS = frozenset({"tensorflow.cond", "tensorflow.compat.v1.cond"})
_VARYING_ATTRIBUTES = frozenset({"replica_id_in_sync_group"})


def _same_on_every_replica(ctx: RuleContext, value: cst.BaseExpression, near: cst.CSTNode, depth: int) -> bool:
    if depth > 3:
        return False
    attributes = _attributes(value)
    if attributes & _VARYING_ATTRIBUTES:
        return False
    for call in calls_within(value):
        callee = ctx.tf.names.callee(call) or ""
        if callee.startswith(("tensorflow.random.", "keras.random.")) or not callee and isinstance(call.func, cst.Name):
            # random ops differ per replica; a local function's result is unknown
            return False
    replica = ctx.tf.replica
    for name in value_names(value) - {"self", "True", "False", "None"}:
        if ctx.tf.names.qualified(cst.Name(name)) is not None:
            continue
        func = ctx.index.enclosing_function(near)
        while func is not None:
            in_replica = func in replica.replica_functions or isinstance(func, cst.Lambda)
            if has_parameter(func, name):
                if in_replica and not _arguments_same(ctx, func, name, depth):
                    return False
                break  # a closure capture of cross-replica code, or the same argument from every call
            assigned = [
                a.value
                for a in ctx.index.in_function("assigns", func)
                if isinstance(a, cst.Assign) and any(name in _target_names(t.target) for t in a.targets)
            ]
            if assigned:
                if not in_replica:
                    break
                if not all(_same_on_every_replica(ctx, v, v, depth + 1) for v in assigned):
                    return False
                break
            if any(name in _target_names(loop.target) for loop in ctx.index.in_function("fors", func)):
                return False
            func = ctx.index.enclosing_function(func)
    return True


def _arguments_same(ctx: RuleContext, func: FunctionLike, name: str, depth: int) -> bool:
    """True when every call of the helper ``func`` passes a value for ``name`` that is the same on
    every replica (a helper called from a replica function with a module-level tensor)."""
    sites = ctx.tf.replica.arguments_for(func, name)
    if not sites:
        return False
    return all(arg is not None and _same_on_every_replica(ctx, arg, site, depth + 1) for site, arg in sites)


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_target_names(e.value) for e in target.elements))
    return set()
