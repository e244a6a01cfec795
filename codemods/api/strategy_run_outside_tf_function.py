"""TFD402: `strategy.run` called eagerly, outside a `tf.function`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import RUN_CALL
from fixer.fixes.optimizer_build import ready_for_compiled_step
from fixer.prefilter import STRATEGY
from fixer.rule import Rule
from fixer.semantic import BindingKind
from fixer.test_files import asserts_itself_or_in_a_helper, asserts_within, is_fixture_script, is_test_file
from fixer.tf.classes import bases_in_module, enclosing_unit_test
from fixer.tf.compat import inside_graph_block, leaves_after_first_pass, runs_repeatedly, runs_tf1_graphs
from fixer.tf.graph_methods import runs_in_graph
from fixer.tf.names import dotted_name
from fixer.tf.run_time_compiling import (
    attribute_compiled_in_class,
    eager_by_design,
    orbit_base_in_project,
    orbit_compiling_turned_off,
)
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from collections.abc import Iterator

    from fixer.context import RuleContext
    from fixer.tf.replica import RunCall

_PARAMETER_SERVER = "tensorflow.distribute.experimental.ParameterServerStrategy"
# Base classes whose attributes are known not to be compiled replica functions.
_KNOWN_BASE_LIBRARIES = frozenset({"tensorflow", "keras", "tf_keras", "builtins", "abc", "object"})


class StrategyRunOutsideTfFunction(Rule):
    """
    ## What it does
    Finds `strategy.run(...)` in a function that is not compiled with `tf.function` (and is not
    only called from one), or at module level.

    ## Why is this bad in distributed training?
    Eager `strategy.run` executes the replicas one after another in Python: TensorFlow warns
    `Using MirroredStrategy eagerly has significant overhead`, and a reported case ran about
    25 times slower. Inside a `tf.function` the replicas run in parallel in one graph.

    ## Fix safety
    Unsafe: `@tf.function` is added to the function that calls `strategy.run`, right above its
    `def` (under any decorator of yours, which then wraps the compiled step). Tracing changes
    Python side effects (a `print` runs once per trace, Python lists are captured), so review
    the step. When the call sits in a Python loop or at module level, the finding only says what
    to do: move the `strategy.run` call into a separate step function decorated with
    `@tf.function` and call that from the loop. A Keras 3 optimizer with state (Adam, RMSprop,
    SGD with momentum...) creates its variables on its first `apply_gradients`, which fails
    inside a compiled step with 2 replicas (measured on TensorFlow 2.21: `You must feed a value
    for placeholder tensor 'cond/else/_1/cond/Placeholder'`; plain SGD fails the same way when
    the step is also what builds the model). The fix therefore makes the optimizer ready as
    TFD109 does (`fixer/tf/optimizers.py`): `optimizer.build(model.trainable_variables)` right
    after the optimizer is created, preceded by `model.build((None, ...))` when the model has no
    weights yet and the file writes its input shape down. Otherwise (the shape is only known at
    run time, an optimizer of unknown kind such as `model.optimizer` after
    `compile(optimizer="adam")`), the finding is advice: building on an empty variable list
    makes `apply_gradients` raise.

    ## Known limits
    - Not reported: a `strategy.run` whose replica function is itself a `tf.function` (TensorFlow
      then clones it and runs every replica inside that one graph,
      `mirrored_run.call_for_each_replica`).
    - Not reported: a replica function given as a name whose every binding that reaches the call is
      `tf.function(...)` (`step = tf.function(agent.update)` before `strategy.run(step, ...)`); a
      name compiled on one path only (`if flag: step = tf.function(step)`) stays reported.
    - Not reported: the `train_step` of a subclass of orbit's `StandardTrainer` (`eval_step` of a
      `StandardEvaluator`; `orbit` also from a vendored copy): orbit calls it from a loop it wraps in
      `tf.function`, as Keras does a `train_step`, unless the module passes
      `StandardTrainerOptions(use_tf_function=False)` (then it stays reported). A function of the
      module bound into such a class by assignment (`train_step = train_step` in the class body, a
      notebook writing the methods in cells of their own) is that step too. orbit may be an
      attribute of an imported project module (`trainer_lib.orbit.StandardTrainer`) or the base of
      a project class of another module (`trainer_lib.AsyncTrainer`); a value the
      module does not state (a config field, a flag) counts as orbit's default, true.
    - Not reported: `strategy.run(self.step, ...)` in a class one of whose methods assigns
      `self.step = tf.function(...)`, also under a flag (the attribute form of run-time wrapping),
      and a replica function that calls `.numpy()`: it needs eager tensors, so it cannot be
      compiled as written and running it eagerly is its design.
    - Not reported: a replica function the module cannot resolve to a def of its own (an element
      of a list, `fns[i]` or `for fn in fns`; a parameter; an import; what a function imported
      from another module returns): a builder there may have compiled it, and TFD402 does not
      follow it into other modules. `obj.method` and what a local call returns stay reported.
    - Not reported: `strategy.run(self.func, ...)` where `self.func` is no method but an attribute
      every assignment of the class sets to a parameter (`self.func = func` in `__init__`), in a
      class the module never calls nor uses as a decorator: a wrapper (a decorator class) of steps
      other modules hand in, which may be `tf.function`s. A class the module instantiates itself
      with what it runs stays reported.
    - Not reported: `strategy.run(self.fn, ...)` where neither the class nor a base class of the
      module defines or assigns `self.fn`, and the class derives from a class of another module
      or library (not TensorFlow's or Keras's): that base made it, and may have compiled it
      (TF-Agents' eager policy base sets `common.function(policy.action)`). `self.fn =
      common.function(...)` in the class counts as `tf.function(...)`.
    - Not reported: a module-level function its own module never calls, when every call of it
      in the project's other files stands in a function they compile with `tf.function`
      (decorated, `<module>.function`, or `f = tf.function(f)`): each call traces it into that
      graph. Callers are those the importers' view sees (a folder is checked; importers that
      name a strategy, fixer/tf/importers.py); with none seen, or one eager, it stays reported.
    - Not reported: a `strategy.run` under `with tf.Graph().as_default():` (or a `Session`'s) in its
      function, which adds graph ops that the code evaluates later.
    - Not reported: methods that run in graph mode because of their class. A `SessionRunHook`
      subclass (also through project base classes of other modules): the Estimator calls `begin`
      while it builds its graph, `strategy.run` there adds ops (and `@tf.function` on `begin`
      would make the tensors it keeps unfetchable: benchmarks/probe_graph_mode_methods.py). A
      method a class of its hierarchy compiles at run time (`tf.function(self.train_step)`, or of
      a local name bound to `self.train_step`, in a base class's constructor, even under a flag,
      also in another module of the project).
    - Tests (a `test*` method of a `TestCase`, or a `test*` function of a test file): reported only
      when the test repeats a training `strategy.run` in a loop, and then as advice (no rewrite
      decorates a test with `tf.function`). Not reported: one call (with mocks and assertions, a
      test checks that call), a loop that asserts on every pass (a golden-value test checks each
      step's value), a replica function that asserts (in its body or a helper of the module it
      calls: per-step Python state, which a `tf.function` would check only while tracing), or a
      test that says it runs eagerly (its name, a comment, its
      decorators: `mode=["graph", "eager"]`, `run_in_graph_and_eager_modes`;
      `run_functions_eagerly`). Nor in a test suite's input files (`tests/data/`, `testdata/`,
      `<bundle>.test/data/`: scripts a launcher test starts or an analyser's tests read).
    - Not reported: programs whose only strategy is `OneDeviceStrategy` (one replica: nothing runs
      one after another).
    - Not reported: one-shot steps. A loop whose body ends with an unconditional `break` or
      `return` (and holds no `continue`) runs it once; a function that steps on
      `next(iter(d))`, `d` a distributed dataset it makes, takes the same first batch on every
      call (a test helper comparing one prediction) unless a loop of the module calls it.

    ## Runtime evidence
    None: the results are the same, only slower. `distfix validate` runs both variants.

    Measured on TensorFlow 2.21 with 2 replicas (`benchmarks/probe_training_step_placement.py`,
    output in `docs/probes.md`): 16 eager `strategy.run` steps took 2.15 s under Keras 3 (2.39 s
    under tf-keras) against 0.10 s (0.06 s) in a `tf.function`, with identical weights, and only
    the eager loop logged the overhead warning quoted above.

    ## References
    - https://www.tensorflow.org/guide/distributed_training#using_tfdistributestrategy_with_custom_training_loops
    - https://www.tensorflow.org/guide/function
    """

    code = "TFD402"
    name = "strategy-run-outside-tf-function"
    message = "`strategy.run` outside a `tf.function` runs replicas one after another"
    fix_title = "Compile the step with `@tf.function`"
    applicability = Applicability.UNSAFE
    triggers = (".run(", "experimental_run_v2")
    needs = (STRATEGY,)
    facts = (RUN_CALL,)

    def check(self, ctx: RuleContext) -> None:
        replica = ctx.tf.replica
        if is_fixture_script(ctx.path):
            return  # an input of a test suite (a job a launcher test starts, a file an analyser reads)
        if ctx.tf.strategies.single_replica:
            return  # OneDeviceStrategy: one replica, nothing runs "one after another"
        if runs_tf1_graphs(ctx.index, ctx.tf.names):
            return  # TF1 graphs: `strategy.run` adds ops that a session runs, nothing is eager
        seen: set[int] = set()
        for run in replica.run_calls:
            if ctx.tf.strategies.kinds(run.strategy) & {_PARAMETER_SERVER}:
                continue
            if replica.target_is_tf_function(run):
                # TF clones a tf.function given to run and calls every replica inside that one
                # graph (mirrored_run.call_for_each_replica): not replica after replica.
                continue
            if (
                _replica_function_unknown(ctx, run)
                or _attribute_handed_in(ctx, run)
                or _attribute_of_an_imported_base(ctx, run)
            ):
                continue  # may be a tf.function compiled elsewhere: eager or not cannot be told
            if _names_a_compiled_function(ctx, run):
                continue  # `f = tf.function(obj.method)` then `strategy.run(f, ...)`: one graph
            if attribute_compiled_in_class(ctx.tf, run):
                continue  # `self.step = tf.function(self.step)` in the class, then `strategy.run(self.step, ...)`
            if eager_by_design(ctx.tf, run):
                continue  # the replica function calls `.numpy()`: it cannot be compiled as written
            func = ctx.index.enclosing_function(run.call)
            if func is not None and _orbit_compiled_step(ctx, func):
                continue  # orbit wraps its train loop, and so this step, in a tf.function
            if func is not None and (func in replica.replica_functions or id(func) in seen):
                continue
            if func is not None and (replica.is_tf_function(func) or replica.only_called_from_graphs(func)):
                continue
            if func is not None and _only_traced_by_importers(ctx, func):
                continue  # a helper that every caller in the project calls from its `tf.function` step
            if inside_graph_block(ctx.index, ctx.tf.names, run.call):
                continue  # under `tf.Graph().as_default()`: graph ops, evaluated later, not eager
            if runs_in_graph(ctx.tf, run.call):
                continue  # a SessionRunHook's method or a step its base class compiles: graph mode
            if is_test_file(ctx.path, ctx.module) and _replica_function_asserts(ctx, run):
                continue  # a test's step checks Python state each step: compiled, its asserts would run only at trace
            test = enclosing_unit_test(ctx.index, run.call, is_test_file(ctx.path, ctx.module))
            if test is not None and (_says_eager(ctx, test) or not _loops_in_test(ctx, run.call, test)):
                continue  # a test checks one call, or eager execution on purpose: compiling changes what it tests
            if not runs_repeatedly(ctx.index, ctx.tf.strategies, run.call):
                continue  # one call (an initialisation): its eager cost is paid once
            if _one_off_callback(ctx, run, func):
                continue  # a hook run once per replica (a profiler start): no step, nothing to compile
            if _steps_on_first_batch_only(ctx, run, func):
                continue  # the same first batch on every call: a one-step check, not a loop over data
            if not replica.trains(run):
                continue  # an eager loop that only computes values (a demo, inference) trains nothing
            if func is not None:
                seen.add(id(func))
            self._report(ctx, run.call, func, in_test=test is not None)

    def _report(
        self, ctx: RuleContext, call: cst.Call, func: cst.FunctionDef | cst.Lambda | None, in_test: bool = False
    ) -> None:
        in_loop = any(isinstance(a, (cst.For, cst.While)) for a in self._ancestors_within(ctx, call, func))
        # Advice in a test: no rewrite decorates a test (or a step nested in one) with tf.function.
        if func is None or not isinstance(func, cst.FunctionDef) or in_loop or in_test:
            ctx.report(
                call,
                "`strategy.run` runs eagerly here, replica after replica; put it in a step function decorated "
                "with `@tf.function` and call that step from the loop",
            )
            return
        message = (
            f"`strategy.run` in `{func.name.value}`, which is not a `tf.function`: replicas run one after "
            "another; compile the step with `@tf.function`"
        )
        builds = ready_for_compiled_step(ctx, ctx.tf.replica.replica_functions)
        if builds is None:
            ctx.report(
                call,
                message + "; build the model and then its Keras optimizer first",
            )
            return
        tf, imports = ctx.import_module("tensorflow", "tf")
        # Closest to the def: other decorators (timers, loggers) then wrap the compiled step.
        def_line = ctx.range(func.name).start.line
        line_start = ctx.textmap.line_starts[def_line - 1]
        indent = ctx.indentation(func.name)
        ctx.report(
            call,
            message,
            edits=[*imports, *builds, Edit(line_start, line_start, f"{indent}@{tf}.function{ctx.newline}")],
        )

    def _ancestors_within(
        self, ctx: RuleContext, node: cst.CSTNode, func: cst.FunctionDef | cst.Lambda | None
    ) -> Iterator[cst.CSTNode]:
        for ancestor in ctx.index.ancestors(node):
            if ancestor is func:
                return
            yield ancestor


def _says_eager(ctx: RuleContext, test: cst.FunctionDef) -> bool:
    """The test runs eagerly on purpose: its name, a comment in it or its decorators say so
    (``# Test running eagerly``, ``test_eager_step``, ``@run_in_graph_and_eager_modes``, a
    ``mode=["graph", "eager"]`` parametrisation), or it turns functions eager
    (``run_functions_eagerly``)."""
    if "eager" in test.name.value.lower():
        return True
    if any("eager" in ctx.source(decorator).lower() for decorator in test.decorators):
        return True
    text = ctx.source(test.body)
    return "run_functions_eagerly" in text or any(
        "eager" in line.partition("#")[2].lower() for line in text.splitlines()
    )


def _loops_in_test(ctx: RuleContext, call: cst.Call, test: cst.FunctionDef) -> bool:
    """``call`` repeats within the test: a loop (not left after its first pass) holds it between it
    and the test, or the function holding it is called from such a loop. A test that steps once
    checks that one step, and a loop that asserts on every pass checks each step's value (a
    golden-value test of an optimizer): neither is a training loop whose speed matters."""
    loop = _repeating_loop(ctx, call, test)
    if loop is not None:
        return not asserts_within(loop.body)
    func = ctx.index.enclosing_function(call)
    return func is not None and func is not test and _called_from_a_loop(ctx, func)


def _replica_function_asserts(ctx: RuleContext, run: RunCall) -> bool:
    """A def of the module that ``run`` runs asserts (``assert``, ``self.assert*``), in its own body
    or in a function of the module it calls: it checks per-step Python state, which under
    `tf.function` would be checked only while tracing (benchmarks/probe_ledger15a_premises.py), so
    eager execution is the test's design."""
    return any(
        isinstance(target, cst.FunctionDef) and asserts_itself_or_in_a_helper(ctx.index, target)
        for target in run.targets
    )


def _in_a_repeating_loop(ctx: RuleContext, node: cst.CSTNode, boundary: cst.CSTNode | None) -> bool:
    """A loop not left after its first pass holds ``node`` below ``boundary``."""
    return _repeating_loop(ctx, node, boundary) is not None


def _repeating_loop(ctx: RuleContext, node: cst.CSTNode, boundary: cst.CSTNode | None) -> cst.For | cst.While | None:
    """The innermost loop not left after its first pass that holds ``node`` below ``boundary``."""
    for ancestor in ctx.index.ancestors(node):
        if ancestor is boundary:
            return None
        if isinstance(ancestor, cst.For | cst.While) and not leaves_after_first_pass(ancestor):
            return ancestor
    return None


def _only_traced_by_importers(ctx: RuleContext, func: cst.FunctionDef | cst.Lambda) -> bool:
    """``func`` is a module-level function its own module never calls, and every call of it the
    project's other files make stands in a function they compile with `tf.function` (a step
    that loops `for _ in tf.range(n)` over it): it is traced into their graphs, never eager.
    Not when no caller is seen (outside a project root, or importers that name no strategy)."""
    if not isinstance(func, cst.FunctionDef) or not isinstance(ctx.index.parent.get(func), cst.Module):
        return False
    if any(ctx.index.enclosing_function(site) is not func for site in ctx.tf.strategies.call_sites(func)):
        return False  # its own module calls it: only_called_from_graphs answered for those calls
    importers = ctx.tf.importers
    uses = importers.uses(func.name.value) if importers is not None else []
    return bool(uses) and all(use.compiled for use in uses)


def _replica_function_unknown(ctx: RuleContext, run: RunCall) -> bool:
    """True when the module cannot tell which function ``run`` runs, so not whether it is a
    `tf.function`: no def of the module resolves it and it is an element of a container
    (`fns[i]`, the variable of a `for` loop over one), what a builder imported from another
    module returns, or a name that is a parameter, an import, or bound to one of those."""
    fn = run.fn
    if run.targets or fn is None:
        return False
    if isinstance(fn, cst.Subscript) or (isinstance(fn, cst.Call) and _built_elsewhere(ctx, fn)):
        return True
    if not isinstance(fn, cst.Name):
        return False  # `obj.method`: the method of an object of another module, left reported
    return any(
        b.kind in (BindingKind.PARAMETER, BindingKind.IMPORT, BindingKind.LOOP)
        or isinstance(b.value, cst.Subscript)
        or (isinstance(b.value, cst.Call) and _built_elsewhere(ctx, b.value))
        for b in ctx.tf.semantic.resolve(fn)
    )


def _attribute_handed_in(ctx: RuleContext, run: RunCall) -> bool:
    """``run`` runs ``self.<attr>``, an attribute (no method) of its class that every assignment
    in the class sets to a parameter of the method making it (``self.func = func`` in
    ``__init__``), of a class the module never calls nor uses as a decorator: a wrapper of a step
    that code elsewhere hands in, compiled or not (a decorator class over `@tf.function` steps)."""
    attribute_run = _self_attribute_run(ctx, run)
    if attribute_run is None:
        return False
    cls, owner, attr = attribute_run
    assigns = [a for a in ctx.index.assignments_by_target.get(f"{owner}.{attr}", []) if _method_of(ctx, a) is cls]
    handed = bool(assigns) and all(
        isinstance(a.value, cst.Name)
        and (found := ctx.tf.semantic.resolve(a.value))
        and all(b.kind is BindingKind.PARAMETER for b in found)
        for a in assigns
    )
    return handed and not _class_called(ctx, cls)


def _attribute_of_an_imported_base(ctx: RuleContext, run: RunCall) -> bool:
    """``run`` runs ``self.<attr>``, which neither its class nor a base class of the module
    defines or assigns, in a class deriving from a class of another module (not TensorFlow's or
    Keras's, whose attributes are known): that base made it, maybe with ``tf.function`` (TF-Agents'
    eager policy base sets its action function so), which this module cannot tell."""
    attribute_run = _self_attribute_run(ctx, run)
    if attribute_run is None:
        return False
    cls, owner, attr = attribute_run
    family = [cls, *bases_in_module(ctx.index, cls)]
    if any(
        isinstance(statement, cst.FunctionDef) and statement.name.value == attr
        for member in family
        for statement in member.body.body
    ):
        return False
    if any(
        _method_of(ctx, a) in family
        for target, assigns in ctx.index.assignments_by_target.items()
        if target.endswith(f".{attr}")
        for a in assigns
    ):
        return False
    return any(
        (name := ctx.tf.names.qualified(base.value)) is not None and name.split(".")[0] not in _KNOWN_BASE_LIBRARIES
        for member in family
        for base in member.bases
    )


def _self_attribute_run(ctx: RuleContext, run: RunCall) -> tuple[cst.ClassDef, str, str] | None:
    """The class, ``self`` and ``attr`` of the ``self.<attr>`` that ``run`` runs, when ``run`` is in
    a method of that class and names an attribute of the method's first parameter (None otherwise)."""
    fn = run.fn
    if run.targets or not isinstance(fn, cst.Attribute) or not isinstance(fn.value, cst.Name):
        return None
    method = ctx.index.enclosing_function(run.call)
    if not isinstance(method, cst.FunctionDef) or not method.params.params:
        return None
    cls = ctx.index.method_class(method)
    if cls is None or method.params.params[0].name.value != fn.value.value:
        return None
    return cls, fn.value.value, fn.attr.value


def _method_of(ctx: RuleContext, node: cst.CSTNode) -> cst.ClassDef | None:
    function = ctx.index.enclosing_function(node)
    return ctx.index.method_class(function) if isinstance(function, cst.FunctionDef) else None


def _class_called(ctx: RuleContext, cls: cst.ClassDef) -> bool:
    """The module calls ``cls`` by its name or decorates something with it."""
    for use in ctx.index.names.get(cls.name.value, []):
        parent = ctx.index.parent.get(use)
        if (isinstance(parent, cst.Call) and parent.func is use) or isinstance(parent, cst.Decorator):
            return True
    return False


def _names_a_compiled_function(ctx: RuleContext, run: RunCall) -> bool:
    """``run`` runs a name whose every reaching binding is ``tf.function(...)`` of something
    (``step = tf.function(self.train_step)`` before ``strategy.run(step, ...)``): a compiled
    replica function, which TensorFlow runs on every replica in one graph."""
    fn = run.fn
    if not isinstance(fn, cst.Name):
        return False
    bindings = ctx.tf.semantic.resolve(fn)
    return bool(bindings) and all(
        isinstance(b.value, cst.Call) and ctx.tf.names.callee(b.value) == _TF_FUNCTION for b in bindings
    )


def _orbit_compiled_step(ctx: RuleContext, func: cst.FunctionDef | cst.Lambda) -> bool:
    """``func`` is (or is nested in) the ``train_step`` of an orbit ``StandardTrainer`` subclass
    (``eval_step`` of a ``StandardEvaluator``), and the module turns off no ``use_tf_function``
    option: orbit's ``train``/``evaluate`` call the step from a loop they compile with
    ``tf.function`` unless ``StandardTrainerOptions(use_tf_function=False)`` is passed."""
    if orbit_compiling_turned_off(ctx.tf):
        return False
    method: cst.FunctionDef | cst.Lambda | None = func
    while method is not None:
        owner = ctx.index.method_class(method) if isinstance(method, cst.FunctionDef) else None
        if owner is not None and isinstance(method, cst.FunctionDef):
            base = _ORBIT_STEPS.get(method.name.value)
            return base is not None and any(
                _is_orbit_class(ctx, arg.value, base) or orbit_base_in_project(ctx.tf, arg.value, base)
                for cls in [owner, *bases_in_module(ctx.index, owner)]
                for arg in cls.bases
            )
        if isinstance(method, cst.FunctionDef) and ctx.index.enclosing_function(method) is None:
            return _assigned_into_orbit_class(ctx, method)
        method = ctx.index.enclosing_function(method)
    return False


def _assigned_into_orbit_class(ctx: RuleContext, func: cst.FunctionDef) -> bool:
    """``func``, a function of the module, becomes an orbit step by a class-body assignment
    (`class T(orbit.StandardTrainer): train_step = train_step`, a notebook defining the methods in
    cells of their own): the name on the right is resolved to ``func`` by fixer/semantic, so a
    later redefinition is not mistaken for it (ledger14a class 2)."""
    for owner in ctx.index.classes:
        for line in owner.body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                continue
            for statement in line.body:
                if not (
                    isinstance(statement, cst.Assign)
                    and len(statement.targets) == 1
                    and isinstance(statement.targets[0].target, cst.Name)
                    and isinstance(statement.value, cst.Name)
                    and statement.value.value == func.name.value
                ):
                    continue
                base = _ORBIT_STEPS.get(statement.targets[0].target.value)
                # The class body reads the name before binding its own: what reaches the class
                # statement (Python falls back to the module there; fixer/semantic sees the body's
                # own binding only).
                reaching = ctx.tf.semantic.reaching(func.name.value, owner)
                if base is None or not any(b.statement is func for b in reaching):
                    continue
                if any(
                    _is_orbit_class(ctx, arg.value, base) or orbit_base_in_project(ctx.tf, arg.value, base)
                    for cls in [owner, *bases_in_module(ctx.index, owner)]
                    for arg in cls.bases
                ):
                    return True
    return False


def _is_orbit_class(ctx: RuleContext, expression: cst.BaseExpression, base: str) -> bool:
    """``expression`` names orbit's ``base`` class: ``orbit.StandardTrainer``, also a vendored
    copy (``third_party.models.orbit.StandardTrainer``) or its ``standard_runner`` module."""
    # `trainer_lib.orbit.StandardTrainer`: orbit as an attribute of a project module that imports it.
    qualified = ctx.tf.names.qualified(expression) or dotted_name(expression) or ""
    parts = qualified.split(".")
    return parts[-1] == base and "orbit" in parts[:-1]


# Orbit's step methods -> the base class whose loop compiles them.
_ORBIT_STEPS = {"train_step": "StandardTrainer", "eval_step": "StandardEvaluator"}
_TF_FUNCTION = "tensorflow.function"


def _built_elsewhere(ctx: RuleContext, call: cst.Call) -> bool:
    """``call`` calls a function imported from a module other than TensorFlow's or Keras's
    (`build_step(...)`, `steps.build_step(...)`): a builder whose result may be compiled."""
    root: cst.BaseExpression = call.func
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name):
        return False
    return any(
        b.kind is BindingKind.IMPORT and b.imported is not None and b.imported[0].split(".")[0] not in _TF_PACKAGES
        for b in ctx.tf.semantic.resolve(root)
    )


_TF_PACKAGES = frozenset({"tensorflow", "keras", "tf_keras"})


def _one_off_callback(ctx: RuleContext, run: RunCall, func: cst.FunctionDef | cst.Lambda | None) -> bool:
    """True when ``run`` hands its replicas no arguments, outside any loop of a function no loop of
    the module calls (`strategy.run(hook.start_profiling)` before the training loop): it runs once
    per call, so there is no per-step cost to save, and under `tf.function` a no-argument Python
    callback runs only while tracing (benchmarks/probe_ledger15a_premises.py), so compiling it would
    change what it does."""
    if run.args is not None or any(a.keyword is not None and a.keyword.value == "kwargs" for a in run.call.args):
        return False
    if _in_a_repeating_loop(ctx, run.call, func):
        return False
    return func is not None and not _called_from_a_loop(ctx, func)


def _steps_on_first_batch_only(ctx: RuleContext, run: RunCall, func: cst.FunctionDef | cst.Lambda | None) -> bool:
    """True when ``run`` steps on `next(iter(...))`, the first batch of an iterator made on the spot
    (directly, or through a name bound only to it), in a function no loop of the module calls:
    every call repeats that one batch, which a helper checking one step (a prediction compared
    with a saved model's) does, and a training loop over the data does not."""
    if func is None or _called_from_a_loop(ctx, func):
        return False
    args = run.args
    elements = [e.value for e in args.elements] if isinstance(args, cst.Tuple | cst.List) else []
    return any(_first_batch(ctx, element) for element in elements)


def _called_from_a_loop(ctx: RuleContext, func: cst.FunctionDef | cst.Lambda, depth: int = 0) -> bool:
    """A call site of ``func`` in the module sits in a loop, directly or through its own callers
    (unlike `runs_repeatedly`, a function nobody in the module calls counts as called once)."""
    if depth > 8:
        return True
    for site in ctx.tf.strategies.call_sites(func):
        caller = ctx.index.enclosing_function(site)
        if _in_a_repeating_loop(ctx, site, caller):
            return True
        if caller is not None and _called_from_a_loop(ctx, caller, depth + 1):
            return True
    return False


def _first_batch(ctx: RuleContext, expression: cst.BaseExpression) -> bool:
    """``expression`` is `next(iter(d))` where ``d`` is a distributed dataset made in the function
    (directly, or each through a name bound only to it). `iter` of an iterator is that iterator,
    which `next` advances: a parameter could be one, so it does not count."""
    called = _value(ctx, expression)
    if not (_calls_builtin(called, "next") and isinstance(called, cst.Call) and len(called.args) == 1):
        return False
    made = _value(ctx, called.args[0].value)
    if not (_calls_builtin(made, "iter") and isinstance(made, cst.Call) and len(made.args) == 1):
        return False
    dataset = _value(ctx, made.args[0].value)
    return (
        isinstance(dataset, cst.Call)
        and isinstance(dataset.func, cst.Attribute)
        and dataset.func.attr.value in _DISTRIBUTING
    )


_DISTRIBUTING = frozenset(
    {
        "experimental_distribute_dataset",
        "distribute_datasets_from_function",
        "experimental_distribute_datasets_from_function",
    }
)


def _value(ctx: RuleContext, expression: cst.BaseExpression) -> cst.BaseExpression:
    """The expression a name holds when one binding reaches it; any other expression itself."""
    if isinstance(expression, cst.Name):
        return ctx.tf.semantic.value_of(expression) or expression
    return expression


def _calls_builtin(expression: cst.BaseExpression, name: str) -> bool:
    return isinstance(expression, cst.Call) and isinstance(expression.func, cst.Name) and expression.func.value == name
