"""TFD103: a training step called directly instead of through `strategy.run`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import UPDATES_SCOPE_VARIABLES
from fixer.fixes.optimizer_build import ready_for_compiled_step
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.semantic import BindingKind, CallResolver
from fixer.semantic.run_order import unbound_at_some_run, unbound_whenever_run
from fixer.semantic.targets import assignment_targets
from fixer.tf.bindings import assignments_to
from fixer.tf.calls import argument_value
from fixer.tf.dataflow import names_in
from fixer.tf.datasets import DISTRIBUTED, PLAIN, DatasetModel
from fixer.tf.loss_scaling import (
    Scaling,
    classify,
    gradient_calls,
    loss_origin,
    only_reduce_means,
)
from fixer.tf.names import dotted_name
from fixer.tf.parameters import call_position, has_parameter, named_parameters
from fixer.tf.reach import strategy_in_reach
from fixer.tf.reduced_values import reduced_across_replicas
from fixer.tf.strategies import Membership, visible_defs
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from collections.abc import Callable

    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_APPLIES = frozenset({"apply_gradients", "minimize"})
# From TF 2.11 `tf.keras.optimizers` are the optimizers whose cross-replica update of reduced
# gradients keeps the replicas equal (Keras 3, tf-keras); before, OptimizerV2's changes one copy.
_NEW_OPTIMIZERS_FROM = (2, 11)
_KERAS_MODEL_BASES = frozenset({"keras.Model", "keras.models.Model"})


class TrainStepOutsideStrategyRun(Rule):
    """
    ## What it does
    Finds a training step — a function that calls `optimizer.apply_gradients` or `minimize` on an
    optimizer or variables created inside `strategy.scope()` — called directly instead of through
    `strategy.run(step, args=(...))`, and a step written inline in a loop over batches.

    ## Why is this bad in distributed training?
    Measured on TensorFlow 2.21 with Keras 3: called inside `with strategy.scope():`, the step
    raises `ValueError: DistributedVariable.handle is not available outside the replica context
    or a tf.distribute.Strategy.update() call` (from `tape.gradient`). Called outside the scope it
    runs without error but on one device, on the whole batch: the other replicas sit idle and
    nothing is distributed.

    ## Fix safety
    Unsafe: `step(a, b)` becomes `strategy.run(step, args=(a, b))`, only when `a, b` are the
    elements of the loop around the call: a loop over a distributed dataset stays as it is, a loop
    over a plain `tf.data` dataset is changed to iterate
    `strategy.experimental_distribute_dataset(ds)` in the same fix (a plain batch given to
    `strategy.run` reaches every replica whole, which doubles the step). Any other arguments get
    advice instead. When the step's result is used, it is a per-replica value: the fix reduces the
    returned loss with `strategy.reduce(SUM, ..., axis=None)`, which is right for a loss divided by
    the global batch and for a `tf.reduce_mean` loss once TFD303 divides it by the number of
    replicas; otherwise the finding says what to do. When the call sits in a Python loop (or at
    module level) outside any `tf.function`, an eager `strategy.run` there would run the replicas
    one after another (TFD402), so the fix defines a compiled step right after the step's `def`,
    `@tf.function def distributed_<step>(...)`, which runs (and reduces) it through
    `strategy.run`, and the loop calls that; the step itself is unchanged. A compiled step (that
    one, or a step that is a `tf.function` already) cannot create a Keras optimizer's state under
    the strategy (measured on TensorFlow 2.21 with Adam: `You must feed a value for placeholder
    tensor 'cond/Placeholder'`), so the optimizer is made ready right after its creation, as
    TFD402 and TFD109 do (`fixer/tf/optimizers.py`: the model built when the file writes its
    input shape, then the optimizer). When that cannot be done (a model whose input shape is
    only known at run time, an optimizer of unknown kind), a loop call is rewritten in place,
    eager (TFD402 explains the rest), and a `tf.function` step gets advice. An inline loop gets
    advice: move its body into `train_step(x, y)` returning the loss, call
    `strategy.run(train_step, args=(x, y))` from a `@tf.function` for each batch of
    `strategy.experimental_distribute_dataset(ds)`, reduce the result with `SUM` and scale the
    loss to the global batch.

    ## Known limits
    - Keras' own `train_step` (run by `fit`) and helpers it calls are not reported, nor is a model
      deliberately trained on one device (its variables created outside any scope) or a program
      whose only strategy is `OneDeviceStrategy`.
    - Judged when the step runs, in cell (module) order: a step called only at module-level points
      (cells) before the one that binds the module's strategy is a single-device baseline, not
      reported, whatever a later cell rebuilds in the scope under the same names. When it runs
      both before and after that cell, the finding is advice: a rewrite naming the strategy would
      raise NameError on the earlier run.
    - Not reported: a step decorated by a function of the module (or what a decorator factory of
      the module returns) whose wrapper calls `strategy.run(fn, args=args, kwargs=kwargs)` on the
      function it receives: calling the step calls that wrapper.
    - When the step is split across functions (a helper applies the gradients its caller computed,
      or receives the tape), the call of the whole step is reported.
    - Not reported: a function that computes no gradient and applies gradients its caller hands it
      from `strategy.reduce` results (a compiled function ran `strategy.run` and reduced the
      replicas' gradients; the loop may sum and average them over micro-batches). That is the
      cross-replica half of a reduce-then-update loop: measured on TensorFlow 2.21 with Keras 3 and
      2 replicas, it runs and keeps the replicas equal (`benchmarks/probe_ledger22d_premises.py`).
    - A step written inline in a loop over batches (`for x, y in ds:` or a loop reading `next(it)`,
      with the `GradientTape` and the `apply_gradients` in its body, or `minimize`) is reported at
      the update, and the function holding that loop is not taken for a step. A `for i in range(k)`
      loop without `next(...)` (gradient accumulation inside a step) is not an inline loop.

    ## Runtime evidence
    `distfix validate` shows the original failing check `runs` (the `ValueError` above) when the
    step is called inside the scope, and the fixed script training on every replica.

    Measured on TensorFlow 2.21 with 2 replicas, Keras 3 and tf-keras alike
    (`benchmarks/probe_training_step_placement.py`, output in `docs/probes.md`): called directly
    inside the scope the step raises the `ValueError` above; outside it, one call runs on all 4
    rows of the batch; through `strategy.run` in a `tf.function` on a distributed dataset each
    replica gets 2 rows.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#run
    - https://www.tensorflow.org/tutorials/distribute/custom_training
    """

    code = "TFD103"
    name = "train-step-outside-strategy-run"
    message = "training step called directly instead of through `strategy.run`"
    fix_title = "Call the step through `strategy.run`"
    applicability = Applicability.UNSAFE
    triggers = ("apply_gradients", "minimize(")
    needs = (STRATEGY,)
    facts = (UPDATES_SCOPE_VARIABLES,)

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if not strategies.strategy_keys and not strategies.scope_blocks:
            return  # no strategy in play (e.g. only an uncalled factory)
        if strategies.single_replica:
            return  # OneDeviceStrategy: a direct call trains the one replica there is
        replica = ctx.tf.replica
        excluded = set(replica.replica_functions) | set(replica.steps())
        before_strategy = _BeforeStrategy(ctx)
        self._report_inline_loops(ctx, excluded, before_strategy)
        reported_lines: set[tuple[int, int]] = set()  # (step, line): one finding for a line's calls
        reported_at: set[tuple[int, int]] = set()  # (line, column): never two findings at one place
        for step, applies in self._steps(ctx, excluded).items():
            if not any(self._trains_scope_variables(ctx, call) for call in applies):
                continue  # a model trained on one device on purpose: not this rule's business
            for site in ctx.tf.strategies.call_sites(step):
                if replica.in_replica_context(site) or self._runs_in_keras(ctx, site):
                    continue
                if ctx.index.is_within(site, step) or before_strategy.runs_only_before(site):
                    continue
                if self._applies_reduced_gradients(ctx, step, applies, site):
                    continue  # the cross-replica half of a reduce-then-update loop
                start = ctx.range(site).start
                line = (id(step), start.line)
                if line in reported_lines or (start.line, start.column) in reported_at:
                    continue  # `train_step(a) + train_step(b)`: one mistake, said once
                reported_lines.add(line)
                reported_at.add((start.line, start.column))
                self._report(ctx, cst.ensure_type(step, cst.FunctionDef), site, before_strategy)

    # Which functions are steps ----------------------------------------------------------------

    def _steps(self, ctx: RuleContext, excluded: set[FunctionLike]) -> dict[FunctionLike, list[cst.Call]]:
        """Training steps (functions run once per batch that apply gradients) and their apply calls.

        A function that applies gradients it was handed (a tape or gradients as parameters, and
        no `tape.gradient` of its own while its caller computes them) is a part of its caller's
        step: the caller is the step, as `strategy.run` must run the forward pass too.
        """
        replica = ctx.tf.replica
        steps: dict[FunctionLike, list[cst.Call]] = {}
        pending: list[tuple[FunctionLike, list[cst.Call], int]] = []
        for defined in ctx.index.functions:
            # An update written inline in a loop over batches makes the loop's function the
            # whole training run, not a step: it is reported as an inline loop instead.
            applies = [c for c in replica.calls_in(defined) if _is_apply(c) and _inline_loop(ctx, c) is None]
            if applies:
                pending.append((defined, applies, 0))
        while pending:
            func, applies, depth = pending.pop()
            if func in excluded or self._keras_method(ctx, func) or depth > 3:
                continue
            if _decorated_through_run(ctx, func):
                continue  # its decorator's wrapper calls `strategy.run(fn, ...)`: every call is distributed
            callers = self._callers_if_part(ctx, func)
            if callers:
                pending.extend((caller, applies, depth + 1) for caller in callers)
                continue
            steps.setdefault(func, []).extend(applies)
        return steps

    def _callers_if_part(self, ctx: RuleContext, func: FunctionLike) -> list[FunctionLike]:
        """The functions ``func`` is a part of (see :meth:`_steps`), or [] when it is a step."""
        if not isinstance(func, cst.FunctionDef):
            return []
        replica = ctx.tf.replica
        sites = ctx.tf.strategies.call_sites(func)
        found = [ctx.index.enclosing_function(site) for site in sites]
        callers = [c for c in found if c is not None]
        if not sites or len(callers) < len(found) or any(c is func for c in callers):
            return []
        params = {p.name.value for p in named_parameters(func)}
        own_calls = replica.calls_in(func)
        takes_tape = any(
            isinstance(c.func, cst.Attribute)
            and c.func.attr.value == "gradient"
            and isinstance(c.func.value, cst.Name)
            and c.func.value.value in params
            for c in own_calls
        )
        computes = any(_computes_gradients(ctx, c) for c in own_calls)
        if takes_tape or (
            not computes
            and all(any(_computes_gradients(ctx, c) for c in replica.calls_in(caller)) for caller in callers)
        ):
            return list(dict.fromkeys(callers))
        return []

    def _report_inline_loops(
        self, ctx: RuleContext, excluded: set[FunctionLike], before_strategy: _BeforeStrategy
    ) -> None:
        """Loops over batches whose body computes and applies gradients itself, under a strategy."""
        replica = ctx.tf.replica
        seen: set[int] = set()
        for call in ctx.index.calls:
            if not _is_apply(call):
                continue
            loop = _inline_loop(ctx, call)
            if loop is None or id(loop) in seen:
                continue
            func = ctx.index.enclosing_function(call)
            if func in excluded or replica.in_replica_context(call) or self._runs_in_keras(ctx, call):
                continue
            if not self._trains_scope_variables(ctx, call) or before_strategy.runs_only_before(call):
                continue  # a model trained on one device on purpose
            seen.add(id(loop))
            strategy = strategy_in_reach(ctx.tf, ctx.index.statement_of(call)) or "strategy"
            ctx.report(
                call,
                "this loop computes and applies gradients inline, so the strategy never runs the step: it "
                "trains on one device with the whole batch (inside `strategy.scope()` it raises "
                "`DistributedVariable.handle is not available outside the replica context`); move the loop "
                "body into a function `train_step(x, y)` that returns the loss, call "
                f"`{strategy}.run(train_step, args=(x, y))` from a `@tf.function` for each batch of "
                f"`{strategy}.experimental_distribute_dataset(ds)`, reduce what it returns with "
                f"`{strategy}.reduce(SUM, ..., axis=None)` and scale the loss to the global batch "
                "(`tf.nn.compute_average_loss`)",
            )

    def _keras_method(self, ctx: RuleContext, func: FunctionLike) -> bool:
        owner = ctx.index.method_class(func) if isinstance(func, cst.FunctionDef) else None
        return owner is not None and any(
            ctx.tf.names.qualified(base.value) in _KERAS_MODEL_BASES for base in owner.bases
        )

    def _runs_in_keras(self, ctx: RuleContext, site: cst.CSTNode) -> bool:
        """The call sits in a Keras model's method (`train_step`, run by `fit` on every replica)."""
        func = ctx.index.enclosing_function(site)
        while func is not None:
            if self._keras_method(ctx, func):
                return True
            func = ctx.index.enclosing_function(func)
        return False

    def _applies_reduced_gradients(
        self, ctx: RuleContext, step: FunctionLike, applies: list[cst.Call], site: cst.Call
    ) -> bool:
        """``step`` computes no gradient (no tape, no `minimize`, in it or what it calls) and each of
        its updates applies gradients that ``site`` hands it from `strategy.reduce` results: the
        cross-replica update of a reduce-then-update loop, which keeps the replicas equal
        (fixer/tf/reduced_values.py, ledger22d class 1), not an undistributed step. Only for the
        optimizers of TF 2.11 on: OptimizerV2 (`optimizers.legacy`, and `tf.keras.optimizers`
        before 2.11) changes one replica's copy (benchmarks/probe_ledger22d_premises.py)."""
        if not isinstance(step, cst.FunctionDef) or ctx.tf.target.version < _NEW_OPTIMIZERS_FROM:
            return False
        if any(_legacy_optimizer(ctx, call) for call in applies):
            return False  # OptimizerV2 updates the first replica's copy only (the probe above)
        replica = ctx.tf.replica
        if any(_computes_gradients(ctx, c) for part in self._step_parts(ctx, step) for c in replica.calls_in(part)):
            return False
        gradients = [_applied_gradients(call) for call in applies]
        return all(g is not None and reduced_across_replicas(ctx.tf, g, site) for g in gradients)

    # Whether the step trains variables created in a strategy scope ---------------------------

    def _trains_scope_variables(self, ctx: RuleContext, apply: cst.Call) -> bool:
        """The optimizer or the variables of ``apply`` were created inside a strategy scope."""
        roots = [apply.func.value] if isinstance(apply.func, cst.Attribute) else []
        variables = _applied_variables(apply)
        if isinstance(variables, (cst.List, cst.Tuple)):
            roots.extend(e.value for e in variables.elements)
        elif variables is not None:
            roots.append(variables)
        return any(self._created_in_scope(ctx, _root_key(root), apply, 0) for root in roots if _root_key(root))

    def _created_in_scope(self, ctx: RuleContext, key: str | None, near: cst.CSTNode, depth: int) -> bool:
        if key is None or depth > 4:
            return False
        strategies = ctx.tf.strategies
        for assign, target in self._bindings(ctx, key, near):
            value = assign.value
            if isinstance(value, (cst.Name, cst.Attribute)) and isinstance(target, (cst.Name, cst.Attribute)):
                # `model = model` (or any alias) in the scope creates nothing: the value keeps the
                # origin it had, outside the scope or in it (ledger23a class 1).
                if self._created_in_scope(ctx, _root_key(value), assign, depth + 1):
                    return True
                continue
            if strategies.membership(assign) is Membership.INSIDE:
                return True
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
                # `model, opt = build(strategy)`: what the local factory returns, at that position
                for factory in visible_defs(ctx.index, value.func.value, assign):
                    for ret in ctx.index.in_function("returns", factory):
                        returned = _at_position(ret.value, target, key)
                        if returned is not None and self._created_in_scope(ctx, _root_key(returned), ret, depth + 1):
                            return True
            elif isinstance(value, (cst.Name, cst.Attribute)):
                if self._created_in_scope(ctx, _root_key(value), assign, depth + 1):
                    return True
        func = ctx.index.enclosing_function(near)
        while func is not None and "." not in key:
            if isinstance(func, cst.FunctionDef) and has_parameter(func, key):
                position = call_position(func, key, skip_first=ctx.index.method_class(func) is not None)
                for site in strategies.call_sites(func):
                    arg = argument_value(site, position, key)
                    if arg is not None and self._created_in_scope(ctx, _root_key(arg), site, depth + 1):
                        return True
                return False
            func = ctx.index.enclosing_function(func)
        return False

    def _bindings(
        self, ctx: RuleContext, key: str, near: cst.CSTNode
    ) -> list[tuple[cst.Assign | cst.AnnAssign, cst.BaseExpression]]:
        """Assignments that may bind ``key`` where ``near`` reads it, with the target they bind:
        for a name, those the semantic model says reach ``near``; for an attribute (which it does
        not follow), every assignment to it in the file."""
        found: list[tuple[cst.Assign | cst.AnnAssign, cst.BaseExpression]] = []
        if "." in key:
            for assign in ctx.index.assigns:
                if isinstance(assign, (cst.Assign, cst.AnnAssign)) and assign.value is not None:
                    found.extend((assign, target) for target in assignment_targets(assign) if _binds(target, key))
            return found
        for binding in ctx.tf.semantic.reaching(key, near):
            statement = binding.statement
            if isinstance(statement, (cst.Assign, cst.AnnAssign)) and statement.value is not None:
                found.extend((statement, target) for target in assignment_targets(statement) if _binds(target, key))
        return found

    # Reporting --------------------------------------------------------------------------------

    def _report(
        self, ctx: RuleContext, func: cst.FunctionDef, site: cst.Call, before_strategy: _BeforeStrategy
    ) -> None:
        strategy = strategy_in_reach(ctx.tf, ctx.index.statement_of(site))
        # Short messages: why (it raises in the scope, trains on one device outside) is in `explain`.
        message = f"`{func.name.value}` updates the strategy's variables but is not called through `strategy.run`"
        advice = message + "; run it on a distributed dataset and reduce its result"
        if strategy is None or not isinstance(site.func, cst.Name) or any(a.star for a in site.args):
            ctx.report(site, advice)
            return
        if before_strategy.unbound_at_some_run(strategy, site):
            # It also runs where `strategy` is not bound yet (a cell before the strategy's): a
            # rewrite naming it would raise NameError there.
            ctx.report(site, message + f"; not rewritten: it also runs before `{strategy}` exists")
            return
        feed = self._distributed_feed(ctx, site, strategy)
        if feed is None:
            ctx.report(
                site,
                advice + " (its inputs are not from a dataset distfix can distribute)",
            )
            return
        positional = [ctx.source(a.value) for a in site.args if a.keyword is None]
        keywords = [f'"{a.keyword.value}": {ctx.source(a.value)}' for a in site.args if a.keyword is not None]
        args = f"({', '.join(positional)}{',' if len(positional) == 1 else ''})"
        call = f"{strategy}.run({func.name.value}, args={args}"
        call += f", kwargs={{{', '.join(keywords)}}})" if keywords else ")"
        parent = ctx.index.parent.get(site)
        compiled = self._compiled_step(ctx, func, site, strategy)
        if compiled is None and self._in_graph(ctx, func, site):
            # `strategy.run` of a compiled step (or from one): a Keras optimizer with state must
            # be built first (measured: Adam otherwise fails with `You must feed a value for
            # placeholder tensor 'cond/Placeholder'`).
            builds = ready_for_compiled_step(ctx, self._step_parts(ctx, func))
            if builds is None:
                ctx.report(
                    site,
                    advice + "; build its Keras optimizer first",
                )
                return
            feed = [*builds, *feed]
        if isinstance(parent, cst.Expr):
            if compiled is not None:
                name, edits = compiled(call)
                ctx.report(
                    site,
                    message + f"; run it through `strategy.run` in a compiled step `{name}`",
                    edits=[*edits, *feed, ctx.replace(site, f"{name}({', '.join(positional)})")],
                )
                return
            ctx.report(site, message + "; run it through `strategy.run`", edits=[*feed, ctx.replace(site, call)])
            return
        op = self._reduce_op(ctx, func)
        if op is None:
            ctx.report(
                site,
                message + "; reduce its result with `strategy.reduce` (`distfix explain TFD103`)",
            )
            return
        tf, imports = ctx.import_module("tensorflow", "tf")
        reduced = f"{strategy}.reduce({tf}.distribute.ReduceOp.{op}, {call}, axis=None)"
        if compiled is not None:
            name, edits = compiled(f"return {reduced}")
            ctx.report(
                site,
                message
                + f"; run it through `strategy.run` in a compiled step `{name}` and reduce its result with {op}",
                edits=[
                    *dict.fromkeys([*imports, *edits]),
                    *feed,
                    ctx.replace(site, f"{name}({', '.join(positional)})"),
                ],
            )
            return
        ctx.report(
            site,
            message + f"; run it through `strategy.run` and reduce its result with {op}",
            edits=[*imports, *feed, ctx.replace(site, reduced)],
        )

    def _in_graph(self, ctx: RuleContext, func: cst.FunctionDef, site: cst.Call) -> bool:
        """The step is a `tf.function`, or the call runs inside one."""
        replica = ctx.tf.replica
        scope = ctx.index.enclosing_function(site)
        if replica.is_tf_function(func):
            return True
        while scope is not None:
            if replica.is_tf_function(scope):
                return True
            scope = ctx.index.enclosing_function(scope)
        return False

    def _step_parts(self, ctx: RuleContext, func: cst.FunctionDef) -> set[FunctionLike]:
        """``func`` and the functions of the module it calls (transitively, bounded)."""
        replica = ctx.tf.replica
        parts: set[FunctionLike] = {func}
        pending: list[FunctionLike] = [func]
        while pending and len(parts) < 16:
            current = pending.pop()
            for call in replica.calls_in(current):
                for target in replica.resolve_callable(call.func, call):
                    if target not in parts:
                        parts.add(target)
                        pending.append(target)
        return parts

    def _compiled_step(
        self, ctx: RuleContext, func: cst.FunctionDef, site: cst.Call, strategy: str
    ) -> Callable[[str], tuple[str, list[Edit]]] | None:
        """A maker of the `@tf.function` step that runs ``func`` through `strategy.run`, or None.

        Only for a call in a Python loop (or at module level) outside any `tf.function`: there an
        eager `strategy.run` runs the replicas one after another (TFD402), and TFD402 cannot
        compile a loop. ``func`` itself is left as it is: it stays the replica function, and other
        callers keep calling it. The step is defined right after ``func`` (same scope, so the loop
        sees it) and named ``distributed_<func>``; its parameters are the loop's elements the call
        passes. Keras optimizers with state are built first, as TFD402 does (else the compiled
        step fails to create their variables); when that cannot be placed: None.
        """
        if self._in_graph(ctx, func, site) or any(a.keyword is not None for a in site.args):
            return None
        here = ctx.index.enclosing_function(site)
        in_loop = False
        for ancestor in ctx.index.ancestors(site):
            if ancestor is here:
                break
            in_loop = in_loop or isinstance(ancestor, (cst.For, cst.While))
        if here is not None and not in_loop:
            return None  # TFD402 compiles the enclosing function
        owner = ctx.index.enclosing_function(func)
        if owner is not here and strategy_in_reach(ctx.tf, func) != strategy:
            return None  # the strategy is not visible where the step would be defined
        builds = ready_for_compiled_step(ctx, self._step_parts(ctx, func))
        if builds is None:
            return None
        taken = set(ctx.index.names) | set(ctx.index.functions_by_name)
        name = f"distributed_{func.name.value}"
        suffix = 2
        while name in taken:
            name, suffix = f"distributed_{func.name.value}_{suffix}", suffix + 1
        params = ", ".join(a.value.value for a in site.args if isinstance(a.value, cst.Name))
        indent = ctx.indentation(func.name)
        # As many blank lines as the file puts before the step's def (one or two).
        blank = ctx.newline * min(2, max(1, sum(1 for line in func.leading_lines if line.comment is None)))
        insert_at = ctx.textmap.line_end(ctx.range(func).end.line)
        newline, unit = ctx.newline, ctx.indent_unit

        def make(body: str) -> tuple[str, list[Edit]]:
            tf, imports = ctx.import_module("tensorflow", "tf")
            text = (
                f"{blank}{indent}@{tf}.function{newline}"
                f"{indent}def {name}({params}):{newline}"
                f"{indent}{unit}{body}{newline}"
            )
            return name, [*imports, *builds, Edit(insert_at, insert_at, text)]

        return make

    def _distributed_feed(self, ctx: RuleContext, site: cst.Call, strategy: str) -> list[Edit] | None:
        """Edits that make the step's positional arguments per-replica batches, or None.

        The arguments must be the elements of the loop around the call. A distributed dataset
        needs nothing; a plain `tf.data` dataset is wrapped in `experimental_distribute_dataset`
        (otherwise every replica gets the whole batch); anything else: None.
        """
        names = [a.value for a in site.args if a.keyword is None]
        if not names or not all(isinstance(n, cst.Name) for n in names):
            return None
        func = ctx.index.enclosing_function(site)
        for ancestor in ctx.index.ancestors(site):
            if ancestor is func:
                return None
            if isinstance(ancestor, cst.For) and {cst.ensure_type(n, cst.Name).value for n in names} <= names_in(
                ancestor.target
            ):
                iterable = ancestor.iter
                if (
                    isinstance(iterable, cst.Call)
                    and isinstance(iterable.func, cst.Name)
                    and iterable.func.value == "enumerate"
                    and iterable.args
                ):
                    iterable = iterable.args[0].value
                kind = DatasetModel(ctx.tf).kind(iterable)
                if kind == DISTRIBUTED:
                    return []
                if kind == PLAIN:
                    return [
                        ctx.replace(iterable, f"{strategy}.experimental_distribute_dataset({ctx.source(iterable)})")
                    ]
                return None
        return None

    def _reduce_op(self, ctx: RuleContext, func: cst.FunctionDef) -> str | None:
        """SUM when the step returns its loss and that loss is (or TFD303 makes it) global-batch scaled."""
        returns = [r for r in ctx.index.in_function("returns", func) if r.value is not None]
        for gradient in gradient_calls(ctx.tf, func):
            loss = gradient.args[0].value
            if not isinstance(loss, cst.Name) or not returns:
                return None
            if not all(isinstance(r.value, cst.Name) and r.value.value == loss.value for r in returns):
                return None
            origin, holder = loss_origin(ctx.tf, func, gradient)
            scaling = classify(ctx.tf, origin, holder)
            if scaling in (Scaling.GLOBAL, Scaling.PER_EXAMPLE):
                return "SUM"
            if scaling is Scaling.MEAN and origin is not None and only_reduce_means(ctx.tf, origin, holder):
                return "SUM"  # TFD303 divides this mean by the number of replicas
            return None
        return None


def _inline_loop(ctx: RuleContext, apply: cst.Call) -> cst.For | cst.While | None:
    """The loop over batches that ``apply`` is written in, with the forward pass in the same loop
    body, or None. A loop over batches iterates something other than ``range(...)`` or
    reads ``next(...)``; a ``for i in range(k)`` around a step's own update (gradient
    accumulation) is not one."""
    func = ctx.index.enclosing_function(apply)
    loop = None
    for ancestor in ctx.index.ancestors(apply):
        if ancestor is func:
            return None
        if isinstance(ancestor, (cst.For, cst.While)):
            loop = ancestor
            break
    if loop is None:
        return None
    inside = [
        c for c in ctx.index.calls if ctx.index.is_within(c, loop.body) and ctx.index.enclosing_function(c) is func
    ]
    # The forward pass is in the loop too: a tape opened there (a loop over variable groups that
    # only calls `tape.gradient` is part of a step), or `minimize`, which runs it.
    opens_tape = any((ctx.tf.names.callee(c) or "").endswith("GradientTape") for c in inside)
    if not opens_tape and cst.ensure_type(apply.func, cst.Attribute).attr.value != "minimize":
        return None
    over_range = (
        isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call) and dotted_name(loop.iter.func) == "range"
    )
    reads_batches = any(isinstance(c.func, cst.Name) and c.func.value == "next" for c in inside)
    if isinstance(loop, cst.For) and not over_range or reads_batches:
        return loop
    return None


