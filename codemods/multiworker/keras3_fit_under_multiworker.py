"""TFD504: Keras 3 `fit`/`evaluate` under MultiWorkerMirroredStrategy (it raises)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import libcst as cst

from fixer.facts import FITS_UNDER_MULTI_WORKER
from fixer.rule import Rule
from fixer.semantic import ScopeKind
from fixer.semantic.targets import assignment_targets
from fixer.tf.classes import bases_in_module
from fixer.tf.cluster_signs import shows_a_cluster
from fixer.tf.keras_flavour import LegacySetting, keras_flavour, keras_module, legacy_keras
from fixer.tf.late_tf_config import late_tf_config
from fixer.tf.ray_tasks import ray_run_functions, runs_in_ray_worker
from fixer.tf.strategies import MULTI_WORKER_CLASSES
from fixer.tf.tf_config_sources import tf_config_deletions, tf_config_pops, tf_config_setters
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.index import FunctionLike

_TRAINING = frozenset({"fit", "evaluate"})
PARAMETER_SERVER_CLASSES = frozenset(
    {"tensorflow.distribute.ParameterServerStrategy", "tensorflow.distribute.experimental.ParameterServerStrategy"}
)
# What each strategy's Keras 3 `fit` raises (measured, see the docstring).
_FAILURE = {
    "mwms": "Keras 3 `fit`/`evaluate` raises under MultiWorkerMirroredStrategy",
    "pss": "Keras 3 has no `fit`/`evaluate` under ParameterServerStrategy (`ValueError`)",
}
_MODELS = ("keras.Sequential", "keras.Model", "keras.models.", "keras.applications.")


class Keras3FitUnderMultiworker(Rule):
    """
    ## What it does
    Finds `model.fit(...)` and `model.evaluate(...)` in a program that uses
    `MultiWorkerMirroredStrategy` or `ParameterServerStrategy` when the model is a Keras 3 model.
    The Keras of each model is read from where its class comes from and what the script sets.

    ## Why is this bad in distributed training?
    Measured with TensorFlow 2.21 and Keras 3.15 on two local workers: `fit` raises on every
    worker, with arrays and with a dataset, `ValueError: Attempt to convert a value
    (PerReplica:{...}) with an unsupported type (<class '...PerReplica'>) to a Tensor.` The same
    script trains with `tf-keras` and `TF_USE_LEGACY_KERAS=1` set before TensorFlow is imported.
    Custom training loops (`strategy.run`) work with Keras 3.

    Keras 3 has no parameter-server training at all. Measured on an in-process cluster (one
    worker, one parameter server; `benchmarks/probe_keras3_fit_parameter_server.py`): `fit` on
    a dataset raises `ValueError: To use this dataset, you need to pass this dataset to
    ClusterCoordinator.create_per_worker_dataset.` The same script trains under tf-keras, and a
    `ClusterCoordinator` loop (`create_per_worker_dataset`, `schedule`, `join`) trains a Keras 3
    model (one SGD step gives [0.33, 0.2], the single-device step).

    ## Fix safety
    Unsafe: `os.environ["TF_USE_LEGACY_KERAS"] = "1"` is inserted before the first TensorFlow or
    Keras import (with `import os` when needed), or an existing setting to another value becomes
    `"1"` when it comes before that import. A standalone-`keras` model gets advice only (build it
    with `tf_keras`, or write a custom loop). `tf-keras` must be installed
    (`pip install tf-keras` matching the TensorFlow version), and Keras 2 behaves differently from
    Keras 3 in places; the alternative is a custom training loop. A `fit` that runs in Ray worker
    processes (a `@ray.remote` function or class, a Ray Train `train_loop_per_worker`, and the
    module's functions they call) gets advice only: workers of a cluster the script connects to
    keep the cluster's environment, so the setting goes into the job's `runtime_env` env_vars
    (measured with Ray 2.60: `benchmarks/probe_ray_worker_environment.py`).

    ## Known limits
    - `tf_keras` models are Keras 2. A notebook's install cell (`!pip install tensorflow==2.6`) and
      the prebuilt container a `%%writefile` trainer is submitted to are its TensorFlow
      (docs/target.md).
    - Standalone `import keras` is Keras 3 from TensorFlow 2.16 on, whatever
      `TF_USE_LEGACY_KERAS` says.
    - `tf.keras` follows the script's own `TF_USE_LEGACY_KERAS` setting (`os.environ[...] =`,
      `setdefault`, `update`; TensorFlow accepts `"1"`, `"true"`, `"True"`; `os.putenv` does not
      reach `os.environ` and does not count). A setting from another variable cannot be read, so it
      gives no finding. Comments and docstrings that mention the switch are not settings.
    - A model is a name or attribute (`self.model`) bound to a Keras model class, or to what a
      function or method of the module returns when it builds one or compiles the model it returns
      (`self.model = self._build()`): a compiled model of the project is `tf.keras`. The strategy
      is the scopes of the assignment that reaches the `fit` in its function: a name or attribute
      rebound later under a MultiWorkerMirroredStrategy (`self.net = build()` in a second
      `with mwms.scope():`) does not make an earlier `fit` in a MirroredStrategy scope
      multi-worker (ledger13a). An attribute that function does not assign on every path to the
      `fit` keeps every assignment of the file.
    - A model may also come from another module of the project (`import mnist_setup`, then
      `mnist_setup.build_and_compile_cnn_model()`; `from .models import build`; a folder the script
      adds to `sys.path` next to it; a module written by a `%%writefile` cell of the same
      notebook): that module's function is read for what it returns, and its Keras import decides
      the Keras. Modules under `site-packages` are not followed, and neither is a module that sets
      `TF_USE_LEGACY_KERAS` itself (its Keras cannot be told).
    - A project whose target is below TensorFlow 2.16 uses Keras 2 everywhere, and a Dockerfile or
      job config that sets `TF_USE_LEGACY_KERAS=1` makes `tf.keras` Keras 2. The target is the
      project-target model's (`distfix target` prints it): requirements, pyproject, setup files,
      Pipfile, conda environments, Dockerfiles and job configs, with ranges resolved to the newest
      release they allow (`~=2.15.0` is 2.15, `~=2.15` is 2.21). With `--target-version` newer than
      the pin, the finding is an upgrade finding ("on upgrade to TF 2.21: ...").
    - A cloud launcher in the project decides for the script it runs: a SageMaker estimator's
      `framework_version`, a Vertex AI prebuilt image (`tf-cpu.2-6`) beside the script's path.
    - A job image a launcher notebook names for the script's folder decides too, and the curated
      Azure ML TensorFlow 2.16 images ship tf-keras with `TF_USE_LEGACY_KERAS=1` (Keras 2). Where no
      release can be told, a call only Keras 2 accepts in the file (an optimizer's `lr=`,
      `fit_generator`; `benchmarks/probe_keras2_only_calls.py`) makes `tf.keras` Keras 2.
    - The advice names the requirement to add, `tf-keras~=X.Y.0` matched to the target, and the
      dependency file the pin came from; the inserted switch is offered only when the project
      declares tf-keras or names no TensorFlow at all.
    - A `fit` after the script removes TF_CONFIG (`os.environ.pop("TF_CONFIG", None)` or `del`,
      with no setting in between, as a notebook's clean-up cell does) runs with one worker in this
      process and is not reported.
    - A MultiWorkerMirroredStrategy with no sign of a cluster is one worker on its local devices,
      where Keras 3 `fit`/`evaluate` work (`benchmarks/probe_ledger9b_premises.py`): not reported.
      Signs: TF_CONFIG or a cluster resolver in the script, a launcher library (TensorFlowOnSpark,
      Ray), a project file that starts the script with a TF_CONFIG, as a TFJob or as a multi-node
      job (PBS `select=2`, Slurm `--nodes=2`, `mpirun`), or any file of the tree that writes or reads
      TF_CONFIG (fixer/tf/cluster_signs.py). A script whose cluster is set up outside the checked
      folder is missed.
    - A MultiWorkerMirroredStrategy made after the script removes TF_CONFIG and before it sets it
      again is one worker too, as TFD605 reports: a `fit` in a file whose every such strategy is
      made so is not reported (the multi-worker tutorial's in-process walk-through, transcribed).
      Without the removal the late setting is TFD605's bug in a per-worker program, whose fixed
      order makes `fit` raise: reported.

    ## Runtime evidence
    `distfix validate --workers 2` shows the original failing check `runs` with the `ValueError`
    above, and the fixed script training on both workers (with tf-keras installed). `validate`
    does not start a parameter-server cluster: for ParameterServerStrategy the probe above is
    the evidence.

    ## References
    - https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_keras
    """

    code = "TFD504"
    name = "keras3-fit-under-multiworker"
    message = "Keras 3 `fit` under MultiWorkerMirroredStrategy raises"
    fix_title = "Use tf-keras (TF_USE_LEGACY_KERAS=1)"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy", "ParameterServerStrategy")
    facts = (FITS_UNDER_MULTI_WORKER,)

    def check(self, ctx: RuleContext) -> None:
        strategies = ctx.tf.strategies
        parameter_server = _uses_parameter_server(ctx)
        if not strategies.uses_multi_worker and not parameter_server:
            return
        models = self._models(ctx)
        calls = [
            (call, models[ctx.source(call.func.value)])
            for call in ctx.index.calls
            if isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _TRAINING
            and ctx.source(call.func.value) in models
        ]
        if not calls:
            return
        target = ctx.tf.target
        legacy = legacy_keras(ctx.tf)
        in_ray = ray_run_functions(ctx.index, ctx.tf.names) if "ray" in ctx.text else frozenset()
        for call, module in calls:
            kind = self._strategy_kind(ctx, call, parameter_server)
            if kind is None or (kind == "mwms" and _tf_config_removed_before(ctx, call)):
                continue
            if kind == "mwms" and not shows_a_cluster(ctx.tf):
                continue  # one worker on local devices, where Keras 3 `fit` trains (fixer/tf/cluster_signs.py)
            if kind == "mwms" and _made_before_tf_config(ctx):
                continue  # TFD605's single worker, meant so: made between removing and setting TF_CONFIG
            flavour = keras_flavour(module, legacy, target)
            if flavour != 3:
                continue
            upgrade = target.upgrade_prefix(same_at_pin=keras_flavour(module, legacy, target.at_pin()) == 3)
            failure = upgrade + _FAILURE[kind]
            if module == "keras":
                ctx.report(
                    call,
                    f"{failure}; standalone `import keras` "
                    "is Keras 3 whatever TF_USE_LEGACY_KERAS says: use `import tf_keras as keras` or a custom loop",
                )
                continue
            requirement = target.tf_keras_requirement()
            if runs_in_ray_worker(call, ctx.index, in_ray):
                # Ray workers keep the cluster's environment: a setting at the top of this script
                # does not reach them (benchmarks/probe_ray_worker_environment.py).
                ctx.report(
                    call,
                    f"{failure}; it runs in Ray workers: set TF_USE_LEGACY_KERAS=1 in their environment "
                    f"(runtime_env env_vars) and install `{requirement}` there",
                )
                continue
            if not target.assumed and not target.declares_tf_keras:
                # The switch alone makes `tf.keras` fail to import where tf-keras is not installed.
                where = target.dependency_file()
                place = f"to {Path(where).name}" if where else "to the project's dependencies"
                ctx.report(
                    call,
                    f"{failure}; use tf-keras: add "
                    f"`{requirement}` {place}, then set TF_USE_LEGACY_KERAS=1 before importing TensorFlow",
                )
                continue
            install = "" if target.declares_tf_keras else f" and `pip install {requirement}`"
            ctx.report(
                call,
                f"{failure}; use tf-keras: set TF_USE_LEGACY_KERAS=1 before importing TensorFlow{install}",
                edits=self._legacy_switch(ctx, legacy),
            )

    def _strategy_kind(self, ctx: RuleContext, call: cst.Call, parameter_server: bool) -> str | None:
        """ "pss" when the model trained by ``call`` may be under a ParameterServerStrategy, "mwms"
        under a MultiWorkerMirroredStrategy, None under neither."""
        kinds = self._scope_kinds_of(ctx, call)
        # Scopes unknown, or a strategy of unknown class: the file's strategies decide.
        file_kind = "mwms" if ctx.tf.strategies.uses_multi_worker or not parameter_server else "pss"
        if kinds is None:
            return file_kind
        if kinds & MULTI_WORKER_CLASSES:
            return "mwms"
        if kinds & PARAMETER_SERVER_CLASSES:
            return "pss"
        return file_kind if any(k.endswith(".Strategy") for k in kinds) else None

    def _scope_kinds_of(self, ctx: RuleContext, call: cst.Call) -> frozenset[str] | None:
        """The strategy classes of the scopes the model trained by ``call`` is made, compiled or
        trained in; None when none is known.

        Decided per object: the scopes its creation, `compile` and this call run in. A model
        built in a MirroredStrategy scope is not affected by a MultiWorkerMirroredStrategy
        elsewhere in the file, nor by the same name or attribute (`self.net`) rebound later
        under one; a model whose scopes are unknown keeps the file-level answer.
        """
        strategies = ctx.tf.strategies
        key = ctx.source(cst.ensure_type(call.func, cst.Attribute).value)
        here = ctx.index.enclosing_function(call)
        assigns = [a for a in ctx.index.assigns if any(ctx.source(t) == key for t in assignment_targets(a))]
        compiles = [
            c
            for c in ctx.index.calls
            if isinstance(c.func, cst.Attribute) and c.func.attr.value == "compile" and ctx.source(c.func.value) == key
        ]
        reaching = _reaching_assignment(ctx, call, here)
        if reaching is not None:
            # The model this call trains is the one bound last before it in the same scope (a
            # notebook cell rebinding `model` later under another strategy trains another model).
            assigns = [reaching]
            compiles = [c for c in compiles if ctx.index.before(reaching, c) and ctx.index.before(c, call)]
            if here is None and _builds_model_outside_scopes(ctx, reaching):
                return frozenset({"default"})  # made at top level outside any scope: the default strategy's model
        places: list[cst.CSTNode] = [call, *assigns, *compiles]
        kinds: set[str] = set()
        for place in places:
            # A plain local name in another function is another object.
            owner = ctx.index.enclosing_function(place)
            if "." not in key and owner is not here and owner is not None:
                continue
            kinds |= strategies.scope_kinds(place) or set()
        return frozenset(kinds) if kinds else None

    def _models(self, ctx: RuleContext) -> dict[str, str]:
        """Names bound to Keras models, and the Keras their class comes from (`keras_module`)."""
        factories = self._model_factories(ctx)
        found: dict[str, str] = {}
        for assign in ctx.index.assigns:
            if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call):
                callee = ctx.tf.names.callee(assign.value) or ""
                func = assign.value.func
                local = func if isinstance(func, cst.Name) and ctx.tf.names.qualified(func) is None else None
                method = _own_method(ctx, func)
                module = None
                imported = None if callee.startswith(_MODELS) else ctx.tf.project.returned(func)
                if callee.startswith(_MODELS):
                    module = keras_module(ctx.tf, func)
                elif imported is not None:
                    # A model built by another module of the project: its Keras is that module's.
                    module = imported.flavour if imported.kind == "model" else None
                elif local is not None and local.value in factories:
                    module = factories[local.value]
                elif method is not None and method in factories:
                    module = factories[method]  # `self.model = self._build()`
                elif local is not None and (subclassed := _subclassed_keras(ctx, local)) is not None:
                    module = subclassed  # `class Net(keras.Model)` of this module: its base's Keras
                elif local is not None and self._compiled(ctx, assign):
                    module = "tensorflow"  # a model of the project: tf.keras unless told otherwise
                if module is not None:
                    found.update((ctx.source(t.target), module) for t in assign.targets)
        return found

    def _model_factories(self, ctx: RuleContext) -> dict[str, str]:
        """Functions and methods of the module that build a Keras model (the usual
        `build_and_compile_model`, or a trainer's `self._build()`): they call a Keras model class,
        or compile a model of the project that they return."""
        names: dict[str, str] = {}
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call) or ""
            func = ctx.index.enclosing_function(call)
            if isinstance(func, cst.FunctionDef) and callee.startswith(_MODELS):
                names.setdefault(func.name.value, keras_module(ctx.tf, call.func))
        for call in ctx.index.calls:
            func = ctx.index.enclosing_function(call)
            target = call.func
            if not (
                isinstance(func, cst.FunctionDef)
                and isinstance(target, cst.Attribute)
                and target.attr.value == "compile"
                and isinstance(target.value, cst.Name)
            ):
                continue
            returned = {r.value.value for r in ctx.index.in_function("returns", func) if isinstance(r.value, cst.Name)}
            if target.value.value in returned:
                names.setdefault(func.name.value, "tensorflow")  # a compiled model of the project: tf.keras
        return names

    def _compiled(self, ctx: RuleContext, assign: cst.Assign) -> bool:
        targets = {ctx.source(t.target) for t in assign.targets}
        return any(
            isinstance(c.func, cst.Attribute) and c.func.attr.value == "compile" and ctx.source(c.func.value) in targets
            for c in ctx.index.calls
        )

    def _legacy_switch(self, ctx: RuleContext, legacy: LegacySetting) -> list[Edit] | None:
        """Set TF_USE_LEGACY_KERAS=1 before the first TensorFlow import (or turn an existing "0" into "1")."""
        first_tf = None
        for node in ctx.index.imports:
            if isinstance(node, cst.Import):
                names = [a.name for a in node.names]
            else:
                names = [node.module] if node.module else []
            roots = {ctx.source(n).split(".")[0] for n in names if n is not None}
            if roots & {"tensorflow", "keras"} and first_tf is None:
                first_tf = node
        if first_tf is None:
            return None
        statement = ctx.index.statement_of(first_tf)
        if ctx.index.enclosing_function(statement) is not None:
            return None
        if legacy.node is not None:
            # The script already sets the switch, to something else than "1": set it to "1" if it
            # happens before TensorFlow is imported, else say so.
            if not isinstance(legacy.node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
                return None
            if not ctx.index.before(legacy.node, first_tf) or ctx.index.enclosing_function(legacy.node) is not None:
                return None
            return [ctx.replace(legacy.node, '"1"')]
        os_imported = any(
            isinstance(n, cst.Import)
            and any(ctx.source(a.name) == "os" and a.asname is None for a in n.names)
            and ctx.span(n)[0] < ctx.span(first_tf)[0]
            for n in ctx.index.imports
        )
        newline = ctx.newline
        if os_imported:
            os_import = next(
                n
                for n in ctx.index.imports
                if isinstance(n, cst.Import) and any(ctx.source(a.name) == "os" for a in n.names)
            )
            offset = ctx.textmap.line_end(ctx.range(os_import).end.line)
            return [Edit(offset, offset, f'os.environ["TF_USE_LEGACY_KERAS"] = "1"{newline}')]
        offset = ctx.textmap.line_starts[ctx.range(statement).start.line - 1]
        return [Edit(offset, offset, f'import os{newline}os.environ["TF_USE_LEGACY_KERAS"] = "1"{newline}')]


def _reaching_assignment(ctx: RuleContext, call: cst.Call, here: FunctionLike | None) -> cst.Assign | None:
    """The one plain assignment of the model that reaches ``call``, made in the same function (or
    module) outside any branch or loop of it; None when several may reach. For an attribute
    (`self.net.fit`), the one assignment of it in the same function that every path to ``call``
    carries (`self.net` rebound under a second strategy later trains another model)."""
    receiver = cst.ensure_type(call.func, cst.Attribute).value
    if isinstance(receiver, cst.Attribute):
        assigned = ctx.tf.semantic.attribute_assignment_at(receiver)
        return assigned if isinstance(assigned, cst.Assign) else None
    if not isinstance(receiver, cst.Name):
        return None
    binding = ctx.tf.semantic.only_binding(receiver)
    if binding is None or binding.branch or not isinstance(binding.statement, cst.Assign):
        return None
    same_scope = binding.scope.node is here if here is not None else binding.scope.kind is ScopeKind.MODULE
    return binding.statement if same_scope else None


def _builds_model_outside_scopes(ctx: RuleContext, assign: cst.Assign) -> bool:
    """``model = tf.keras.models.load_model(...)`` (or a Keras model class, or a model builder of
    another module of the project) outside any ``with``: nothing puts a strategy around it, so
    the model belongs to the default strategy."""
    if not isinstance(assign.value, cst.Call):
        return False
    callee = ctx.tf.names.callee(assign.value) or ""
    if not callee.startswith(_MODELS):
        # A model built by another module of the project, which does not enter a scope itself.
        imported = ctx.tf.project.returned(assign.value.func)
        if imported is None or imported.kind != "model" or imported.enters_scope:
            return False
    return not any(isinstance(a, cst.With) for a in ctx.index.ancestors(assign))


def _tf_config_removed_before(ctx: RuleContext, call: cst.Call) -> bool:
    """The last change to TF_CONFIG before ``call`` (a `fit`, or a strategy's construction) removes
    it (`os.environ.pop("TF_CONFIG")`, a notebook's clean-up cell): this process then runs
    MultiWorkerMirroredStrategy with one worker, where Keras 3 `fit` trains (measured on TensorFlow
    2.21)."""
    if "TF_CONFIG" not in ctx.text:
        return False
    removals = [*tf_config_pops(ctx.tf), *(tf_config_deletions(ctx.tf) if "del" in ctx.text else [])]
    if not removals:
        return False
    changes = [*removals, *(s.node for s in tf_config_setters(ctx.tf))]
    before = [c for c in changes if ctx.index.before(c, call)]
    last = max(before, key=lambda c: ctx.index.order[c], default=None)
    return last is not None and any(last is r for r in removals)


def _made_before_tf_config(ctx: RuleContext) -> bool:
    """Every MultiWorkerMirroredStrategy of the module is made after the script removed TF_CONFIG
    and before it sets it again (the tutorial's in-process walk-through, transcribed): each is one
    worker on purpose, where Keras 3 `fit` trains (benchmarks/probe_ledger9b_premises.py). TFD605
    reports those strategies; which are made before the setting is answered once, in
    fixer/tf/late_tf_config.py. Without the removal the late setting is the bug TFD605 reports (a
    per-worker program), whose fixed order makes Keras 3 `fit` raise: reported (ledger14c)."""
    if "TF_CONFIG" not in ctx.text:
        return False
    made = [call for call, kind in ctx.tf.strategies.constructions if kind in MULTI_WORKER_CLASSES]
    late = late_tf_config(ctx.tf)
    return bool(made) and all(call in late and _tf_config_removed_before(ctx, call) for call in made)


def _own_method(ctx: RuleContext, func: cst.BaseExpression) -> str | None:
    """``_build`` for ``self._build`` (or ``cls._build``) called in a method of a class that
    defines ``_build``."""
    if not (
        isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls")
    ):
        return None
    caller = ctx.index.enclosing_function(func)
    owner = ctx.index.method_class(caller) if isinstance(caller, cst.FunctionDef) else None
    if owner is None:
        return None
    name = func.attr.value
    if any(ctx.index.method_class(f) is owner for f in ctx.index.functions_by_name.get(name, [])):
        return name
    return None


def _subclassed_keras(ctx: RuleContext, func: cst.Name) -> str | None:
    """The Keras (`keras_module`) of a model class ``func`` this module defines, read from the
    first Keras model base among the class and its bases in the module (`import tf_keras as
    keras; class Net(keras.Model)` is a tf-keras model); None when none is a Keras model."""
    for cls in ctx.index.classes:
        if cls.name.value != func.value:
            continue
        for owner in (cls, *bases_in_module(ctx.index, cls)):
            for base in owner.bases:
                if (ctx.tf.names.qualified(base.value) or "").startswith(_MODELS):
                    return keras_module(ctx.tf, base.value)
    return None


def _uses_parameter_server(ctx: RuleContext) -> bool:
    """The module builds (or is typed with) a ParameterServerStrategy."""
    strategies = ctx.tf.strategies
    return any(kind in PARAMETER_SERVER_CLASSES for _, kind in strategies.constructions) or any(
        PARAMETER_SERVER_CLASSES & kinds for kinds in strategies.strategy_keys.values()
    )
