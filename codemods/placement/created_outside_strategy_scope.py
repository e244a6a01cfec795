"""TFD101: variables, models, optimizers and metrics created outside `strategy.scope()`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from fixer.cell_lines import line_label
from fixer.edits import reindented_statements
from fixer.facts import STRATEGY_IN_PLAY
from fixer.notebook import cell_boundaries
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.semantic.targets import assignment_targets
from fixer.tf.calls import argument_value
from fixer.tf.correlated_branches import earlier_arm_left_none
from fixer.tf.dataflow import independent, names_in
from fixer.tf.functional_layers import weight_statements
from fixer.tf.importer_uses import FIT
from fixer.tf.keras_flavour import LegacySetting, keras_flavour, keras_module, legacy_keras
from fixer.tf.keras_models import STEP_METHODS, keras_model_base
from fixer.tf.keras_step_reach import in_keras_step
from fixer.tf.layer_classes import method_of_layer_only
from fixer.tf.maybe_none import may_be_none
from fixer.tf.names import dotted_name
from fixer.tf.optimizers import build_lines_after_move
from fixer.tf.parameters import positional_parameters
from fixer.tf.paths import exclusive
from fixer.tf.reach import strategy_in_reach
from fixer.tf.read_only_variables import counter_like, inference_only, only_read
from fixer.tf.replica_assigned import ADVICE as ASSIGNED_ADVICE
from fixer.tf.replica_assigned import assigned_by_replicas
from fixer.tf.row_buffers import tpu_possible, updated_by_rows
from fixer.tf.strategies import Membership
from fixer.tf.weightless_layers import weightless_sequential
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.target import Target
    from fixer.tf.index import ModuleIndex

_MODEL_PREFIXES = ("keras.applications.",)
_MODELS = frozenset({"keras.Sequential", "keras.Model", "keras.models.Sequential", "keras.models.Model"})
# A functional model: its weights are its layers', made where they are called.
_FUNCTIONAL_MODELS = frozenset({"keras.Model", "keras.models.Model"})
_MODEL_BASES = frozenset({"keras.Model", "keras.models.Model", "keras.layers.Layer", "keras.Layer"})
_DEVICE_SCOPES = frozenset({"tensorflow.device", "tensorflow.compat.v1.device"})
_OPTIMIZER_PREFIX = "keras.optimizers."
_METRIC_PREFIX = "keras.metrics."
_NOT_STATEFUL = ("schedules.", "get", "serialize", "deserialize", "Optimizer")


@dataclass(frozen=True)
class Creation:
    """One statement outside the scope that creates distributed state."""

    statement: cst.SimpleStatementLine
    call: cst.Call
    kind: str  # variable, model, optimizer, metric, compile
    names: tuple[str, ...]  # the names it binds (empty for `model.compile(...)`)


class CreatedOutsideStrategyScope(Rule):
    """
    ## What it does
    Finds `tf.Variable`s, Keras models, optimizers, metrics and `model.compile(...)` that run
    outside `with strategy.scope():` while distributed code uses them: a replica function passed to
    `strategy.run` (or a Keras model's `train_step`/`test_step` override), a model compiled or
    trained under the strategy, or an object used inside the scope.

    ## Why is this bad in distributed training?
    Only variables created under the strategy's scope are mirrored on every replica. TensorFlow
    2.21 with Keras 3 fails on the others with a bare `AssertionError` (no message) from
    `mirrored_strategy.py` when the optimizer updates them, with `RuntimeError: Mixing different
    tf.distribute.Strategy objects` for an optimizer with slots (Adam) built outside, and a plain
    `tf.Variable` updated in `strategy.run` silently gives order-dependent wrong values. A model
    built outside the scope and trained with `fit` is not distributed at all.

    ## Fix safety
    Unsafe: the statements move into the existing `with <strategy>.scope():` block of the same
    block (to its top when they come before it, to its end when after it), keeping their order and
    comments, but only when no statement in between reads or writes a name they use; otherwise
    they are wrapped in a new `with <strategy>.scope():` where they stand, if the strategy exists
    there, and never where that strategy may be None (a parameter defaulting to None or given None
    by a call of the module, or one the program tests against None): advice only then. A model is
    moved only when something runs it under its strategy: `compile`, `fit`, `predict` and the
    other Keras loops, or a step given to `strategy.run`; a model whose training step is called
    directly gets advice instead (moved alone, its first step raises where it ran: Keras 2's
    optimizer makes its slots under another strategy, Keras 3 raises TypeError, and with the
    optimizer moved too Keras 3 still raises outside `strategy.run`;
    `benchmarks/probe_ledger23a_premises.py`). A variable the replica function assigns
    (`assign`, `assign_add`, `assign_sub`) gets advice too: moved as is it is mirrored with
    aggregation NONE and each replica keeps its own copy; the message names the aggregations to
    choose from (`benchmarks/probe_replica_assigned_variable.py`). Moving code
    changes when it runs, so review the diff. When neither is possible the
    finding explains what to move. A moved Keras optimizer with state that a compiled
    distributed step applies is built right after it (`optimizer.build(model.trainable_variables)`,
    see TFD109): once in the scope, an unbuilt one makes that step fail with 2 replicas. When the
    model is not built at that point, TFD109 reports what is left.

    ## Known limits
    - Keras models include `keras.applications`, model classes defined in the file, and models
      built by functions or classes of other modules of the project that the file imports, followed
      as for TFD504.
    - A `train_step`/`test_step` override counts as distributed code because `fit` and `evaluate`
      run it on every replica when the model is built or compiled in the scope.
    - Where code runs is decided from call sites: a factory called only inside the scope is inside;
      the same factory called outside is outside, unless it enters the scope itself. A scope object
      kept in a variable (`scope = strategy.scope()`, then `with scope:`) is a scope block.
    - `model.compile(optimizer=opt)` outside the scope is not reported when the model and `opt` (a
      Keras 3 optimizer) are made in the scope on every path that meets it: measured with 2
      replicas, it then trains identically.
    - A metric made outside the scope and updated in a `train_step` override reports another value
      than one made inside (measured on TensorFlow 2.21: 0.9436 against 0.9302). One only handed to
      `compile` in the scope is reported for tf-keras (its `compile` raises `ValueError: Metric ...
      was created inside a different distribution strategy scope`) but not for Keras 3, which trains
      and reports the same; nor is `compile("sgd")` outside the scope for a model built in it (a
      plain SGD has no state): `benchmarks/probe_metric_and_string_optimizer_outside_scope.py`.
      `compile("adam", metrics=[...])` there is reported under Keras 3, which fails with
      `RuntimeError: Mixing different tf.distribute.Strategy objects` (the optimizer's state has no
      strategy; same probe), and not under tf-keras, whose `compile` enters the model's scope.
      With one device as with two, and for an `Adam()` made outside too, Keras 3 fails at the first
      step and tf-keras makes the slots mirrored (`benchmarks/probe_compile_after_scope_slots.py`).
      Where no file names TensorFlow (2.21 only assumed), the message says both outcomes; a
      notebook pinned to a platform image of unknown date (not a fresh install) gets no finding.
    - Nor is a metric whose only uses in the scope are its own methods (`metric.update_state(x)` in
      cross-replica context) or calls of it (`metric(loss)` with the value `strategy.reduce`
      returned): both Kerases update it as outside any scope
      (`benchmarks/probe_metric_updated_in_cross_replica_context.py`,
      `benchmarks/probe_ledger17b_premises.py`). Nor is one updated eagerly
      on the ParameterServerStrategy coordinator (inline evaluation, outside any replica): Keras 3
      and tf-keras count the same as with one made in the scope
      (`benchmarks/probe_coordinator_eval_metric.py`). Nor is one updated in a custom loop's
      replica function (given to `strategy.run`, or handed to it): it counts every replica on both
      Kerases (`benchmarks/probe_ledger8b_premises.py`, MirroredStrategy); one read in `train_step`
      under `fit` stays, and so does one in a ParameterServerStrategy program (not measured).
    - State that a Keras model makes in its own methods (a tracker in `__init__`) is created where
      the model is constructed: when that is outside the scope, the finding points at the model's
      construction (its own finding, with the fix) instead of wrapping the line inside the class:
      once per model class (its first such creation). Sub-layers that a `Layer` subclass (not a
      model) constructs in its own methods are not reported: they are made when the outer model is
      constructed.
    - A local helper that builds (and compiles) a model and returns it, called outside the scope,
      is reported once, at the call: moving the call into the scope runs the whole helper there.
      When the program makes a strategy and never uses it (no scope, `run`, argument to other
      code or distributed dataset), the message says so instead of "used by distributed code".
    - Across modules: when `check` is given a folder (and in the language server, for the
      workspace), a metric or `tf.Variable` that a module with no strategy of its own makes at
      import time, and that the `train_step`/`test_step` of a Keras model class of that module
      reads, is reported at its creation when another script of the folder constructs the class
      inside `with strategy.scope():` and trains it with `fit` (on the instance, directly or through
      one name); the message names the script and its line (`fixer/tf/importers.py`). No fix is
      offered: the metric belongs in the model's `__init__`, which then runs in the script's scope.
    - Not followed across modules: a class constructed outside a scope, through a function of the
      script or in a notebook; models and optimizers of the helper module.
    - A tf-keras model constructed without an input shape (a `Sequential` whose layers name none, a
      model class of the file) and first used inside the scope, which builds it there, is not a
      finding: its variables are mirrored and it trains. Under Keras 3 it is: the model keeps the
      strategy current at its construction and `fit` fails in the scope
      (`benchmarks/probe_model_built_in_scope.py`). Under both Kerases, one whose only uses that can
      build it are in a custom loop's replica function (given to `strategy.run`, or the TF 1
      `experimental_run`) run inside the scope is not a finding either: `compile` and
      `tf.train.Checkpoint(model=...)` outside build nothing, and the first call in the step makes
      mirrored variables (`benchmarks/probe_ledger17b_premises.py`). An eager call, `build`, `fit`
      or any other use outside keeps it.
    - A closure reads the binding that reaches the calls of the function it lies in: a model made
      in the scope for the training branch's step is not the one an evaluation branch makes after
      every call of that step, when the step is only called by name (not returned or stored).
    - A name rebuilt in the scope before the distributed use (a single-device baseline first, a
      later notebook cell) and a creation in the branch where the strategy is None
      (`if strategy is None:`) are other objects, not findings; so is one in the arm of a second
      `if` with the same test (same names, not rebound, no call) whose first `if` set the
      strategy to None in that arm.
    - A non-trainable `tf.Variable` (`trainable=False`, or an integer `dtype`: a step counter, a
      learning rate) that distributed code only reads is not a finding: made outside the scope, it
      is read in `strategy.run` and incremented between steps in cross-replica code without error
      (measured on TensorFlow 2.21 with two replicas, `benchmarks/probe_ledger12b_premises.py`). It
      is when the replica function writes it (`assign*`, `scatter_*`) or trains it (gives it to
      `apply_gradients`, `minimize`, `tape.gradient` or `watch`); a write in cross-replica code,
      inside the scope or not, is not a finding.
    - So is a Keras model that nothing trains and that distributed code only calls for inference (a
      prior loaded outside the scope, `energy += prior(x, training=False)` in `strategy.run`): every
      use is a call without `training=True`, `load_weights`, `predict`, `save*`, `summary`,
      `prior.trainable = False` or a test (`if prior is not None:`). Both Kerases run it and every
      replica gets the eager call's values (`benchmarks/probe_ledger22c_premises.py`, part 1;
      MirroredStrategy, TPUStrategy not measured). `fit`, `compile`, `trainable_variables`, a
      `training=True` call or the model handed to another call keep the finding.
    - A `tf.Variable` the replica function updates only row by row (`scatter_*`, no `assign*`) and
      never hands to an optimizer (a per-example buffer: `tf.gather(buf, ids)` in the tape,
      `buf.scatter_add(...)` of its own rows) is not a finding under MirroredStrategy: made outside
      the scope, every replica's rows land on the one copy; moved into it, it is mirrored and the
      rows of all replicas but the first are silently lost (`benchmarks/probe_ledger14a_premises.py`).
      Where the strategy may be a TPUStrategy (one built, or of unknown class) it is reported with
      that advice and no fix: the move is never offered for it.
    - A `tf.Variable` that nothing uses is reported when the program trains under a scope (it is
      left out of the strategy), unless it is made in a `with tf.device(...):` block: a variable
      pinned by hand (a device-placement demonstration, often on a device that is missing on
      purpose) is not state meant for the strategy.
    - A Keras model used only in the input pipeline (the function of `dataset.map`, in a lambda or
      def handed to it, or passed to a function of the file that uses it only so) is not a finding:
      tf.data runs it on the host, nothing of it is replicated, and training is the same as with
      one made in the scope (`benchmarks/probe_model_in_dataset_map.py`: a preprocessor made outside
      the scope, mapped outside it, inside it or in a helper the scope calls, trains under Keras 3
      and tf-keras with plain variables). Any `.map(...)` call counts, whatever its receiver.
    - A `Sequential` made only of layers with no weights (random augmentation layers, `Rescaling`,
      `Resizing`, `CenterCrop`, `keras.Input`) and never grown with `.add` is not a finding: made and
      even first called outside the scope, it trains under the strategy on both Kerases
      (`benchmarks/probe_augmentation_rng_outside_scope.py`). One holding any layer with weights
      (`Dense`, `Conv2D`, `BatchNormalization`, `Normalization`, `Embedding`) stays.
    - A Keras layer on its own is not a finding: Keras 3 creates a layer's variables when it is
      built, not when it is constructed (measured on TensorFlow 2.21, 2 logical CPUs: a `Dense`
      constructed outside the scope and built inside it holds `MirroredVariable`s and trains; one
      built outside fails with a bare `AssertionError`).
    - State a Keras model class makes for itself (`self.gate = tf.Variable(...)` in `__init__`) is
      reported only when an instance constructed outside the scope reaches distributed code: the
      class constructed in the scope for the training step and again outside it for an eager
      branch (`coder = Coder(); coder.load_weights(...)`, then only called, its methods used or
      tested) is not a finding. An outside construction that is not a plain `name = Class(...)`,
      or whose instance is handed on (an argument, an alias), keeps it.
    - A Keras model class of the file whose `call()` enters `with strategy.scope():` itself is
      reported where it is constructed outside the scope (not at the state its `__init__` makes):
      entering the scope there does not distribute the model. Measured on TensorFlow 2.21 with 2
      logical CPUs (`benchmarks/probe_scope_inside_call.py`): constructed outside the scope, Keras 3
      records the default strategy, `fit` hands `call` the whole batch of 8 and the kernel is a
      plain `Variable`; tf-keras raises `RuntimeError: Mixing different tf.distribute.Strategy
      objects`. Constructed in the scope, both raise `RuntimeError: Method requires being in
      cross-replica context` from the inner scope, so the fix is both: construct the model in the
      scope and drop the scope from `call()` (advice: two edits in two places).
    - Not followed: a scope entered in another method, or a model class of another module.

    ## Runtime evidence
    `distfix validate` shows the original crashing (check `runs`: bare `AssertionError` from
    `mirrored_strategy.py`, measured on TensorFlow 2.21 CPU with 2 logical devices) and the fixed
    script training with identical copies on every replica.

    ## References
    - https://www.tensorflow.org/guide/distributed_training#using_tfdistributestrategy_with_custom_training_loops
    - https://www.tensorflow.org/api_docs/python/tf/distribute/Strategy#scope
    """

    code = "TFD101"
    name = "created-outside-strategy-scope"
    message = "created outside `strategy.scope()` but used by distributed code"
    fix_title = "Move into `with strategy.scope():`"
    applicability = Applicability.UNSAFE
    triggers = ("scope(", "Strategy", ".run(", "experimental_run_v2")
    needs = (STRATEGY,)
    importer_triggers = STEP_METHODS
    facts = (STRATEGY_IN_PLAY,)

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        if not strategies.scope_blocks and not strategies.constructions:
            _check_helper(ctx)
            return
        finder = _Finder(ctx)
        self_scoping = _self_scoping_models(ctx, finder)
        scoping = _constructions_outside(ctx, self_scoping)
        groups: dict[int, list[Creation]] = {}
        inside_models: dict[str, Creation] = {}  # per model class, the first state it makes itself
        row_buffers: list[Creation] = []  # per-example buffers the replicas scatter into, TPU possible
        for creation in finder.creations():
            if id(creation.call) in scoping:
                continue  # reported below, with what entering the scope in its own method does
            if creation.kind == "model" and method_of_layer_only(ctx.index, finder.names, creation.statement):
                continue  # a sub-layer of a layer class: made when the outer model is constructed
            if creation.kind == "model" and weightless_sequential(
                ctx.index, finder.names, creation.call, creation.names
            ):
                continue  # augmentation/preprocessing layers only: no weights to distribute
            if finder.on_a_path_without_strategy(creation):
                continue
            if not finder.used_by_distributed_code(creation):
                continue
            if finder.row_buffer(creation):
                if finder.tpu_possible():
                    row_buffers.append(creation)
                continue  # one copy every replica updates: right under MirroredStrategy
            if finder.keras_unknown(creation) and ctx.tf.target.frozen_platform_image:
                # A notebook frozen to the platform image of an unknown day: not a fresh install
                # (Keras 3), and Keras 2 trains this the same, so nothing says it fails.
                continue
            model_class = finder.keras_model_class_of(creation)
            if model_class is not None and model_class in self_scoping:
                continue  # its construction is the finding
            if model_class is not None and not finder.built_outside_for_distributed_code(model_class):
                continue  # the instance distributed code uses is the one constructed in the scope
            if model_class is not None:
                inside_models.setdefault(model_class, creation)
                continue
            groups.setdefault(id(ctx.index.parent.get(creation.statement)), []).append(creation)
        _keep_call_sites_of_factories(ctx, finder, groups)
        for creation in row_buffers:
            # Moving it into the scope would mirror it and lose the other replicas' rows
            # (benchmarks/probe_ledger14a_premises.py): advice only, never the move.
            ctx.report(
                creation.call,
                "per-example buffer the replicas `scatter_*` into, made outside `strategy.scope()`: right as one "
                "copy under MirroredStrategy, unmeasured for this strategy (it may be a TPUStrategy); do not move "
                "it into the scope (mirrored, each replica's rows stay on its own copy)",
            )
        _report_inside_models(ctx, finder, inside_models)
        for call, model_class in sorted(scoping.values(), key=lambda pair: ctx.index.order[pair[0]]):
            ctx.report(
                call,
                f"`{model_class}` enters `strategy.scope()` in `call()`, which does not distribute it: "
                "constructed here, outside the scope, `fit` trains it on one device (tf-keras raises); "
                "construct it in the scope, drop the inner one",
            )
        unused = _never_used_strategy(ctx, finder)
        covered = _compiles_of_reported_models(ctx, groups) if unused is not None else set()
        for group in groups.values():
            group.sort(key=lambda c: ctx.span(c.statement)[0])
            for run in _consecutive_runs(ctx, group):
                if not any(ctx.shown(creation.call) for creation in run):
                    continue  # suppressed, or in a block a test expects to raise: no fix to build
                edits, level = _fix_for(ctx, run)
                made_elsewhere = _weights_left_outside(ctx, finder, run)
                if made_elsewhere:
                    edits, level = None, Applicability.DISPLAY_ONLY  # the move would leave them outside
                # Moved as is, a variable the replicas assign is mirrored with aggregation NONE and
                # each replica keeps its own copy: advice only (fixer/tf/replica_assigned.py).
                assigned = {
                    id(c.call)
                    for c in run
                    if c.kind == "variable" and assigned_by_replicas(ctx.index, ctx.tf.replica, c.names)
                }
                stepped = [c for c in run if c.kind == "model" and not finder.distributed_by_keras_or_run(c)]
                if assigned or stepped:
                    # A model whose step is called directly: moved alone into the scope, it makes that
                    # step raise where it ran (benchmarks/probe_ledger23a_premises.py, cases 2-3).
                    edits, level = None, Applicability.DISPLAY_ONLY
                for creation in run:
                    if id(creation.statement) in covered:
                        continue  # the model's finding says "build and compile the model in its scope"
                    text = _message(creation, edits is None, finder.keras_unknown(creation))
                    if id(creation.call) in assigned:
                        text = ASSIGNED_ADVICE
                    if unused is not None:
                        text = _unused_strategy_message(ctx, creation, unused)
                    if creation.kind == "model" and made_elsewhere:
                        text += _weights_note(ctx, made_elsewhere)
                    elif creation in stepped and unused is None:
                        text = _STEPPED_MESSAGE
                    ctx.report(creation.call, finder.upgrade_prefix(creation) + text, edits=edits, applicability=level)


# A strategy's methods that distribute something other than through its scope or `run`.
_DISTRIBUTING_METHODS = frozenset(
    {
        "experimental_run",
        "reduce",
        "gather",
        "experimental_distribute_dataset",
        "distribute_datasets_from_function",
        "experimental_distribute_datasets_from_function",
        "experimental_distribute_values_from_function",
    }
)


# What a model trained by a step called directly needs (benchmarks/probe_ledger23a_premises.py):
# moved alone into the scope, its first step raises (Keras 2: the optimizer's slots under another
# strategy; Keras 3: TypeError); with its optimizer too, Keras 3 still raises outside `strategy.run`.
_STEPPED_MESSAGE = (
    "model created outside `strategy.scope()`, and the step that trains it is not run by `strategy.run` or "
    "`fit`: build the model and its optimizer in the scope and run the step with `strategy.run`"
)

# Keras methods that run the model under the strategy it was built in: a model moved into the
# scope trains (and predicts) on every replica through them; `compile` sets it up for them.
_KERAS_LOOPS = frozenset(
    {
        "compile",
        "fit",
        "fit_generator",
        "train_on_batch",
        "evaluate",
        "evaluate_generator",
        "test_on_batch",
        "predict",
        "predict_generator",
        "predict_on_batch",
    }
)


def _keep_call_sites_of_factories(ctx: RuleContext, finder: _Finder, groups: dict[int, list[Creation]]) -> None:
    """Drop, from ``groups``, the creations inside a local factory (`def make_model(): model =
    Sequential(...); model.compile(...); return model`) when a call of that factory is reported
    too: building the model at that call in the scope runs the whole factory there, so the call
    site is the one finding (issue 28 class 6, ledger10a class 2)."""
    reported = {
        creation.call.func.value
        for group in groups.values()
        for creation in group
        if isinstance(creation.call.func, cst.Name) and creation.call.func.value in finder.factory_names
    }
    if not reported:
        return
    for key, group in list(groups.items()):
        kept = [c for c in group if not _inside_function_named(ctx, c.statement, reported)]
        if kept:
            groups[key] = kept
        else:
            del groups[key]


def _inside_function_named(ctx: RuleContext, node: cst.CSTNode, names: set[str]) -> bool:
    """``node`` lies in the body of a `def` (at any depth) named one of ``names``."""
    func = ctx.index.enclosing_function(node)
    while func is not None:
        if isinstance(func, cst.FunctionDef) and func.name.value in names:
            return True
        func = ctx.index.enclosing_function(func)
    return False


def _compiles_of_reported_models(ctx: RuleContext, groups: dict[int, list[Creation]]) -> set[int]:
    """The `model.compile(...)` statements whose model is itself reported as built outside the
    scope (and shown): for a strategy the program never uses, the model's finding already says to
    build and compile it in the scope, so the compile is that one mistake (ledger15b noise,
    Space-Fighter's precedent), not a finding of its own."""
    creations = [c for group in groups.values() for c in group]
    models = {id(c.statement) for c in creations if c.kind == "model" and ctx.shown(c.call)}
    covered: set[int] = set()
    for creation in creations:
        receiver = _receiver(creation) if creation.kind == "compile" else None
        model = ctx.tf.semantic.only_binding(receiver) if receiver is not None else None
        if model is not None and id(ctx.index.statement_of(model.node)) in models:
            covered.add(id(creation.statement))
    return covered


def _weights_left_outside(ctx: RuleContext, finder: _Finder, run: list[Creation]) -> list[cst.BaseStatement]:
    """The statements outside the run (and outside any scope) that make the weights of a
    functional `Model(inputs, outputs)` the run builds: moving the run alone into the scope leaves
    them outside, and `fit` then raises ValueError where it trained before
    (benchmarks/probe_functional_layers_outside_scope.py)."""
    moved = {id(c.statement) for c in run}

    def kept(statement: cst.CSTNode) -> bool:
        return id(statement) not in moved and finder.runs_outside(statement)

    found: list[cst.BaseStatement] = []
    for creation in run:
        if creation.kind == "model" and ctx.tf.names.callee(creation.call) in _FUNCTIONAL_MODELS:
            found += [s for s in weight_statements(ctx.tf, creation.call, kept) if s not in found]
    return found


def _weights_note(ctx: RuleContext, statements: list[cst.BaseStatement]) -> str:
    """Where the model's layers make their weights, for a finding offered without the move."""
    places = [line_label(ctx.text, ctx.range(s).start.line) for s in statements[:4]]
    more = f" and {len(statements) - 4} more" if len(statements) > 4 else ""
    return (
        f"; its layers make their weights outside the scope ({'; '.join(places)}{more}): "
        "moving the `Model(...)` line alone makes `fit` raise ValueError, build the layers in the scope too"
    )


def _never_used_strategy(ctx: RuleContext, finder: _Finder) -> tuple[cst.Call, str] | None:
    """The strategy construction when the program never uses any strategy it makes: no scope, no
    `run`, no argument to other code, no distributed dataset or values. Its findings then say
    that rather than "used by distributed code", which is not so (ledger10a class 2)."""
    if not finder._scope_forgotten():
        return None
    for attribute in ctx.index.attributes:
        if attribute.attr.value in _DISTRIBUTING_METHODS and ctx.tf.strategies.is_strategy(attribute.value):
            return None
    return ctx.tf.strategies.constructions[0]


def _unused_strategy_message(ctx: RuleContext, creation: Creation, unused: tuple[cst.Call, str]) -> str:
    """What is true of state made outside any scope of a strategy the program never uses."""
    call, kind = unused
    where = line_label(ctx.text, ctx.range(call).start.line)
    what = {"compile": "`compile()` runs", "model": "model built"}.get(creation.kind, f"{creation.kind} created")
    advice = "build and compile the model in its scope" if creation.kind in ("model", "compile") else "create it there"
    return (
        f"{what} outside `strategy.scope()`, and the `{kind.rsplit('.', 1)[-1]}` made at {where} is never used "
        f"(no scope, `run` or distributed dataset): {advice}"
    )


def _report_inside_models(ctx: RuleContext, finder: _Finder, inside: dict[str, Creation]) -> None:
    """State a Keras model class makes for itself is placed where the model is constructed: moving
    that construction into the scope is the fix. Reported once per class, at its first such
    creation: each further one names the same construction."""
    for model_class, creation in inside.items():
        ctx.report(
            creation.call,
            f"{finder.upgrade_prefix(creation)}{_message(creation, False)}: "
            f"it is created by `{model_class}` itself, which is constructed "
            f"outside `strategy.scope()`; construct the model inside the scope",
        )


def _check_helper(ctx: RuleContext) -> None:
    """A module with no strategy of its own whose Keras model class another script of the
    project constructs in a strategy scope and trains with `fit`: a variable or metric the module
    makes at import time (outside any scope) and that the class's `train_step`/`test_step` reads
    is state `fit` uses on every replica. Reported at its creation, naming the importer; the fix
    belongs in the class (make it in `__init__`, which runs in the importer's scope), so none is
    offered."""
    importers = ctx.tf.importers
    if importers is None:
        return
    finder = _Finder(ctx)
    steps: list[tuple[cst.FunctionDef, str, str]] = []  # step, its class, where the importer fits it
    for cls in ctx.module.body:
        if not isinstance(cls, cst.ClassDef) or keras_model_base(ctx.index, ctx.tf.names, cls) is None:
            continue
        uses = [u for u in importers.uses(cls.name.value) if u.strategies and u.in_scope and FIT in u.feeds]
        if not uses:
            continue
        for func in ctx.index.functions:
            if func.name.value in STEP_METHODS and ctx.index.method_class(func) is cls:
                steps.append((func, cls.name.value, uses[0].where(importers.root)))
    if not steps:
        return
    for statement in ctx.module.body:
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            continue
        assign = statement.body[0]
        if not (isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call)):
            continue
        kind = finder.kind_of(assign.value, follow_factories=False)
        if kind not in ("metric", "variable"):
            continue
        for target in assignment_targets(assign):
            if not isinstance(target, cst.Name):
                continue
            reader = _step_reading(ctx, target.value, assign.value, steps)
            if reader is not None:
                step, owner, where = reader
                ctx.report(
                    assign.value,
                    f"{kind} created outside `strategy.scope()` but used by distributed code: "
                    f"`{owner}.{step.name.value}` "
                    f"reads it, and {where} constructs `{owner}` in a strategy scope and trains it with `fit`; "
                    "create it in the model's `__init__`",
                )
                break