def _decorated_through_run(ctx: RuleContext, func: FunctionLike) -> bool:
    """A decorator of ``func`` is a function of the module (``@distributed``) or what one returns
    (``@distributed(True, False)``) that runs a function it receives through ``strategy.run``:
    some ``strategy.run(fn, args=..., kwargs=...)`` within it whose ``fn`` is a parameter of a
    function within it (the decorator's ``fn``). Calling ``func`` then calls that wrapper."""
    if not isinstance(func, cst.FunctionDef):
        return False
    for decorator in func.decorators:
        expression = decorator.decorator
        if isinstance(expression, cst.Call):
            expression = expression.func  # a decorator factory: its body holds the decorator
        if not isinstance(expression, cst.Name):
            continue
        for binding in ctx.tf.semantic.resolve(expression):
            if binding.kind is BindingKind.FUNCTION and _runs_a_received_function(ctx, binding.statement):
                return True
    return False


def _runs_a_received_function(ctx: RuleContext, decorator: cst.CSTNode) -> bool:
    """``decorator`` holds a ``strategy.run`` whose function is a parameter of ``decorator`` or of a
    function nested in it."""
    for run in ctx.tf.replica.run_calls:
        if not isinstance(run.fn, cst.Name) or not ctx.index.is_within(run.call, decorator):
            continue
        for binding in ctx.tf.semantic.resolve(run.fn):
            if binding.kind is BindingKind.PARAMETER and ctx.index.is_within(binding.statement, decorator):
                return True
    return False


