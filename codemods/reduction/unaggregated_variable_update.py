"""TFD301: a replica function updates a variable from its own, un-aggregated gradients."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import REPLICA_FUNCTION
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.tf.dataflow import names_in
from fixer.tf.horovod_tapes import horovod_reduced
from fixer.tf.loss_scaling import Scaling, classify, gradient_calls, loss_origin
from fixer.tf.parameters import parameter, positional_parameters
from fixer.tf.per_replica_values import made_per_replica
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_UPDATES = frozenset({"assign_sub", "assign_add", "assign"})
_AGGREGATIONS = ("ONLY_FIRST_REPLICA", "SUM", "MEAN")
_PAIR = frozenset({"assign_add", "assign_sub"})
_AGGREGATING = frozenset({"all_reduce", "reduce", "apply_gradients", "merge_call", "batch_reduce_to", "reduce_to"})


def _derivednames_in(ctx: RuleContext, func: FunctionLike | None, name: str) -> set[str]:
    """``name`` plus the loop variables and locals computed from it inside ``func``."""
    derived = {name}
    nodes = [
        n
        for n in [*ctx.index.in_function("fors", func), *ctx.index.in_function("assigns", func)]
        if isinstance(n, (cst.For, cst.Assign))
    ]
    for _ in range(3):
        for node in nodes:
            source = node.iter if isinstance(node, cst.For) else node.value
            if derived & names_in(source):
                targets = [node.target] if isinstance(node, cst.For) else [t.target for t in node.targets]
                for target in targets:
                    derived |= names_in(target)
    return derived


def _value_text(ctx: RuleContext, target: cst.BaseExpression) -> str:
    """The target of a gradient assignment as a value: ``g`` or ``[dW, db]`` for ``dW, db``."""
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in target.elements):
        return "[" + ", ".join(cst.ensure_type(e.value, cst.Name).value for e in target.elements) + "]"
    return ctx.source(target)


class UnaggregatedVariableUpdate(Rule):
    """
    ## What it does
    Inside a replica function, finds a variable updated with `assign_sub`, `assign_add` or `assign`
    from gradients computed by `tape.gradient` on that replica, with no cross-replica aggregation
    (`all_reduce`) and no optimizer `apply_gradients` in between.

    ## Why is this bad in distributed training?
    Each replica sees different data and so computes different gradients. Updating a mirrored
    variable with them makes its copies drift apart silently — measured on TensorFlow 2.21 with
    2 replicas: `[0.78106, 0.69117]` on replica 0 and `[0.32891, 0.22007]` on replica 1 after 3
    steps, where single-device training gives `[0.34051, 0.2153]`. No error is raised; a
    cross-replica read returns replica 0's copy and hides it.

    ## Fix safety
    Unsafe. The gradients are all-reduced right after `tape.gradient`, with the op that matches
    how the loss is scaled: `SUM` when the loss is divided by the global batch
    (`tf.nn.compute_average_loss`, `reduce_sum(...) / GLOBAL_BATCH`) or is a per-example vector,
    `MEAN` when it is a per-replica mean. Both make the replicas agree, but only that choice
    matches single-device training (measured). For a per-replica mean loss TFD303 stays silent
    on such a manual update, so the two fixes never combine into MEAN plus a loss divided by N
    (N times too small). When the loss scaling cannot be read from the
    code, the finding says which op to use for which loss instead of guessing.

    ## Known limits
    - The gradients are followed when bound to a name, unpacked
      (`dW, db = tape.gradient(loss, [W, b])`), used inline (`w.assign_sub(lr * tape.gradient(loss, w))`),
      passed inline to a function of the module that updates its parameter
      (`apply_update(w, tape.gradient(loss, w))`, reported at the helper's update), or returned by a
      helper.
    - Not followed: a helper imported from another module, or a gradient passed through a container
      (`[tape.gradient(...)]`).
    - Programs whose only strategy is `OneDeviceStrategy` have one replica and are not reported.
    - Variables created with `aggregation=SUM` are already aggregated and are not reported.
    - Not reported: gradients of a tape some path wraps in Horovod's `DistributedGradientTape`
      before the `gradient` call (`tape = hvd.DistributedGradientTape(tape)` in the function, or in a
      caller that passes the tape to it): its `gradient()` returns them all-reduced across workers
      (Horovod's API documentation; not probed here: Horovod is not in the probes' environment).
    - Not reported: variables created with `synchronization=ON_READ` and no `MEAN` aggregation
      (per-replica buffers by design, e.g. gradients kept for an `apply_gradients` in a later `strategy.run`, which
      aggregates them), and a perturb-and-restore pair in one replica function
      (`w.assign_add(e)` ... `w.assign_sub(e)` of the same value, kept in between as a name, a
      list it is appended to, or a loop over that list; sharpness-aware minimisation): both
      leave the copies equal (`benchmarks/probe_per_replica_writes.py`).
    - Not reported: a variable made per replica by
      `strategy.experimental_distribute_values_from_function(fn)` (a name bound to it, `self.x` last
      assigned it, or a replica function's parameter that `strategy.run(fn, args=(...))` gives it):
      each replica owns a distinct variable (model parallelism, a slice per replica), so there is
      no copy elsewhere to drift from (measured on 2 logical CPUs, `benchmarks/probe_per_replica_slices.py`:
      each replica's `assign_add` lands on its own variable only, where a mirrored control drifts).

    ## Runtime evidence
    `distfix validate` reports check `replicas-consistent` failing for the original (the copies
    of the variable differ after the first step) and passing for the fixed script.

    Measured on TensorFlow 2.21 with 2 replicas, Keras 3 and tf-keras alike
    (`benchmarks/probe_replica_function_calls.py`, output in `docs/probes.md`; one `Dense`-like
    weight, SGD 0.01, 3 steps): each replica's own gradient leaves the copies at `[0.38998,
    0.34673]` and `[0.20108, 0.1529]`, no error raised; the gradient all-reduced with MEAN first
    gives `[0.29256, 0.2554]` on both, the single-device result.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/ReplicaContext#all_reduce
    - https://www.tensorflow.org/guide/distributed_training#using_tfdistributestrategy_with_custom_training_loops
    - https://horovod.readthedocs.io/en/stable/api.html#horovod.tensorflow.DistributedGradientTape
    """

    code = "TFD301"
    name = "unaggregated-variable-update"
    message = "variable updated from un-aggregated per-replica gradients"
    fix_title = "All-reduce the gradients before the update"
    applicability = Applicability.UNSAFE
    triggers = (".run(", "experimental_run_v2", "call_for_each_replica", "scope(")
    needs = (STRATEGY,)
    facts = (REPLICA_FUNCTION,)

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if ctx.tf.strategies.single_replica:
            return  # OneDeviceStrategy: one replica, nothing to aggregate
        for func in replica.probable_replica_functions:
            for gradient in gradient_calls(ctx.tf, func):
                if horovod_reduced(ctx.tf, gradient):
                    continue  # a Horovod DistributedGradientTape: gradient() all-reduces across workers
                self._check_gradient(ctx, func, gradient)

    def _check_gradient(self, ctx: RuleContext, func: FunctionLike, gradient: cst.Call) -> None:
        statement = ctx.index.statement_of(gradient)
        if self._inline(ctx, func, gradient, statement):
            return
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return
        small = statement.body[0]
        if isinstance(small, cst.Assign) and small.value is gradient and len(small.targets) == 1:
            self._check_flow(ctx, func, gradient, func, statement, small.targets[0].target)
        elif isinstance(small, cst.Return) and small.value is not None:
            self._check_returned(ctx, func, gradient, small.value)

    def _inline(self, ctx: RuleContext, func: FunctionLike, gradient: cst.Call, statement: cst.BaseStatement) -> bool:
        """`w.assign_sub(lr * tape.gradient(loss, w))`: the update takes the gradient directly."""
        for ancestor in ctx.index.ancestors(gradient):
            if ancestor is statement:
                return False
            if isinstance(ancestor, cst.Call) and isinstance(ancestor.func, cst.Attribute):
                method = ancestor.func.attr.value
                if method in _AGGREGATING:
                    return True  # already aggregated
                if method in _UPDATES:
                    self._report(ctx, func, gradient, ancestor, None, ctx.source(gradient), inline=gradient)
                    return True
            if isinstance(ancestor, cst.Call) and isinstance(ancestor.func, cst.Name):
                update = self._helper_update(ctx, ancestor, gradient)
                if update is not None:
                    self._report(ctx, func, gradient, update, None, ctx.source(gradient), inline=gradient)
                    return True
        return False

    def _helper_update(self, ctx: RuleContext, call: cst.Call, gradient: cst.Call) -> cst.Call | None:
        """`apply_update(var, tape.gradient(loss, var))`: the update inside the module helper ``call``
        runs, on the parameter the gradient is passed as, when the helper aggregates nothing."""
        argument = next((arg for arg in call.args if ctx.index.is_within(gradient, arg.value)), None)
        if argument is None or argument.star:
            return None
        for helper in ctx.tf.replica.resolve_callable(call.func, call):
            if not isinstance(helper, cst.FunctionDef):
                continue
            if argument.keyword is not None:
                param = parameter(helper, argument.keyword.value)
            else:
                positional = positional_parameters(helper)
                position = call.args.index(argument)
                param = positional[position] if position < len(positional) else None
            if param is None:
                continue
            derived = _derivednames_in(ctx, helper, param.name.value)
            calls = [c for c in ctx.index.calls if ctx.index.enclosing_function(c) is helper]
            if any(
                isinstance(c.func, cst.Attribute) and c.func.attr.value in _AGGREGATING and derived & names_in(c)
                for c in calls
            ):
                continue
            for update in calls:
                if (
                    isinstance(update.func, cst.Attribute)
                    and update.func.attr.value in _UPDATES
                    and any(derived & names_in(arg.value) for arg in update.args)
                ):
                    return update
        return None

    def _check_returned(
        self, ctx: RuleContext, helper: FunctionLike, gradient: cst.Call, value: cst.BaseExpression
    ) -> None:
        """A helper returns the gradients (`return loss, tape.gradient(...)`): follow its callers."""
        position = None
        if value is gradient:
            position = -1
        elif isinstance(value, cst.Tuple):
            for index, element in enumerate(value.elements):
                if element.value is gradient:
                    position = index
        if position is None or not isinstance(helper, cst.FunctionDef):
            return
        replica = ctx.tf.replica
        for site in ctx.tf.strategies.call_sites(helper):
            caller = ctx.index.enclosing_function(site)
            if caller not in replica.probable_replica_functions:
                continue
            statement = ctx.index.statement_of(site)
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            small = statement.body[0]
            if not isinstance(small, cst.Assign) or small.value is not site or len(small.targets) != 1:
                continue
            target: cst.BaseExpression = small.targets[0].target
            if position >= 0:
                if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) <= position:
                    continue
                target = target.elements[position].value
            self._check_flow(ctx, helper, gradient, caller, statement, target)

    def _check_flow(
        self,
        ctx: RuleContext,
        origin_func: FunctionLike,
        gradient: cst.Call,
        func: FunctionLike | None,
        statement: cst.BaseStatement,
        target: cst.BaseExpression,
    ) -> None:
        """The gradients bound to ``target`` by ``statement`` in ``func``: are they aggregated first?"""
        names = sorted(names_in(target)) if isinstance(target, (cst.Name, cst.Tuple, cst.List)) else []
        if not names:
            return
        calls = ctx.tf.replica.calls_in(func)
        if any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value in _AGGREGATING and set(names) & names_in(c)
            for c in calls
        ):
            return
        derived: set[str] = set()
        for name in names:
            derived |= _derivednames_in(ctx, func, name)
        updates = [
            c
            for c in self._update_calls(ctx, func)
            if derived & names_in(c) or self._flows_into_helper(ctx, c, derived, calls)
        ]
        updates = [c for c in updates if not _restored(ctx, c)]
        if not updates:
            return
        self._report(ctx, origin_func, gradient, updates[0], statement, _value_text(ctx, target), target=target)

    def _report(
        self,
        ctx: RuleContext,
        origin_func: FunctionLike,
        gradient: cst.Call,
        update: cst.Call,
        statement: cst.BaseStatement | None,
        value: str,
        *,
        target: cst.BaseExpression | None = None,
        inline: cst.Call | None = None,
    ) -> None:
        created = _creation_keywords(ctx, update)
        aggregation = next((op for op in _AGGREGATIONS if created.get("aggregation", "").endswith(op)), None)
        if aggregation == "SUM":
            return
        if aggregation == "MEAN":
            ctx.report(
                update,
                "the variable has aggregation=MEAN, which averages the per-replica updates: with a loss divided "
                "by the global batch the step is N times too small; use aggregation=SUM or all-reduce with SUM",
            )
            return
        if created.get("synchronization", "").endswith("ON_READ"):
            return  # a per-replica variable by design (a gradient buffer): its copies are meant to differ
        if isinstance(update.func, cst.Attribute) and made_per_replica(ctx.tf, update.func.value):
            return  # each replica owns its own variable (model parallelism): nothing to agree with
        scaling = classify(ctx.tf, *loss_origin(ctx.tf, origin_func, gradient))
        op = {Scaling.GLOBAL: "SUM", Scaling.PER_EXAMPLE: "SUM", Scaling.MEAN: "MEAN"}.get(scaling)
        shown = value if len(value) <= 40 else "the gradients"
        advice = (
            "variable updated from un-aggregated per-replica gradients (replicas drift apart); all-reduce "
            f"`{shown}` first (SUM if the loss is divided by the global batch, MEAN if it is a per-replica mean)"
        )
        anchor = inline if inline is not None else statement
        assert anchor is not None  # the callers give the inline gradient or the binding statement
        home = ctx.index.enclosing_function(anchor)
        if op is None or ctx.index.enclosing_function(update) is not home:
            ctx.report(update, advice)
            return
        tf, imports = ctx.import_module("tensorflow", "tf")
        reduce = f"{tf}.distribute.get_replica_context().all_reduce({tf}.distribute.ReduceOp.{op}, "
        message = (
            f"variable updated from un-aggregated per-replica gradients (replicas drift apart); all-reduce `{shown}` "
            f"with {op} (the loss is {scaling.value})"
        )
        if inline is not None:
            ctx.report(update, message, edits=[*imports, ctx.replace(inline, f"{reduce}{value})")])
            return
        assert statement is not None and target is not None  # not inline: the gradients' binding is given
        targets = ctx.source(target)
        if isinstance(target, (cst.Tuple, cst.List)):
            if not all(isinstance(e.value, cst.Name) for e in target.elements):
                ctx.report(update, advice)
                return
            targets = ", ".join(cst.ensure_type(e.value, cst.Name).value for e in target.elements)
        line = f"{ctx.indentation(statement)}{targets} = {reduce}{value}){ctx.newline}"
        insert_at = ctx.textmap.line_end(ctx.range(statement).end.line)
        ctx.report(update, message, edits=[*imports, Edit(insert_at, insert_at, line)])

    def _update_calls(self, ctx: RuleContext, func: FunctionLike | None) -> list[cst.Call]:
        found = []
        for call in ctx.index.calls:
            if not isinstance(call.func, cst.Attribute) or call.func.attr.value not in _UPDATES:
                continue
            owner = ctx.index.enclosing_function(call)
            if owner is func or (
                owner in ctx.tf.replica.replica_functions and owner is not func and self._called_from(ctx, owner, func)
            ):
                found.append(call)
        return found

    def _called_from(self, ctx: RuleContext, helper: FunctionLike | None, func: FunctionLike | None) -> bool:
        return isinstance(helper, cst.FunctionDef) and any(
            isinstance(c.func, cst.Name) and c.func.value == helper.name.value for c in ctx.tf.replica.calls_in(func)
        )

    def _flows_into_helper(self, ctx: RuleContext, update: cst.Call, derived: set[str], calls: list[cst.Call]) -> bool:
        helper = ctx.index.enclosing_function(update)
        if not isinstance(helper, cst.FunctionDef):
            return False
        return any(
            isinstance(c.func, cst.Name) and c.func.value == helper.name.value and derived & names_in(c) for c in calls
        )


def _creation_keywords(ctx: RuleContext, update: cst.Call) -> dict[str, str]:
    """The keyword arguments (name to source text) of the constructor that made the variable
    ``update`` writes: ``{"aggregation": "tf.VariableAggregation.SUM"}``; empty when unknown."""
    target = update.func.value if isinstance(update.func, cst.Attribute) else None
    if target is None:
        return {}
    # `for acc, g in zip(accumulators, grads): acc.assign_add(g)`: the variable is an element
    # of the zipped list, made (in a list comprehension, as usual) where that list is bound.
    target = _loop_source(ctx, update, target) or target
    key = ctx.source(target)
    found: dict[str, str] = {}
    for assign in ctx.index.assigns:
        if not isinstance(assign, cst.Assign) or not any(ctx.source(t.target) == key for t in assign.targets):
            continue
        for creation in _created_values(assign.value):
            for arg in creation.args:
                if arg.keyword is not None:
                    found.setdefault(arg.keyword.value, ctx.source(arg.value))
    return found


def _restored(ctx: RuleContext, update: cst.Call) -> bool:
    """``w.assign_add(e)`` undone later in the same function by ``w.assign_sub(e)`` of the same
    value (or the reverse): a perturb-and-restore pair, as in sharpness-aware minimisation, leaves
    every replica's copy where it was (measured: benchmarks/probe_per_replica_writes.py)."""
    func = ctx.index.enclosing_function(update)
    for other in ctx.index.calls:
        if (
            other is not update
            and ctx.index.enclosing_function(other) is func
            and isinstance(other.func, cst.Attribute)
            and {other.func.attr.value, cst.ensure_type(update.func, cst.Attribute).attr.value} == _PAIR
            and other.args
            and update.args
            and _written(ctx, other) == _written(ctx, update)
        ):
            first, second = (update, other) if ctx.index.before(update, other) else (other, update)
            if _undoes(ctx, first, second):
                return True
    return False


def _undoes(ctx: RuleContext, first: cst.Call, second: cst.Call) -> bool:
    """``second`` writes back the value ``first`` wrote: the same text, or what ``first``'s value
    was kept in (``e_ws.append(e)`` ... ``assign_sub(e_ws[i])``, a loop over that list)."""
    if ctx.source(first.args[0].value) == ctx.source(second.args[0].value):
        return True
    func = ctx.index.enclosing_function(first)
    kept = _value_names(ctx, first)
    for call in ctx.index.calls:
        if (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "append"
            and isinstance(call.func.value, cst.Name)
            and ctx.index.enclosing_function(call) is func
            and any(kept & names_in(arg.value) for arg in call.args)
        ):
            kept = kept | {call.func.value.value}
    values = _value_names(ctx, second)
    return bool(values & kept) and values <= kept | _loop_indices(ctx, second)


def _written(ctx: RuleContext, update: cst.Call) -> str:
    """The variable an update writes, as text, taken back to the list a loop draws it from."""
    target = cst.ensure_type(update.func, cst.Attribute).value
    return ctx.source(_loop_source(ctx, update, target) or target)


def _value_names(ctx: RuleContext, update: cst.Call) -> set[str]:
    """The names the update's value is made of; a loop variable counts as the list it is drawn from."""
    value = update.args[0].value
    source = _loop_source(ctx, update, value) if isinstance(value, cst.Name) else None
    return names_in(source if source is not None else value)


def _loop_indices(ctx: RuleContext, update: cst.Call) -> set[str]:
    """The targets of the loops around ``update`` in its function (``i`` in ``e_ws[i]``)."""
    found: set[str] = set()
    for ancestor in ctx.index.ancestors(update):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
            break
        if isinstance(ancestor, cst.For):
            found |= names_in(ancestor.target)
    return found


def _loop_source(ctx: RuleContext, update: cst.Call, target: cst.BaseExpression) -> cst.BaseExpression | None:
    """The list a loop variable is taken from: ``accumulators`` for ``acc`` in
    ``for acc, g in zip(accumulators, grads)`` (or ``for acc in accumulators``) around ``update``."""
    if not isinstance(target, cst.Name):
        return None
    for ancestor in ctx.index.ancestors(update):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
            return None
        if not isinstance(ancestor, cst.For):
            continue
        if isinstance(ancestor.target, cst.Name) and ancestor.target.value == target.value:
            return ancestor.iter
        if isinstance(ancestor.target, (cst.Tuple, cst.List)):
            iterable = ancestor.iter
            if not (
                isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip"
            ):
                return None
            for position, element in enumerate(ancestor.target.elements):
                if isinstance(element.value, cst.Name) and element.value.value == target.value:
                    return iterable.args[position].value if position < len(iterable.args) else None
    return None


def _created_values(value: cst.BaseExpression) -> list[cst.Call]:
    """The constructor calls a binding's value makes: the call itself, or each element of a list
    (a literal list or a list comprehension)."""
    if isinstance(value, cst.Call):
        return [value]
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)) and isinstance(value.elt, cst.Call):
        return [value.elt]
    if isinstance(value, (cst.List, cst.Tuple)):
        return [e.value for e in value.elements if isinstance(e.value, cst.Call)]
    return []