def _step_reading(
    ctx: RuleContext, name: str, value: cst.Call, steps: list[tuple[cst.FunctionDef, str, str]]
) -> tuple[cst.FunctionDef, str, str] | None:
    """The first step method that reads the module-level ``name`` bound to ``value``."""
    for use in ctx.index.names.get(name, []):
        binding = ctx.tf.semantic.only_binding(use)
        if binding is None or binding.value is not value:
            continue
        for step in steps:
            if ctx.index.is_within(use, step[0]):
                return step
    return None


def _message(creation: Creation, advice_only: bool, keras_unknown: bool = False) -> str:
    """The finding's text. ``keras_unknown``: a `compile()` whose outcome depends on a Keras that
    nothing in the project names (see `_Finder.keras_unknown`), told for both Kerases."""
    if creation.kind == "compile" and keras_unknown:
        # benchmarks/probe_metric_and_string_optimizer_outside_scope.py, both columns.
        text = (
            "`compile()` outside its model's scope: Keras 3 `fit` raises `RuntimeError: Mixing different "
            "tf.distribute.Strategy objects`, tf-keras trains the same (no pin says which)"
        )
        return text + ("; compile in the scope" if advice_only else "")
    what = {
        "variable": "variable",
        "model": "model",
        "optimizer": "optimizer",
        "metric": "metric",
        "compile": "`compile()`",
    }[creation.kind]
    text = f"{what} created outside `strategy.scope()` but used by distributed code"
    if creation.kind == "compile":
        text = "`compile()` runs outside `strategy.scope()`: the optimizer and metrics it builds are not distributed"
    if advice_only:
        text += "; create it inside `with strategy.scope():`"
    return text