class _BeforeStrategy:
    """Is code run only before the module creates its strategy? A notebook's single-device
    baseline: a step defined and run in cells before the one that makes the strategy trains on
    one device on purpose, whatever a later cell rebuilds under the same names (issue 28)."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self._names = self._module_strategy_names()
        self._resolver = CallResolver(ctx.tf.semantic) if self._names else None

    def _module_strategy_names(self) -> set[str]:
        """The names every strategy of the module is bound to at module level (empty when one is
        made elsewhere: in a function, an attribute, a factory's return)."""
        ctx = self.ctx
        names = set()
        for call, _kind in ctx.tf.strategies.constructions:
            parent = ctx.index.parent.get(call)
            if not (
                isinstance(parent, cst.Assign)
                and len(parent.targets) == 1
                and isinstance(parent.targets[0].target, cst.Name)
                and ctx.index.enclosing_function(call) is None
            ):
                return set()
            names.add(parent.targets[0].target.value)
        return names

    def runs_only_before(self, node: cst.CSTNode) -> bool:
        """True when ``node`` runs only at module-level points no strategy binding reaches."""
        if self._resolver is None:
            return False
        return unbound_whenever_run(self.ctx.tf.semantic, self._resolver, self._names, node)

    def unbound_at_some_run(self, strategy: str, node: cst.CSTNode) -> bool:
        """True when ``strategy`` (a module-level strategy name) is unbound at one of the points
        where ``node`` runs: a rewrite must not name it there."""
        if self._resolver is None or strategy not in self._names:
            return False
        return unbound_at_some_run(self.ctx.tf.semantic, self._resolver, strategy, node)


def _is_apply(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _APPLIES


def _computes_gradients(ctx: RuleContext, call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("gradient", "minimize"):
        return True
    return (ctx.tf.names.callee(call) or "").endswith("GradientTape")


def _applied_variables(call: cst.Call) -> cst.BaseExpression | None:
    """``vars`` in ``apply_gradients(zip(grads, vars))`` or ``minimize(loss, vars)``."""
    if not isinstance(call.func, cst.Attribute):
        return None
    if call.func.attr.value == "minimize":
        return argument_value(call, 1, "var_list")
    pairs = argument_value(call, 0, "grads_and_vars")
    if (
        isinstance(pairs, cst.Call)
        and isinstance(pairs.func, cst.Name)
        and pairs.func.value == "zip"
        and len(pairs.args) == 2
    ):
        return pairs.args[1].value
    return None


def _legacy_optimizer(ctx: RuleContext, apply: cst.Call) -> bool:
    """The optimizer of ``apply`` is assigned a `keras.optimizers.legacy` class somewhere."""
    receiver = apply.func.value if isinstance(apply.func, cst.Attribute) else None
    key = dotted_name(receiver) if receiver is not None else None
    return any(
        isinstance(assign.value, cst.Call) and ".optimizers.legacy." in (ctx.tf.names.callee(assign.value) or "")
        for assign in assignments_to(ctx.index, key)
    )


def _applied_gradients(call: cst.Call) -> cst.BaseExpression | None:
    """``grads`` in ``apply_gradients(zip(grads, vars))``; None for `minimize` or another form."""
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "apply_gradients":
        return None
    pairs = argument_value(call, 0, "grads_and_vars")
    if (
        isinstance(pairs, cst.Call)
        and isinstance(pairs.func, cst.Name)
        and pairs.func.value == "zip"
        and len(pairs.args) >= 2
    ):
        return pairs.args[0].value
    return None


def _root_key(expr: cst.BaseExpression | None) -> str | None:
    """``model`` for ``model.trainable_variables``, ``self.model`` for ``self.model.optimizer``."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
            return dotted_name(expr)
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) and expr.value not in ("self", "cls") else None


def _at_position(
    returned: cst.BaseExpression | None, target: cst.BaseExpression, key: str
) -> cst.BaseExpression | None:
    """The part of a returned value that lands in ``key`` when assigned to ``target``."""
    if returned is None:
        return None
    if not isinstance(target, (cst.Tuple, cst.List)):
        return returned
    if not isinstance(returned, (cst.Tuple, cst.List)) or len(returned.elements) != len(target.elements):
        return None
    for element, value in zip(target.elements, returned.elements, strict=True):
        if dotted_name(element.value) == key:
            return value.value
    return None


def _binds(target: cst.BaseExpression, key: str) -> bool:
    """``target`` is ``key`` itself or a tuple/list that holds it (``model, opt = ...``)."""
    if dotted_name(target) == key:
        return True
    return isinstance(target, (cst.Tuple, cst.List)) and any(dotted_name(e.value) == key for e in target.elements)
