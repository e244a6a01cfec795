"""TFD104: an object created under one strategy used in the scope of another one (a second
strategy on the same program path, a strategy built again on every loop iteration or call)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import STATEFUL_USE_IN_BUILT_SCOPE, STATEFUL_USES
from fixer.rule import Rule
from fixer.semantic.targets import assignment_targets
from fixer.tf.dataflow import names_in
from fixer.tf.strategies import visible_defs
from fixer.types import Applicability

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike


@dataclass(frozen=True)
class _Built:
    """One strategy construction, the key it is bound to, and the scope blocks that enter it."""

    call: cst.Call
    owner: FunctionLike | None
    loop: cst.CSTNode | None
    blocks: tuple[cst.With, ...]


class SeveralStrategies(Rule):
    """
    ## What it does
    Finds a model, optimizer or variable created under one strategy and then compiled, trained or
    updated in the scope of another strategy object.

    ## Why is this bad in distributed training?
    Every variable belongs to the strategy it was created under. Measured on TensorFlow 2.21 with
    two replicas, under Keras 3 and tf-keras alike: `fit` of a model built in the first
    strategy's scope, inside the second one's scope, raises `RuntimeError: Mixing different
    tf.distribute.Strategy objects: <MirroredStrategy ...> is not <MirroredStrategy ...>`;
    so does a `strategy.run` of the second that updates a variable of the first, and `compile`
    with the second strategy under tf-keras (under Keras 3 `compile` passes and `fit` raises).
    A new strategy per loop iteration that keeps the model raises the same
    error on the second iteration.

    Not reported, because it works (measured): two strategies that each build and train their own
    model, and a strategy built per loop iteration with a new model each time. Hence several
    strategies in separate test functions (each with its own objects) and alternative branches
    are not findings either, nor is `tf.distribute.get_strategy()` (it returns the current
    strategy, it does not create one). A second `MultiWorkerMirroredStrategy()` in one local
    process also works (with a warning that collective ops were not configured at startup).

    ## Fix safety
    Display-only: build the strategy once, before the objects it distributes, and reuse it (or
    rebuild the model in the new strategy's scope). Which one is right depends on the program.

    ## Known limits
    - Two strategies count when built one after the other on one program path (not in alternative
      branches such as `if gpus: MirroredStrategy() else: OneDeviceStrategy()`), where something
      created in the first one's scope is used in the second one's scope.
    - A strategy built inside a loop counts when its scope uses an object made before the loop, or
      made in the loop only once (`if model is None: model = ...`).
    - A function that builds a strategy and uses, in its scope, an object it is given or reads from
      outside counts when that function is called in a loop or more than once.

    ## Runtime evidence
    `distfix validate` shows the `runs` check failing with the `Mixing different
    tf.distribute.Strategy objects` error.

    Measured on TensorFlow 2.21 with two 2-replica strategies
    (`benchmarks/probe_training_step_placement.py`, output in `docs/probes.md`): `fit` in the
    second scope, a `strategy.run` of the second updating a variable of the first, and a model
    kept across a new strategy per loop iteration raise `Mixing different tf.distribute.Strategy
    objects` under Keras 3 and tf-keras; a `compile` in the second scope raises it under
    tf-keras only (under Keras 3 the error comes at `fit`); a second strategy with its own model
    and a new model per iteration train.

    ## References
    - https://www.tensorflow.org/guide/distributed_training
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#scope
    """

    code = "TFD104"
    name = "several-strategies"
    message = "an object of one strategy used in the scope of another strategy"
    applicability = Applicability.DISPLAY_ONLY
    triggers = ("Strategy(",)
    facts = (STATEFUL_USE_IN_BUILT_SCOPE,)

    def check(self, ctx: RuleContext) -> None:
        built = [self._built(ctx, call) for call, _ in ctx.tf.strategies.constructions]
        withs = _EnclosingWiths(ctx)
        created: dict[int, set[str]] = {}
        for number, later in enumerate(built):
            reported = False
            for earlier in built[:number]:
                if earlier.owner is not later.owner:
                    continue
                if id(earlier) not in created:
                    created[id(earlier)] = withs.created_in(earlier.blocks)
                crossing = _crossing_use(ctx, withs, created[id(earlier)], later.blocks, made_in=earlier.blocks)
                # Whether both are on one path is the dearer question: asked only for a crossing.
                if crossing is not None and not _exclusive(ctx, earlier.call, later.call):
                    ctx.report(later.call, _message(crossing, "a strategy built earlier on this path"))
                    reported = True
                    break
            if reported:
                continue
            if later.loop is not None:
                outside = _kept_across_iterations(ctx, later.loop, later.owner)
                crossing = _crossing_use(ctx, withs, outside, later.blocks)
                if crossing is not None:
                    ctx.report(later.call, _message(crossing, "the previous loop iteration's strategy"))
                    continue
            if isinstance(later.owner, cst.FunctionDef) and _runs_repeatedly(ctx, later.owner):
                assigns = ctx.index.in_function("assigns", later.owner)
                local = {n for a in assigns for t in assignment_targets(a) for n in _names(t)}
                crossing = _crossing_use(ctx, withs, None, later.blocks, exclude=local)
                if crossing is not None:
                    ctx.report(later.call, _message(crossing, "the strategy of the previous call"))

    def _built(self, ctx: RuleContext, call: cst.Call) -> _Built:
        owner = ctx.index.enclosing_function(call)
        loop = None
        for ancestor in ctx.index.ancestors(call):
            if ancestor is owner:
                break
            if isinstance(ancestor, (cst.For, cst.While)):
                loop = ancestor
                break
        return _Built(call=call, owner=owner, loop=loop, blocks=tuple(_blocks_of(ctx, call, owner)))


def _message(name: str, previous: str) -> str:
    return (
        f"`{name}` belongs to {previous}, not to this new strategy whose scope uses it (TensorFlow raises); "
        f"build the strategy once, or rebuild `{name}` here"
    )


def _blocks_of(ctx: RuleContext, call: cst.Call, owner: FunctionLike | None) -> list[cst.With]:
    """The scope blocks that enter the strategy ``call`` builds: those of the name it is bound to,
    in the same function, after it and before that name is bound to another strategy."""
    # Grouped once per module by the strategy model: every construction asks, and scanning every
    # construction and block for each one was quadratic.
    model = ctx.tf.strategies
    key = model.assigned_key(call)
    rebinds = [
        other
        for other in model.constructions_by_target.get((owner, key), ())
        if other is not call and ctx.index.before(call, other)
    ]
    end = rebinds[0] if rebinds else None
    found = list(model.scope_blocks_entering.get(call, ()))
    if key is not None:
        found.extend(
            (position, with_node)
            for position, with_node, strategy in model.scope_blocks_by_key.get((owner, key), ())
            if strategy is not call
            and ctx.index.before(call, with_node)
            and (end is None or ctx.index.before(with_node, end))
        )
    return [with_node for _, with_node in sorted(found, key=lambda pair: pair[0])]


def _exclusive(ctx: RuleContext, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """True when the two nodes are in alternative branches of one `if` or `try`."""
    first_chain = [first, *ctx.index.ancestors(first)]
    second_chain = set(map(id, [second, *ctx.index.ancestors(second)]))
    for position, ancestor in enumerate(first_chain):
        if id(ancestor) in second_chain:
            if isinstance(ancestor, (cst.If, cst.Try)) and position > 0:
                branch = first_chain[position - 1]
                return not ctx.index.is_within(second, branch)
            return False
    return False


class _EnclosingWiths:
    """Which assignments and stateful calls each `with` statement holds, computed once: the rule
    asks for the scope blocks of every pair of strategies, and a walk over every assignment per
    pair made it quadratic in the number of strategies."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self._around: dict[cst.CSTNode, frozenset[int]] = {}

    @cached_property
    def stateful_uses(self) -> list[tuple[str, cst.Call]]:
        """``(name, call)`` for each ``name.compile(...)``, ``name.fit(...)``... on a local name."""
        uses = []
        for call in self.ctx.index.calls:
            func = call.func
            if not (
                isinstance(func, cst.Attribute)
                and func.attr.value in STATEFUL_USES  # methods that create, update or run variables
                and isinstance(func.value, cst.Name)
            ):
                continue
            if not self.ctx.tf.names.qualified(func.value):
                uses.append((func.value.value, call))
        return uses

    @cached_property
    def _uses_by_with(self) -> dict[int, list[int]]:
        """For each `with` (by id), the positions in :attr:`stateful_uses` of the calls inside it."""
        found: dict[int, list[int]] = {}
        for position, (_, call) in enumerate(self.stateful_uses):
            for block in self.withs_around(call):
                found.setdefault(block, []).append(position)
        return found

    @cached_property
    def _assigned_by_with(self) -> dict[int, set[str]]:
        """For each `with` (by id), the names assigned inside it."""
        found: dict[int, set[str]] = {}
        for assign in self.ctx.index.assigns:
            names = {n for t in assignment_targets(assign) for n in _names(t)}
            if names:
                for block in self.withs_around(assign):
                    found.setdefault(block, set()).update(names)
        return found

    def uses_in(self, blocks: tuple[cst.With, ...]) -> list[tuple[str, cst.Call]]:
        """The :attr:`stateful_uses` inside ``blocks``, in source order."""
        positions = sorted({p for block in blocks for p in self._uses_by_with.get(id(block), ())})
        return [self.stateful_uses[p] for p in positions]

    def created_in(self, blocks: tuple[cst.With, ...]) -> set[str]:
        """Names assigned inside the given scope blocks."""
        return set().union(*(self._assigned_by_with.get(id(block), ()) for block in blocks))

    def withs_around(self, node: cst.CSTNode) -> frozenset[int]:
        """The ids of the `with` statements that hold ``node`` (memoised along the way up)."""
        around = self._around
        if node in around:
            return around[node]
        chain = []
        current: cst.CSTNode | None = node
        while current is not None and current not in around:
            chain.append(current)
            current = self.ctx.index.parent.get(current)
        inherited = around[current] if current is not None else frozenset()
        for step in reversed(chain):
            around[step] = inherited
            if type(step) is cst.With:  # the `with` holds what is below it, not itself
                inherited = inherited | {id(step)}
        return around[node]


def _kept_across_iterations(ctx: RuleContext, loop: cst.CSTNode, owner: FunctionLike | None) -> set[str]:
    """Names whose object outlives one iteration of ``loop``: bound before the loop and never in
    it, or bound in it only under an `if` that tests the name itself (``if model is None:``)."""
    before: set[str] = set()
    fresh: set[str] = set()
    once: set[str] = set()
    for assign in ctx.index.in_function("assigns", owner):
        bound = {n for t in assignment_targets(assign) for n in _names(t)}
        if not ctx.index.is_within(assign, loop):
            if ctx.index.before(assign, loop):
                before |= bound
            continue
        for name in bound:
            guard = next(
                (
                    a
                    for a in ctx.index.ancestors(assign)
                    if isinstance(a, cst.If) and ctx.index.is_within(a, loop) and name in names_in(a.test)
                ),
                None,
            )
            (once if guard is not None else fresh).add(name)
    return (before | once) - fresh


def _crossing_use(
    ctx: RuleContext,
    withs: _EnclosingWiths,
    names: set[str] | None,
    blocks: tuple[cst.With, ...],
    exclude: frozenset[str] | set[str] = frozenset(),
    made_in: tuple[cst.With, ...] = (),
) -> str | None:
    """The first name of ``names`` (None: any name not in ``exclude``) whose variables a call in
    ``blocks`` creates or updates (``name.compile(...)``, ``name.fit(...)``...).

    With ``made_in`` (the earlier strategy's scope blocks), the object at the use must be one made
    there: a name rebuilt in the new scope before the use holds the new strategy's object.
    """
    for name, call in withs.uses_in(blocks):
        if name in exclude or (names is not None and name not in names):
            continue
        if made_in and not _made_in(ctx, call, made_in):
            continue
        return name
    return None


def _made_in(ctx: RuleContext, call: cst.Call, blocks: tuple[cst.With, ...]) -> bool:
    """True when a binding made inside ``blocks`` can reach the receiver of ``call`` (``m`` in
    ``m.fit()``), by the flow-aware binding model."""
    # stateful_uses keeps only `name.method(...)` calls.
    receiver = cst.ensure_type(cst.ensure_type(call.func, cst.Attribute).value, cst.Name)
    reaching = ctx.tf.semantic.resolve(receiver)
    return any(ctx.index.is_within(b.statement, block) for b in reaching for block in blocks)


def _runs_repeatedly(ctx: RuleContext, func: cst.FunctionDef) -> bool:
    """True when ``func`` has several call sites in the module, or one inside a loop."""
    sites = [
        call
        for call in ctx.index.calls
        if isinstance(call.func, cst.Name) and func in visible_defs(ctx.index, call.func.value, call)
    ]
    if len(sites) > 1:
        return True
    return any(isinstance(a, (cst.For, cst.While)) for site in sites for a in ctx.index.ancestors(site))


def _names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(*(_names(e.value) for e in target.elements)) if target.elements else set()
    return set()