def _self_scoping_models(ctx: RuleContext, finder: _Finder) -> set[str]:
    """Keras model classes of this module whose `call()` enters a strategy scope itself
    (`def call(self, x): with strategy.scope(): ...`). A scope entered in `__init__` is not
    counted: Keras records the strategy when the model is constructed, which may be inside it."""
    found = set()
    for with_node, _ in ctx.tf.strategies.scope_blocks:
        func = ctx.index.enclosing_function(with_node)
        if not (isinstance(func, cst.FunctionDef) and func.name.value == "call"):
            continue
        owner = ctx.index.method_class(func)
        if owner is not None and keras_model_base(ctx.index, finder.names, owner) is not None:
            found.add(owner.name.value)
    return found


def _constructions_outside(ctx: RuleContext, classes: set[str]) -> dict[int, tuple[cst.Call, str]]:
    """Calls constructing one of ``classes`` outside any scope block and outside the classes
    themselves, by id: ``(call, class name)``."""
    found: dict[int, tuple[cst.Call, str]] = {}
    if not classes:
        return found
    for call in ctx.index.calls:
        if not (isinstance(call.func, cst.Name) and call.func.value in classes):
            continue
        if ctx.tf.strategies.lexical_scope_block(call) is not None:
            continue
        func = ctx.index.enclosing_function(call)
        owner = ctx.index.method_class(func) if isinstance(func, cst.FunctionDef) else None
        if owner is None or owner.name.value not in classes:
            found[id(call)] = (call, call.func.value)
    return found


class _Finder:
    """Creations outside the scope, and whether distributed code uses what they create."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx
        self.index = ctx.index
        self.names = ctx.tf.names
        self.strategies = ctx.tf.strategies
        self.replica = ctx.tf.replica
        self._model_classes = {
            cls.name.value
            for cls in self.index.classes
            if any(self.names.qualified(base.value) in _MODEL_BASES for base in cls.bases)
        }
        self._factory_kinds: dict[str, str] = {}
        for ret in self.index.returns:
            func = self.index.enclosing_function(ret)
            if not isinstance(func, cst.FunctionDef):
                continue
            made = self._returned_call(func, ret.value)
            if made is not None and self.strategies.lexical_scope_block(made) is None:
                # A factory that enters the scope itself (`with strategy.scope(): model = ...`)
                # creates inside it wherever it is called.
                kind = self.kind_of(made, follow_factories=False)
                if kind is not None and kind != "compile":
                    self._factory_kinds[func.name.value] = kind

    def _returned_call(self, func: cst.FunctionDef, value: cst.BaseExpression | None) -> cst.Call | None:
        """The call whose result ``return value`` gives: the call itself, or a local bound once to it."""
        if isinstance(value, cst.Call):
            return value
        if not isinstance(value, cst.Name):
            return None
        bindings = [
            assign.value
            for assign in self.index.in_function("assigns", func)
            if isinstance(assign, (cst.Assign, cst.AnnAssign))
            and any(target.value == value.value for target in _name_targets(assign))
        ]
        return bindings[0] if len(bindings) == 1 and isinstance(bindings[0], cst.Call) else None

    @property
    def factory_names(self) -> frozenset[str]:
        """The module's functions that return a model, optimizer, metric or variable they make
        outside any scope."""
        return frozenset(self._factory_kinds)

    def kind_of(self, call: cst.Call, follow_factories: bool = True) -> str | None:
        qualified = self.names.callee(call)
        if qualified is not None:
            if qualified == "tensorflow.Variable":
                return "variable"
            if qualified in _MODELS or qualified.startswith(_MODEL_PREFIXES):
                return "model"
            if qualified.startswith(_OPTIMIZER_PREFIX) and not qualified[len(_OPTIMIZER_PREFIX) :].startswith(
                _NOT_STATEFUL
            ):
                return "optimizer"
            if qualified.startswith(_METRIC_PREFIX) and qualified[len(_METRIC_PREFIX) :][:1].isupper():
                return "metric"
            return self._imported_model(call)
        if self._imported_model(call) is not None:
            return "model"
        if isinstance(call.func, cst.Name):
            if call.func.value in self._model_classes:
                return "model"
            if follow_factories:
                return self._factory_kinds.get(call.func.value)
        return None

    def _imported_model(self, call: cst.Call) -> str | None:
        """``"model"`` for a call of another module of the project that builds a Keras model
        without entering a strategy scope itself."""
        imported = self.ctx.tf.project.returned(call.func)
        return "model" if imported is not None and imported.kind == "model" and not imported.enters_scope else None

    def creations(self) -> list[Creation]:
        found: list[Creation] = []
        model_names = self._model_names()
        for call in self.index.calls:
            parent = self.index.parent.get(call)
            statement = self.index.parent.get(parent) if parent is not None else None
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            small = statement.body[0]
            assigned = isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is call
            kind = self.kind_of(call) if assigned else None
            if kind is not None and isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = assignment_targets(small)
                names = tuple(t.value for t in targets if isinstance(t, cst.Name)) or tuple(
                    key for key in map(_attribute_key, targets) if key
                )
                if not names:
                    continue
            elif (
                isinstance(small, cst.Expr)
                and small.value is call
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "compile"
                and isinstance(call.func.value, cst.Name)
                and call.func.value.value in model_names
            ):
                kind, names = "compile", ()
            else:
                continue
            if not self.runs_outside(statement):
                continue
            if kind == "optimizer" and self._keras2(call):
                continue  # tf-keras (Keras 2) takes an optimizer created outside the scope (measured)
            if self.replica.in_replica_context(statement):
                continue
            found.append(Creation(statement, call, kind, names))
        return found

    def keras_model_class_of(self, creation: Creation) -> str | None:
        """The name of the Keras model class whose method (`__init__`, `build`) makes ``creation``, or None."""
        func = self.index.enclosing_function(creation.statement)
        owner = self.index.method_class(func) if isinstance(func, cst.FunctionDef) else None
        if owner is None or keras_model_base(self.index, self.names, owner) is None:
            return None
        return owner.name.value

    def _keras2(self, call: cst.Call, target: Target | None = None) -> bool:
        """The Keras that ``call`` constructs from is Keras 2 on ``target`` (default: the project's):
        tf-keras, or TensorFlow below 2.16."""
        flavour = keras_flavour(
            keras_module(self.ctx.tf, call.func), self._legacy_setting, target or self.ctx.tf.target
        )
        return flavour == 2

    def keras_unknown(self, creation: Creation) -> bool:
        """A `compile()` of a model built in the scope, judged on Keras 3 only because no release
        can be told (no file names TensorFlow, or only an unversioned image or platform pin does):
        tf-keras's `compile` enters the model's scope and trains the same, Keras 3's `fit` raises,
        so the message says both."""
        return (
            creation.kind == "compile"
            and self.ctx.tf.target.version_unknown
            and not self._scope_forgotten()
            and keras_module(self.ctx.tf, creation.call.func) == "tensorflow"
            and self._legacy_setting.value is None
            and self._legacy_setting.literal
        )

    @cached_property
    def _legacy_setting(self) -> LegacySetting:
        """The script's TF_USE_LEGACY_KERAS, read once: each read scans every assignment and call."""
        return legacy_keras(self.ctx.tf)

    def upgrade_prefix(self, creation: Creation) -> str:
        """ "on upgrade to TF X.Y: " for an optimizer or `compile()` that the pinned version's Keras 2
        tolerates outside the scope (see `creations` and `used_by_distributed_code`)."""
        target = self.ctx.tf.target
        if creation.kind not in ("optimizer", "compile") or not target.upgrade:
            return ""
        tolerated = self._keras2(creation.call, target.at_pin()) and (
            creation.kind == "optimizer" or not self._scope_forgotten()
        )
        return target.upgrade_prefix(same_at_pin=not tolerated)

    def _model_names(self) -> set[str]:
        """Names bound to a Keras model anywhere in the module."""
        names: set[str] = set()
        for assign in self.index.assigns:
            if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call):
                if self.kind_of(assign.value) == "model":
                    names.update(t.target.value for t in assign.targets if isinstance(t.target, cst.Name))
        return names

    def runs_outside(self, statement: cst.CSTNode) -> bool:
        """Outside the scope by call sites, or in a function whose own scope block it is not in."""
        membership = self.strategies.membership(statement)
        if membership is Membership.OUTSIDE:
            return True
        if membership is Membership.UNKNOWN:
            func = self.index.enclosing_function(statement)
            return func is not None and any(
                self.index.enclosing_function(w) is func for w, _ in self.strategies.scope_blocks
            )
        return False

    def used_by_distributed_code(self, creation: Creation) -> bool:
        if creation.kind == "compile":
            if not self._compiles_a_distributed_model(creation):
                return False
            if self._keras2(creation.call) and not self._scope_forgotten():
                # tf-keras's `compile` enters the model's own strategy scope: a model built in the
                # scope compiles the same outside it (benchmarks/probe_compile_outside_scope.py).
                return False
            return not self._optimizer_made_in_scope(creation)
        uses = self._uses_of(creation)
        if creation.kind == "model" and (
            self._built_first_in_scope(creation, uses) or self._built_in_a_replica_step(creation, uses)
        ):
            return False
        # A step counter or learning rate distributed code only reads works made outside the scope
        # (benchmarks/probe_ledger12b_premises.py); written by the replicas or trained, it does not.
        read_only = creation.kind == "variable" and counter_like(self.names, creation.call)
        # So does a model nothing trains that distributed code only calls for inference
        # (benchmarks/probe_ledger22c_premises.py, part 1).
        inference = (
            creation.kind == "model"
            and all("." not in name for name in creation.names)  # not a part of a model class
            and inference_only(self.index, uses, self._in_replica_step)
        )
        for node in uses:
            if read_only and (only_read(self.index, node) or not self._in_replica_step(node)):
                continue  # read, or written between steps in cross-replica code (also in the scope)
            if inference:
                continue  # called for inference, loaded, saved or tested: never trained
            if creation.kind == "model" and self._feeds_the_input_pipeline(node):
                continue  # tf.data runs it on the host: nothing of it is replicated
            if creation.kind == "metric" and self._custom_loop_metric_use(node):
                continue  # counts every replica on both Kerases (probe_ledger8b_premises)
            if self.replica.in_replica_context(node):
                return True
            if self.strategies.lexical_scope_block(node) is not None and (
                creation.kind != "metric" or (self._keras2(creation.call) and not _own_method_call(self.index, node))
            ):
                # Keras 3: a metric handed to `compile` in the scope trains and reports the same as
                # one made there; tf-keras's `compile` raises ValueError for it
                # (benchmarks/probe_metric_and_string_optimizer_outside_scope.py). One read in a
                # `train_step` override is the replica-context case above. Its own methods called
                # in the scope (`metric.update_state(x)`) run in cross-replica context, where both
                # Kerases update it as outside
                # (benchmarks/probe_metric_updated_in_cross_replica_context.py).
                return True
            if any(self.index.is_within(node, run.call) for run in self.replica.run_calls):
                return True
            parent = self.index.parent.get(node)
            if (
                creation.kind == "model"
                and isinstance(parent, cst.Attribute)
                and parent.attr.value in ("fit", "compile")
                and self._scope_forgotten()
            ):
                # A strategy built and never entered: the scope was forgotten. When the program
                # does enter one, a model trained wholly outside it is a single-device model.
                return True
        # Seed 000: a variable made before the strategy, never used, in a program training under
        # the scope — the article's "it will be used in training" case. Not one pinned by hand to a
        # device (`with tf.device(...)`): its place is chosen, it is no state left for the strategy.
        return (
            not uses
            and creation.kind == "variable"
            and bool(self.strategies.scope_blocks)
            and not self._placed_by_hand(creation.statement)
        )

    def _uses_of(self, creation: Creation) -> list[cst.CSTNode]:
        """The reads of the object ``creation`` binds (not its rebindings at module level)."""
        # A local name is only used inside its own function: a single-device baseline that builds
        # `model` in one function is not the distributed `model` of another.
        scope = self.index.enclosing_function(creation.statement)
        # The cheap scope test first: most uses of a common name (`model`) are in other functions.
        return [
            node
            for name in creation.names
            for node in self._uses(name)
            if ("." in name or scope is None or self._in_function(node, scope))
            and not self.index.is_within(node, creation.statement)
            and not (scope is None and "." not in name and isinstance(self.index.parent.get(node), cst.AssignTarget))
            # A name bound again on every path before the use (a model rebuilt in a new strategy's
            # scope after a single-device baseline, a later notebook cell) holds another object.
            and ("." in name or self._reaches(creation, node))
        ]

    def distributed_by_keras_or_run(self, creation: Creation) -> bool:
        """Some use of the model runs it under its strategy: a Keras loop method (`fit`,
        `train_on_batch`, `predict`..., or `compile`, which sets it up for them) or a step on
        every replica (given to `strategy.run`, or a `train_step` override). Otherwise its
        training step is called directly, and moving the model alone into the scope makes that
        step raise where it ran (benchmarks/probe_ledger23a_premises.py, cases 2-3)."""
        for node in self._uses_of(creation):
            parent = self.index.parent.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in _KERAS_LOOPS:
                return True
            if self._in_replica_step(node):
                return True
        return False

    def built_outside_for_distributed_code(self, model_class: str) -> bool:
        """Some construction of ``model_class`` outside the scope makes an instance that distributed
        code uses. False only when every construction outside is a plain `name = Class(...)` whose
        binding reaches no distributed use (a second instance for an eager branch, beside the one
        the training branch constructs in the scope); True when none is found outside (the class
        is placed by where its methods run) or one cannot be followed."""
        outside = [
            call
            for call in self.index.calls
            if isinstance(call.func, cst.Name)
            and call.func.value == model_class
            and self.strategies.membership(call) is Membership.OUTSIDE
        ]
        if not outside:
            return True
        for call in outside:
            assign = self.index.parent.get(call)
            statement = self.index.parent.get(assign) if assign is not None else None
            if not (
                isinstance(assign, cst.Assign)
                and isinstance(statement, cst.SimpleStatementLine)
                and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)
            ):
                return True
            creation = Creation(statement, call, "model", (assign.targets[0].target.value,))
            if self.used_by_distributed_code(creation) or self._handed_on(creation):
                return True
        return False

    def _handed_on(self, creation: Creation) -> bool:
        """The instance ``creation`` binds goes somewhere this module does not follow: a use that
        reads it other than calling it, a method or attribute of it, or a test (`model=coder`
        given to a trainer, `models.append(coder)`, `other = coder`)."""
        (name,) = creation.names
        for node in self._uses(name):
            if self.index.is_within(node, creation.statement) or not self._reaches(creation, node):
                continue
            parent = self.index.parent.get(node)
            called = isinstance(parent, cst.Call) and parent.func is node
            tested = isinstance(parent, cst.If) and parent.test is node
            if not (called or tested or isinstance(parent, (cst.AssignTarget, cst.Attribute, cst.Comparison))):
                return True
        return False

    def row_buffer(self, creation: Creation) -> bool:
        """``creation`` is a `tf.Variable` the replicas only update row by row (`scatter_*`), never
        given to an optimizer: per-example state, see fixer/tf/row_buffers.py."""
        if creation.kind != "variable":
            return False
        uses = [node for name in creation.names for node in self._uses(name)]
        return updated_by_rows(self.index, uses, self._in_replica_step)

    def tpu_possible(self) -> bool:
        """A strategy the module builds or runs on may be a TPUStrategy."""
        kinds = [kind for _, kind in self.strategies.constructions]
        kinds += [kind for run in self.replica.run_calls for kind in self.strategies.kinds(run.strategy)]
        return tpu_possible(kinds) or not kinds

    def _in_replica_step(self, use: cst.CSTNode) -> bool:
        """``use`` runs on every replica: in replica context, or in what `strategy.run` is given."""
        return self.replica.in_replica_context(use) or any(
            self.index.is_within(use, run.call) for run in self.replica.run_calls
        )

    def _custom_loop_metric_use(self, use: cst.CSTNode) -> bool:
        """``use`` of a metric runs in a custom loop's replica function (one given to
        `strategy.run`, not a Keras step override) or is handed to `strategy.run`: made outside the
        scope, the metric counts every replica's update on Keras 3 and tf-keras alike
        (benchmarks/probe_ledger8b_premises.py). One read in `train_step` under `fit` stays, and so
        does any in a ParameterServerStrategy program (measured for the synchronous strategies only):
        there the replica function runs on remote workers."""
        if any("ParameterServer" in kind for kinds in self.strategies.strategy_keys.values() for kind in kinds):
            return False
        if any(self.index.is_within(use, run.call) for run in self.replica.run_calls):
            return True
        return self.replica.in_replica_context(use) and not in_keras_step(self.replica, use)

    def _feeds_the_input_pipeline(self, use: cst.CSTNode) -> bool:
        """``use`` only serves a `dataset.map(...)` function: it is the function, lies in a lambda or
        a def handed to `.map`, or is passed to a function of this module whose parameter is used
        only so. The map runs in the input pipeline on the host; a model used there (a text
        preprocessor) trains the same made outside the scope, never replicated
        (benchmarks/probe_model_in_dataset_map.py)."""
        if self._in_map_function(use):
            return True
        arg = self.index.parent.get(use)
        call = self.index.parent.get(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(arg, cst.Arg) or not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return False
        defs = self.index.functions_by_name.get(call.func.value, [])
        if len(defs) != 1 or arg.star:
            return False
        func = defs[0]
        if arg.keyword is not None:
            name = arg.keyword.value
        else:
            position = [a for a in call.args if a.keyword is None].index(arg)
            params = positional_parameters(func)
            if position >= len(params):
                return False
            name = params[position].name.value
        reads = [
            node
            for node in self.index.names.get(name, [])
            if self.index.is_within(node, func.body) and not isinstance(self.index.parent.get(node), cst.Param)
        ]
        return bool(reads) and all(self._in_map_function(node) for node in reads)

    def _in_map_function(self, node: cst.CSTNode) -> bool:
        """``node`` is the function handed to a `.map(...)` call or lies in one (a lambda, or a def
        whose name is used only as such a function)."""
        child = node
        for ancestor in self.index.ancestors(node):
            if isinstance(ancestor, cst.Arg) and ancestor.value is child and self._map_function_argument(ancestor):
                return True
            if isinstance(ancestor, cst.FunctionDef):
                names = [n for n in self.index.names.get(ancestor.name.value, []) if n is not ancestor.name]
                parents = [self.index.parent.get(n) for n in names]
                return bool(names) and all(
                    isinstance(arg, cst.Arg) and arg.value is n and self._map_function_argument(arg)
                    for n, arg in zip(names, parents, strict=True)
                )
            child = ancestor
        return False

    def _map_function_argument(self, arg: cst.Arg) -> bool:
        """``arg`` is the first argument of a `.map(...)` call (`dataset.map(fn)`)."""
        call = self.index.parent.get(arg)
        return (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "map"
            and bool(call.args)
            and call.args[0] is arg
        )

    def _placed_by_hand(self, statement: cst.CSTNode) -> bool:
        """``statement`` runs in a `with tf.device(...):` block of its own function."""
        func = self.index.enclosing_function(statement)
        for node in self.index.ancestors(statement):
            if node is func:
                return False
            if isinstance(node, cst.With) and any(
                isinstance(item.item, cst.Call) and self.names.callee(item.item) in _DEVICE_SCOPES
                for item in node.items
            ):
                return True
        return False

    def _built_first_in_scope(self, creation: Creation, uses: list[cst.CSTNode]) -> bool:
        """A tf-keras model constructed without an input shape (so without variables) whose first
        use is inside the scope, where that use builds it: its variables are mirrored and it
        trains. Keras 3 keeps the strategy current at construction and `fit` fails, so this holds
        for tf-keras only (benchmarks/probe_model_built_in_scope.py)."""
        if not uses or not self._keras2(creation.call) or not self._constructed_unbuilt(creation.call):
            return False
        first = min(uses, key=lambda node: self.index.order[node])
        return self.strategies.lexical_scope_block(first) is not None

    def _built_in_a_replica_step(self, creation: Creation, uses: list[cst.CSTNode]) -> bool:
        """A model constructed with no variables whose only uses that can build it are in a custom
        loop's replica function that `strategy.run` runs under the scope: its first call there
        makes its variables mirrored, on Keras 3 and tf-keras alike
        (benchmarks/probe_ledger17b_premises.py). Compiling it or handing it to a
        `tf.train.Checkpoint` outside the scope builds nothing; any other use outside (an eager
        call, `build`, `fit`, `summary`, an unknown function) may build it there first."""
        if not self._constructed_unbuilt(creation.call):
            return False
        stepped = False
        for node in uses:
            if self._leaves_unbuilt(node):
                continue
            if not self._in_a_step_run_in_scope(node):
                return False
            stepped = True
        return stepped

    def _leaves_unbuilt(self, use: cst.CSTNode) -> bool:
        """``use`` of a model builds none of its variables: `model.compile(...)`, or the model handed
        to `tf.train.Checkpoint(...)` (restored lazily, at the first call)."""
        parent = self.index.parent.get(use)
        if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value == "compile":
            call = self.index.parent.get(parent)
            return isinstance(call, cst.Call) and call.func is parent
        if isinstance(parent, cst.Arg) and parent.value is use:
            call = self.index.parent.get(parent)
            return isinstance(call, cst.Call) and (self.names.callee(call) or "").endswith("train.Checkpoint")
        return False

    def _in_a_step_run_in_scope(self, use: cst.CSTNode) -> bool:
        """``use`` lies directly in a custom loop's replica function (not a Keras step override)
        whose every `strategy.run` runs inside the scope, following call sites."""
        func = self.index.enclosing_function(use)
        runs = [call for call, targets in self._replica_runs if func is not None and func in targets]
        return (
            bool(runs)
            and not in_keras_step(self.replica, use)
            and all(self.strategies.membership(call) is Membership.INSIDE for call in runs)
        )

    @cached_property
    def _replica_runs(self) -> list[tuple[cst.Call, tuple[cst.CSTNode, ...]]]:
        """The calls that run a function on every replica, with the functions they run:
        `strategy.run`, and the TF 1 `strategy.experimental_run(fn, iterator)` that TF 2.21's
        MirroredStrategy still runs on every replica (benchmarks/probe_ledger17b_premises.py)."""
        found: list[tuple[cst.Call, tuple[cst.CSTNode, ...]]] = [
            (run.call, run.targets) for run in self.replica.run_calls
        ]
        for call in self.index.calls:
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "experimental_run"
                and call.args
                and self.strategies.is_strategy(func.value)
            ):
                found.append((call, tuple(self.replica.resolve_callable(call.args[0].value, call))))
        return found

    def _constructed_unbuilt(self, call: cst.Call) -> bool:
        """``call`` makes a Keras model with no variables yet: a `Sequential` whose layers name no
        input shape, or a model class of this file."""
        if isinstance(call.func, cst.Name) and call.func.value in self._model_classes:
            return True
        if not (self.names.callee(call) or "").endswith("Sequential") or not call.args:
            return False
        layers = call.args[0].value
        if not isinstance(layers, cst.List) or not layers.elements:
            return False
        first = layers.elements[0].value
        if not isinstance(first, cst.Call):
            return False
        shaped = {"input_shape", "input_dim", "batch_input_shape", "batch_shape", "shape"}
        callee = self.names.callee(first) or ""
        return not callee.endswith(("Input", "InputLayer")) and not any(
            arg.keyword is not None and arg.keyword.value in shaped for arg in first.args
        )

    def _reaches(self, creation: Creation, use: cst.CSTNode) -> bool:
        """True when the object ``creation`` binds can be the one ``use`` (a name) reads, by the
        flow-aware binding model."""
        if not isinstance(use, cst.Name):
            return True
        # A nested function's read leaves out the bindings replaced before its def ran (a later
        # cell, or a metric made again in the scope), and, for a closure its function only calls,
        # those made after every call (an eval branch's model): the semantic model knows both.
        reaching = self.ctx.tf.semantic.resolve_at_calls(use)
        return any(self.index.is_within(b.node, creation.statement) for b in reaching)

    def _in_function(self, node: cst.CSTNode, function: cst.CSTNode) -> bool:
        """True when ``node`` lies in ``function`` (a def or lambda): along the memoised chain of
        enclosing functions, not the parents (a walk per use made this quadratic in the file)."""
        current = self.index.enclosing_function(node)
        while current is not None:
            if current is function:
                return True
            current = self.index.enclosing_function(current)
        return False

    def on_a_path_without_strategy(self, creation: Creation) -> bool:
        """The creation runs in an if/else arm other than every one that builds or enters a strategy.

        `if use_multi_gpu: strategy = ...; with strategy.scope(): ... else: model = build()`:
        the `else` arm is the deliberate single-device path.
        """
        places = [w for w, _ in self.strategies.scope_blocks] + [call for call, _ in self.strategies.constructions]
        if bool(places) and all(exclusive(self.index, creation.statement, place) for place in places):
            return True
        return self._strategy_absent(creation.statement)

    def _strategy_absent(self, node: cst.CSTNode) -> bool:
        """A branch test at ``node`` says the strategy whose scope the program enters is None
        there (`if strategy is None:`, the `else:` of `if strategy:`): the single-device path."""
        entered = {dotted_name(strategy) for _, strategy in self.strategies.scope_blocks} - {None}
        for condition in self.ctx.tf.semantic.conditions(node):
            tested = _none_test(condition.test)
            if tested is not None and tested[0] in entered and condition.holds == tested[1]:
                return True
            # `if n > 1: strategy = ... else: strategy = None`, then the same test again: its arm
            # that repeats the first one's `else` runs where the strategy is None.
            if earlier_arm_left_none(self.ctx.tf, condition, {n for n in entered if n is not None}):
                return True
        return False

    def _scope_forgotten(self) -> bool:
        """The program builds a strategy, never enters its scope, and hands it to nothing else
        (an Estimator's RunConfig distributes by itself)."""
        strategies = self.strategies
        return bool(strategies.constructions) and not strategies.scope_blocks and not strategies.handed_over

    def _compiles_a_distributed_model(self, creation: Creation) -> bool:
        """The compiled model is one this program distributes: built in a strategy scope.

        A program that builds a strategy and never enters its scope forgot it; otherwise a
        model built outside every scope (a baseline, or one under another object's
        ``scope()``) is deliberately single-device and compiling it outside is right.
        """
        if self._scope_forgotten():
            return True
        if not self.strategies.scope_blocks:
            return False
        # `model.compile(...)` on a plain name (creations() keeps only those).
        model = cst.ensure_type(cst.ensure_type(creation.call.func, cst.Attribute).value, cst.Name)
        # The bindings that reach this `compile`: a baseline model compiled before the program
        # rebuilds the name in a scope is not that later model. A model the function builds
        # itself is that local one, not a module-level namesake.
        bindings = [b.statement for b in self.ctx.tf.semantic.resolve(model)]
        return any(self.strategies.membership(statement) is Membership.INSIDE for statement in bindings)

    def _optimizer_made_in_scope(self, creation: Creation) -> bool:
        """``model.compile(optimizer=opt)`` with a Keras 3 ``opt`` that every path meeting a scope
        builds inside it (a binding in the other arm of an ``if`` that creates the strategy does
        not meet it): the model and optimizer then already belong to the strategy, and compiling
        outside the scope trains identically (measured with 2 replicas on Keras 3)."""
        optimizer = argument_value(creation.call, 0, "optimizer")
        if self._keras2(creation.call):
            return False
        if isinstance(optimizer, cst.SimpleString) and optimizer.evaluated_value.lower() == "sgd":
            # A plain SGD has no state to distribute: compiled outside the scope it trains the same
            # (benchmarks/probe_metric_and_string_optimizer_outside_scope.py). Stateful ones stay.
            return True
        if not isinstance(optimizer, cst.Name):
            return False
        func = self.index.enclosing_function(creation.statement)
        bindings = [
            assign
            for assign in self.index.in_function("assigns", func)
            if isinstance(assign, (cst.Assign, cst.AnnAssign))
            and any(target.value == optimizer.value for target in _name_targets(assign))
        ]
        scopes = [block for block, _ in self.strategies.scope_blocks]
        return bool(bindings) and all(
            self.strategies.membership(assign) is Membership.INSIDE
            or all(exclusive(self.index, assign, block) for block in scopes)
            for assign in bindings
        )

    def _uses(self, name: str) -> list[cst.CSTNode]:
        if "." in name:
            return [a for a in self.index.attributes if _attribute_key(a) == name]
        return [node for node in self.index.names.get(name, []) if not _label(self.index, node)]


def _label(index: ModuleIndex, node: cst.CSTNode) -> bool:
    """``node`` is a keyword's label (`compile(optimizer="adam")`) or an attribute's name
    (`model.optimizer`), not a read of the variable that has its name."""
    parent = index.parent.get(node)
    return (isinstance(parent, cst.Arg) and parent.keyword is node) or (
        isinstance(parent, cst.Attribute) and parent.attr is node
    )


def _none_test(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """``(name, when)`` for a test of whether ``name`` is None: the object is None (or falsy)
    when the test is ``when`` (``x is None``, ``not x``: True; ``x is not None``, ``x``: False)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _none_test(test.expression)
        return (inner[0], not inner[1]) if inner is not None else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
            name = dotted_name(test.left)
            if name is None:
                return None
            if isinstance(target.operator, (cst.Is, cst.Equal)):
                return name, True
            if isinstance(target.operator, (cst.IsNot, cst.NotEqual)):
                return name, False
        return None
    name = dotted_name(test)
    return (name, False) if name is not None else None


def _name_targets(assign: cst.Assign | cst.AnnAssign) -> list[cst.Name]:
    """The plain names an assignment binds."""
    targets = assignment_targets(assign)
    return [t for t in targets if isinstance(t, cst.Name)]


def _attribute_key(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return f"self.{node.attr.value}"
    return None


def _consecutive_runs(ctx: RuleContext, group: list[Creation]) -> list[list[Creation]]:
    """Split creations of one block into runs of adjacent statements."""
    block = ctx.index.parent.get(group[0].statement)
    body = list(getattr(block, "body", ()))
    runs: list[list[Creation]] = []
    for creation in group:
        position = _position_in(body, creation.statement)
        if runs and position is not None and _position_in(body, runs[-1][-1].statement) == position - 1:
            runs[-1].append(creation)
        else:
            runs.append([creation])
    return runs


def _position_in(body: list[cst.CSTNode], statement: cst.CSTNode) -> int | None:
    for position, candidate in enumerate(body):
        if candidate is statement:
            return position
    return None


def _fix_for(ctx: RuleContext, run: list[Creation]) -> tuple[list[Edit] | None, Applicability | None]:
    """Move the run into a scope block of its own block, or wrap it; None when neither is safe."""
    block = ctx.index.parent.get(run[0].statement)
    body = list(getattr(block, "body", ()))
    first = _position_in(body, run[0].statement)
    last = _position_in(body, run[-1].statement)
    if (
        first is None
        or last is None
        or any(isinstance(c.statement, cst.SimpleStatementLine) and ";" in ctx.source(c.statement) for c in run)
    ):
        return None, Applicability.DISPLAY_ONLY
    moved: list[cst.BaseStatement] = [c.statement for c in run]
    scope_withs = {id(w): s for w, s in ctx.tf.strategies.scope_blocks}
    start, end = ctx.statement_block(moved)
    removal = Edit(start, _swallow_blank_line(ctx, start, end), "")
    compiled = _compiled_models(run)
    # Into the next scope block of this block, at its top. Never a `compile`: a later block did
    # not build the model it compiles (that model is bound before it), and never into another
    # notebook cell (re-running this cell would no longer do what it does).
    for position in range(last + 1, len(body)):
        if compiled:
            break
        candidate = body[position]
        if (
            id(candidate) in scope_withs
            and isinstance(candidate, cst.With)
            and isinstance(candidate.body, cst.IndentedBlock)
        ):
            skipped = ctx.text[end : ctx.statement_block([candidate])[0]]
            if cell_boundaries(skipped) == 0 and _independent(moved, body[last + 1 : position], compiled):
                target = candidate.body.body[0]
                indent = ctx.indentation(target)
                insert_at = ctx.statement_block([target])[0]
                moved_text = reindented_statements(ctx, [c.statement for c in run], indent) + _ready_lines(
                    ctx, run, insert_at, indent
                )
                return [removal, Edit(insert_at, insert_at, moved_text)], None
            break
    # Into the previous scope block of this block, at its end.
    for position in range(first - 1, -1, -1):
        candidate = body[position]
        if (
            id(candidate) in scope_withs
            and isinstance(candidate, cst.With)
            and isinstance(candidate.body, cst.IndentedBlock)
        ):
            last_inner = candidate.body.body[-1]
            insert_at = ctx.textmap.line_end(ctx.range(last_inner).end.line)
            if _into_a_distant_cell(ctx, run, ctx.text[insert_at:start]):
                break  # re-running this cell would no longer create what it creates
            if compiled and not _built_in(ctx, run, candidate):
                break  # the block must be the one that built the compiled model
            if _independent(moved, body[position + 1 : first], compiled):
                indent = ctx.indentation(last_inner)
                moved_text = reindented_statements(ctx, [c.statement for c in run], indent) + _ready_lines(
                    ctx, run, insert_at, indent
                )
                return [removal, Edit(insert_at, insert_at, moved_text)], None
            break
    # Wrap in place with the program's strategy, if it is bound before the statements.
    strategy = strategy_in_reach(ctx.tf, run[0].statement)
    if strategy is None or may_be_none(ctx.tf, strategy, run[0].statement):
        return None, Applicability.DISPLAY_ONLY  # `None.scope()` would raise where it ran before
    indent = ctx.indentation(run[0].statement)
    header = f"{indent}with {strategy}.scope():{ctx.newline}"
    block_start = ctx.statement_block(moved)[0]
    inner = indent + ctx.indent_unit
    wrapped = (
        header + reindented_statements(ctx, [c.statement for c in run], inner) + _ready_lines(ctx, run, end, inner)
    )
    return [Edit(block_start, end, wrapped)], None


def _compiled_models(run: list[Creation]) -> set[str]:
    """The models the run's `model.compile(...)` statements set up (what a use of them needs)."""
    receivers = (_receiver(c) for c in run if c.kind == "compile")
    return {receiver.value for receiver in receivers if receiver is not None}


def _receiver(creation: Creation) -> cst.Name | None:
    func = creation.call.func
    return func.value if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) else None


def _independent(moved: list[cst.BaseStatement], between: list[cst.BaseStatement], compiled: set[str]) -> bool:
    """Moving ``moved`` across ``between`` changes nothing either sees, and no statement of
    ``between`` uses a model the moved `compile` sets up (it would then meet it uncompiled)."""
    if not independent([*moved], [*between]):
        return False
    return not (compiled & set().union(set(), *(names_in(s) for s in between)))


def _built_in(ctx: RuleContext, run: list[Creation], block: cst.With) -> bool:
    """Every model the run compiles is bound, where its `compile` reads it, inside ``block``."""
    for creation in (c for c in run if c.kind == "compile"):
        receiver = _receiver(creation)
        binding = ctx.tf.semantic.only_binding(receiver) if receiver is not None else None
        if binding is None or not ctx.index.is_within(binding.node, block):
            return False
    return True


def _into_a_distant_cell(ctx: RuleContext, run: list[Creation], skipped: str) -> bool:
    """A move up over ``skipped`` text goes into a much earlier notebook cell (past a whole cell),
    or into another cell while the name is bound elsewhere too (a later cell's own object)."""
    boundaries = cell_boundaries(skipped)
    if boundaries >= 2:
        return True
    if boundaries == 0:
        return False
    moved = {id(c.statement) for c in run}
    for name in {n for c in run for n in c.names if "." not in n}:
        for node in ctx.index.names.get(name, ()):
            if (
                isinstance(ctx.index.parent.get(node), cst.AssignTarget)
                and id(ctx.index.statement_of(node)) not in moved
            ):
                return True
    return False


def _ready_lines(ctx: RuleContext, run: list[Creation], at: int, indent: str) -> str:
    """The statements that build a moved Keras optimizer with state, when a compiled distributed
    step applies it: once in the scope, an unbuilt one makes that step fail with 2 replicas
    (TFD109). Empty when nothing is needed or the model is not ready at ``at``."""
    lines = [
        line
        for creation in run
        if creation.kind == "optimizer"
        for line in build_lines_after_move(ctx.tf, creation.call, at)
    ]
    return "".join(f"{indent}{line}{ctx.newline}" for line in lines)


def _swallow_blank_line(ctx: RuleContext, start: int, end: int) -> int:
    """Extend a removal over the blank line after it when a blank line also precedes it."""
    before = ctx.textmap.position(start).line - 1
    after_line = ctx.textmap.position(end).line
    if end >= len(ctx.text) or after_line > len(ctx.textmap.line_starts):
        return end
    blank_before = before == 0 or not ctx.textmap.line_text(before).strip()
    if blank_before and not ctx.textmap.line_text(after_line).strip():
        return ctx.textmap.line_end(after_line)
    return end


_METRIC_METHODS = frozenset({"update_state", "result", "reset_state", "reset_states"})


def _own_method_call(index: ModuleIndex, node: cst.CSTNode) -> bool:
    """``node`` is the object of one of a metric's own methods (`metric.update_state(x)`) or the
    metric called itself (`metric(x)`, which updates it and returns the result): in cross-replica
    code fed a reduced value, both Kerases give the same mean as one made in the scope
    (benchmarks/probe_ledger17b_premises.py)."""
    parent = index.parent.get(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return True
    return (
        isinstance(parent, cst.Attribute)
        and parent.value is node
        and parent.attr.value in _METRIC_METHODS
        and isinstance(index.parent.get(parent), cst.Call)
    )
