"""Make a Keras optimizer ready for a compiled distributed step: which optimizers need it, and the
statements (`model.build(shape)`, `optimizer.build(variables)`) that do it.

Measured on TensorFlow 2.21 with Keras 3.15.1, 2 logical CPUs, `MirroredStrategy`
(`benchmarks/probe_unbuilt_optimizer.py`): a Keras 3 optimizer creates its variables on its first
`apply_gradients`; when that first call runs inside a `tf.function` that calls `strategy.run` with
2 replicas, the step fails with `InvalidArgumentError: You must feed a value for placeholder tensor
'cond/else/_1/cond/Placeholder'` (or `Placeholder_1`). It does so for Adam, AdamW, RMSprop (with and without
momentum), Adagrad, Adadelta, Adamax, Nadam, Ftrl, Lion, Adafactor, Lamb and SGD with momentum.
Plain SGD runs on a model that already has its weights, and fails the same way when the step's
forward pass is what builds the model (the forward pass alone runs). Every one of them runs once
`model.build(input_shape)` (for a model without an input shape) and
`optimizer.build(model.trainable_variables)` were called in the scope. With tf-keras
(`TF_USE_LEGACY_KERAS=1`) none fails, built or not.

TFD101, TFD103, TFD402 and TFD109 all use this module, so that every fix that creates, moves or
compiles around an optimizer leaves a script that runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.bindings import assignments_to
from fixer.tf.calls import argument_value
from fixer.tf.keras_models import keras_model_base
from fixer.tf.names import dotted_name
from fixer.tf.optimizer_kinds import OptimizerCreation, State

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fixer.tf.index import FunctionLike
    from fixer.tf.model import TFModel
    from fixer.tf.replica import RunCall

_OPTIMIZERS = "keras.optimizers."
_TF_OPTIMIZERS = "tensorflow.optimizers."
# Measured failing unbuilt (see the module docstring); SGD is decided by its momentum.
STATEFUL_CLASSES = frozenset(
    {"Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl", "Lion", "Adafactor", "Lamb"}
)
_NOT_CLASSES = frozenset({"get", "serialize", "deserialize", "Optimizer"})
_LOSS_SCALE_OPTIMIZERS = frozenset({"keras.mixed_precision.LossScaleOptimizer", "keras.optimizers.LossScaleOptimizer"})
APPLY_METHODS = frozenset({"apply_gradients", "apply", "minimize"})
_TRAINABLE = frozenset({"trainable_variables", "trainable_weights"})
_DISTRIBUTE = "tensorflow.distribute."
# Strategies under which an unbuilt optimizer is not a problem, or not measured: one replica,
# variables not mirrored like MirroredStrategy's, and MultiWorkerMirroredStrategy, measured
# running with an unbuilt Adam in a compiled step (2 workers on CPU, one replica each).
_NOT_MIRRORED = frozenset(
    _DISTRIBUTE + name
    for name in (
        "MultiWorkerMirroredStrategy",
        "experimental.MultiWorkerMirroredStrategy",
        "OneDeviceStrategy",
        "TPUStrategy",
        "experimental.TPUStrategy",
        "ParameterServerStrategy",
        "experimental.ParameterServerStrategy",
        "CentralStorageStrategy",
        "experimental.CentralStorageStrategy",
        "get_strategy",
    )
)


@dataclass(frozen=True)
class BuildPlan:
    """What makes one optimizer ready: ``lines`` go right after ``anchor`` (same indentation).

    ``anchor`` is None when they cannot be placed; ``advice`` then says what to add by hand.
    The edit that places them is built by fixer/fixes/optimizer_build.py.
    """

    lines: tuple[str, ...]
    anchor: cst.SimpleStatementLine | None
    advice: str


def optimizer_state(tf: TFModel, call: cst.Call) -> tuple[str, State] | None:
    """The class name and state of a Keras optimizer constructor call; None for anything else."""
    callee = tf.names.callee(call) or ""
    if callee in _LOSS_SCALE_OPTIMIZERS:
        # Its own loss scale and step counter are state whatever it wraps (measured failing
        # unbuilt with a plain SGD inside).
        return "LossScaleOptimizer", State.STATEFUL
    if callee.startswith(_TF_OPTIMIZERS):
        # `tf.optimizers.Adam` is `tf.keras.optimizers.Adam` (the same class object on TF 2.21).
        callee = _OPTIMIZERS + callee[len(_TF_OPTIMIZERS) :]
    if not callee.startswith(_OPTIMIZERS):
        return None
    path = callee[len(_OPTIMIZERS) :]
    if path.startswith(("legacy.", "schedules.")):
        return None  # Keras 2 optimizers kept for old code; learning-rate schedules
    name = path.rsplit(".", 1)[-1]
    if name in _NOT_CLASSES or not name[:1].isupper():
        return None
    if name in STATEFUL_CLASSES:
        return name, State.STATEFUL
    if name == "SGD":
        momentum = argument_value(call, 1, "momentum")
        if momentum is None or _is_zero(momentum):
            return name, State.STATELESS
        # A literal momentum > 0 keeps a slot per variable; one read from a config most likely
        # does too, and building a plain SGD changes nothing.
        return name, State.STATEFUL
    return name, State.UNKNOWN


def needs_ready(tf: TFModel, apply_call: cst.Call, creation: OptimizerCreation) -> bool:
    """True when the first update of ``creation``'s optimizer, in a compiled distributed step,
    fails unless built first: an optimizer with state always; plain SGD when the model it trains
    has no weights before the step either (measured: plain SGD runs unbuilt on a built model, and
    fails on a model built by the step's forward pass; the forward pass alone runs)."""
    if creation.state is State.STATEFUL:
        return True
    if creation.state is not State.STATELESS:
        return False
    variables = trained_variables(apply_call)
    model = _model_of(variables) if variables is not None else None
    return model is not None and not _built_before(tf, model, len(tf.text))


def apply_calls(tf: TFModel, functions: Iterable[FunctionLike]) -> list[cst.Call]:
    """``x.apply_gradients(...)`` / ``x.apply(...)`` / ``x.minimize(...)`` calls in ``functions``."""
    wanted = set(functions)
    return [
        call
        for call in tf.index.calls
        if isinstance(call.func, cst.Attribute)
        and call.func.attr.value in APPLY_METHODS
        and tf.index.enclosing_function(call) in wanted
    ]


def optimizer_creation(tf: TFModel, receiver: cst.BaseExpression) -> OptimizerCreation | None:
    """The single statement binding ``receiver`` (``opt``, ``self.opt``) to a Keras optimizer."""
    key = dotted_name(receiver)
    if key is None:
        return None
    # Asked for every update of a long file; with N bindings of one name the answer costs N.
    known = tf.optimizer_creations
    if key not in known:
        known[key] = _single_creation(tf, key)
    return known[key]


def _single_creation(tf: TFModel, key: str) -> OptimizerCreation | None:
    found = []
    for assign in assignments_to(tf.index, key):
        if not isinstance(assign.value, cst.Call):
            continue
        kind = optimizer_state(tf, assign.value)
        if kind is None:
            return None  # bound to something else too: cannot tell which reaches the step
        statement = tf.index.statement_of(assign)
        if isinstance(statement, cst.SimpleStatementLine):
            found.append(OptimizerCreation(statement, assign.value, *kind))
    return found[0] if len(found) == 1 else None


def is_built(tf: TFModel, receiver: cst.BaseExpression) -> bool:
    """True when the program calls ``<receiver>.build(...)`` somewhere."""
    key = dotted_name(receiver)  # not source text: that would resolve every position of the file
    return key is not None and any(
        isinstance(c.func, cst.Attribute) and c.func.attr.value == "build" and dotted_name(c.func.value) == key
        for c in tf.index.calls
    )


def trained_variables(apply_call: cst.Call) -> cst.BaseExpression | None:
    """The variables an update trains: ``V`` in ``apply_gradients(zip(grads, V))``,
    ``apply(grads, V)`` and ``minimize(loss, V)``."""
    method = apply_call.func.attr.value if isinstance(apply_call.func, cst.Attribute) else ""
    if method == "apply_gradients":
        pairs = argument_value(apply_call, 0, "grads_and_vars")
        if (
            isinstance(pairs, cst.Call)
            and isinstance(pairs.func, cst.Name)
            and pairs.func.value == "zip"
            and len(pairs.args) == 2
        ):
            return pairs.args[1].value
        return None
    if method == "apply":
        return argument_value(apply_call, 1, "trainable_variables")
    if method == "minimize":
        return argument_value(apply_call, 1, "var_list")
    return None


def plan_build(
    tf: TFModel,
    apply_call: cst.Call,
    creation: OptimizerCreation,
    at: int | None = None,
) -> BuildPlan:
    """The statements that build the optimizer of ``apply_call`` before any step runs.

    They go right after ``creation`` (or after the model's own statement when the model is made
    later in the same block). ``at`` checks instead what is bound and built at that offset: where
    a fix moves the creation to (TFD101); the lines then go after the moved text. A model that
    has no weights yet is built first with ``model.build(input_shape)`` when the input shape is
    written in the file (a dataset of literal tensors, tensors given to the step); otherwise the
    plan is advice, because an optimizer built on an empty variable list fails at its first
    update.
    """
    receiver = tf.source(apply_call.func.value)  # type: ignore[attr-defined]  # apply_calls: `x.method(...)`
    variables = trained_variables(apply_call)
    generic = f"build it in the scope right after it is created: `{receiver}.build(<the variables it trains>)`"
    if variables is None or not _on_own_line(tf, creation.statement):
        return BuildPlan((), None, generic)
    build_optimizer = f"{receiver}.build({tf.source(variables)})"
    if isinstance(variables, (cst.List, cst.Tuple)):
        names = [e.value for e in variables.elements]
        if not all(_assigned_before(tf, n, at if at is not None else tf.span(creation.statement)[0]) for n in names):
            return BuildPlan((), None, f"build it once its variables exist: `{build_optimizer}`")
        return BuildPlan((build_optimizer,), creation.statement, "")
    model = _model_of(variables)
    if model is None:
        return BuildPlan((), None, generic)
    anchor = creation.statement
    limit = at if at is not None else tf.span(anchor)[0]
    if not _assigned_before(tf, model, limit):
        later = _later_assignment_in_block(tf, model, anchor) if at is None else None
        if later is None:
            return BuildPlan((), None, f"build it once `{tf.source(model)}` exists: `{build_optimizer}`")
        anchor, limit = later, tf.span(later)[1]
    if _built_before(tf, model, limit):
        return BuildPlan((build_optimizer,), anchor, "")
    model_text = tf.source(model)
    shape = known_input_shape(tf, model)
    if shape is None and _own_subclass_without_build(tf, model):
        return BuildPlan((), None, f"call `{model_text}` on one batch of its input, then `{build_optimizer}`")
    if shape is None:
        return BuildPlan(
            (),
            None,
            f"give `{model_text}` an input shape, then call `{build_optimizer}`",
        )
    if not _own_subclass_without_build(tf, model):
        return BuildPlan((f"{model_text}.build({shape})", build_optimizer), anchor, "")
    # Keras 3's `Model.build(shape)` creates no variables for a subclass without its own
    # `build()`: the optimizer then fails with `ValueError: Unknown variable` at the first
    # step. Calling the model on one batch of the input's shape builds it under both Kerases
    # (benchmarks/probe_model_built_in_scope.py).
    tf_module = tf.names.local_name_for("tensorflow")
    if tf_module is None:
        return BuildPlan((), None, f"call `{model_text}` on one batch of its input, then `{build_optimizer}`")
    batch = "(1" + shape[len("(None") :]
    return BuildPlan((f"{model_text}({tf_module}.zeros({batch}))", build_optimizer), anchor, "")


def _own_subclass_without_build(tf: TFModel, model: cst.BaseExpression) -> bool:
    """``model`` holds an instance of a Keras model class of this file that defines no
    ``build`` method (by the bindings of the name that reach it)."""
    if not isinstance(model, cst.Name):
        return False
    classes = {cls.name.value: cls for cls in tf.index.classes}
    for held in tf.semantic.resolve(model):
        value = held.value
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            continue
        cls = classes.get(value.func.value)
        if cls is None or keras_model_base(tf.index, tf.names, cls) is None:
            continue
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        if not any(isinstance(s, cst.FunctionDef) and s.name.value == "build" for s in body):
            return True
    return False


def compiled_replica_functions(tf: TFModel) -> dict[FunctionLike, str]:
    """Replica functions (and what they call) that `strategy.run` runs from a `tf.function` step,
    under a strategy that may have several replicas in one process, with the name of that step."""
    replica = tf.replica
    found: dict[FunctionLike, str] = {}
    for run in replica.run_calls:
        step = tf.index.enclosing_function(run.call)
        if not isinstance(step, cst.FunctionDef) or not _may_have_replicas(tf, run):
            continue
        if not (replica.is_tf_function(step) or replica.only_called_from_graphs(step)):
            continue
        for func in replica.reachable(run.targets):
            found.setdefault(func, step.name.value)  # the first step that runs it names it
    return found


def build_lines_after_move(tf: TFModel, creation_call: cst.Call, at: int) -> tuple[str, ...]:
    """What to write after an optimizer creation that a fix moves to offset ``at`` (TFD101), so
    that the compiled distributed step it serves runs: ``()`` when nothing is needed, or when
    the model is not bound and built there (TFD109 then reports what is left)."""
    functions = compiled_replica_functions(tf)
    for call in apply_calls(tf, functions):
        receiver = call.func.value  # type: ignore[attr-defined]  # apply_calls: `x.method(...)`
        creation = optimizer_creation(tf, receiver)
        if creation is None or creation.call is not creation_call:
            continue
        if not needs_ready(tf, call, creation) or is_built(tf, receiver):
            return ()
        plan = plan_build(tf, call, creation, at=at)
        return plan.lines if plan.anchor is not None else ()
    return ()


def _may_have_replicas(tf: TFModel, run: RunCall) -> bool:
    """Not a strategy of one replica per process, nor of a kind that was not measured."""
    kinds = tf.strategies.kinds(run.strategy) - {_DISTRIBUTE + "Strategy"}  # "some strategy": unknown
    if kinds and kinds <= _NOT_MIRRORED:
        return False
    key = dotted_name(run.strategy)  # not source text: that would resolve every position of the file
    for assign in assignments_to(tf.index, key) if key is not None else []:
        if isinstance(assign.value, cst.Call):
            devices = next(
                (a.value for a in assign.value.args if a.keyword is None or a.keyword.value == "devices"), None
            )
            if isinstance(devices, (cst.List, cst.Tuple)) and len(devices.elements) == 1:
                return False  # MirroredStrategy(["/gpu:0"]): one replica
    return True


# Shapes ----------------------------------------------------------------------------------------

_SHAPE_FIRST = frozenset(
    {
        "tensorflow.random.normal",
        "tensorflow.random.uniform",
        "tensorflow.random.truncated_normal",
        "tensorflow.random.stateless_normal",
        "tensorflow.random.stateless_uniform",
        "tensorflow.zeros",
        "tensorflow.ones",
        "tensorflow.fill",
        "numpy.zeros",
        "numpy.ones",
        "numpy.empty",
        "numpy.full",
        "numpy.random.random",
        "numpy.random.random_sample",
    }
)
_SHAPE_SIZE = frozenset({"numpy.random.normal", "numpy.random.uniform", "numpy.random.randint"})
_SHAPE_VARARGS = frozenset({"numpy.random.rand", "numpy.random.randn"})
_LITERAL_ARRAYS = frozenset({"tensorflow.constant", "tensorflow.convert_to_tensor", "numpy.array", "numpy.asarray"})
_SLICES = frozenset({"tensorflow.data.Dataset.from_tensor_slices"})


def known_input_shape(tf: TFModel, model: cst.BaseExpression) -> str | None:
    """``(None, 784)``: the input shape of ``model`` when the file writes it down in one way.

    Read from the features of every `Dataset.from_tensor_slices(features | (features, labels))`
    and every tensor given as first argument to the step that calls `strategy.run`, when these are
    tensors of a literal shape (`tf.random.normal((64, 784))`, `np.zeros((n, 28, 28))` with a
    literal size, `tf.constant([[1.0, 2.0], ...])`). They must all agree: the batch dimension is
    dropped and left open. The model must be called on plain names only (`model(x)`): an input
    that is reshaped or indexed first (`model(inputs[0])`, `model(tf.expand_dims(x, -1))`) has
    another shape than the data.
    """
    key = dotted_name(model)
    model_calls = [c for c in tf.index.calls if key is not None and dotted_name(c.func) == key]
    if not model_calls or not all(c.args and isinstance(c.args[0].value, cst.Name) for c in model_calls):
        return None
    shapes: set[tuple[int, ...]] = set()
    for call in tf.index.calls:
        if tf.names.callee(call) in _SLICES and call.args:
            data = call.args[0].value
            if isinstance(data, cst.Tuple) and data.elements:
                data = data.elements[0].value
            shapes.add(_literal_shape(tf, data) or ())
    steps = tf.replica.steps()
    for call in tf.index.calls:
        if (
            isinstance(call.func, cst.Name)
            and call.args
            and any(isinstance(s, cst.FunctionDef) and s.name.value == call.func.value for s in steps)
        ):
            shapes.add(_literal_shape(tf, call.args[0].value) or ())
    shapes.discard(())
    if len(shapes) != 1:
        return None
    dims = next(iter(shapes))[1:]
    if not dims:
        return None
    return "(None, " + ", ".join(str(d) for d in dims) + ")"


def _literal_shape(tf: TFModel, node: cst.BaseExpression, depth: int = 0) -> tuple[int, ...] | None:
    """The shape of a tensor made with a literal shape, following one name bound once in the
    function that uses it (or at module level)."""
    if isinstance(node, cst.Name) and depth == 0:
        owner = tf.index.enclosing_function(node)
        values = [
            a.value for a in assignments_to(tf.index, node.value) if tf.index.enclosing_function(a) in (owner, None)
        ]
        return _literal_shape(tf, values[0], depth + 1) if len(values) == 1 else None
    if not isinstance(node, cst.Call):
        return None
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype":
        return _literal_shape(tf, node.func.value, depth)  # `np.random.random(shape).astype("float32")`
    callee = tf.names.callee(node) or ""
    if callee in _SHAPE_FIRST:
        return _int_tuple(argument_value(node, 0, "shape"))
    if callee in _SHAPE_SIZE:
        return _int_tuple(argument_value(node, 2, "size"))
    if callee in _SHAPE_VARARGS:
        dims = [_int(a.value) for a in node.args if a.keyword is None]
        known = [d for d in dims if d is not None]
        return tuple(known) if dims and len(known) == len(dims) else None
    if callee in _LITERAL_ARRAYS and node.args:
        return _nested_list_shape(node.args[0].value)
    return None


def _nested_list_shape(node: cst.BaseExpression) -> tuple[int, ...] | None:
    """(4, 2) for ``[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]`` (rectangular only)."""
    if not isinstance(node, (cst.List, cst.Tuple)):
        return ()
    inner = {_nested_list_shape(e.value) for e in node.elements}
    shape = next(iter(inner)) if len(inner) == 1 else None
    if shape is None:
        return None
    return (len(node.elements), *shape)


def _int_tuple(node: cst.BaseExpression | None) -> tuple[int, ...] | None:
    if isinstance(node, (cst.Tuple, cst.List)):
        dims = [_int(e.value) for e in node.elements]
        known = [d for d in dims if d is not None]
        return tuple(known) if dims and len(known) == len(dims) else None
    single = _int(node) if node is not None else None
    return (single,) if single is not None else None


def _int(node: cst.BaseExpression) -> int | None:
    return int(node.value) if isinstance(node, cst.Integer) else None


# Models ----------------------------------------------------------------------------------------

_SHAPE_KEYWORDS = frozenset({"input_shape", "input_dim", "batch_input_shape"})
_INPUTS = frozenset({"keras.Input", "keras.layers.Input", "keras.layers.InputLayer"})
_FUNCTIONAL = frozenset({"keras.Model", "keras.models.Model"})
_SEQUENTIAL = frozenset({"keras.Sequential", "keras.models.Sequential"})


def _model_of(variables: cst.BaseExpression) -> cst.BaseExpression | None:
    """``model`` for ``model.trainable_variables`` (``self.model`` for ``self.model.trainable_weights``)."""
    if isinstance(variables, cst.Attribute) and variables.attr.value in _TRAINABLE and dotted_name(variables.value):
        return variables.value
    return None


def _assignments(tf: TFModel, expr: cst.BaseExpression) -> list[cst.Assign]:
    """The ``=`` statements that assign ``expr`` anywhere in the module, in source order: a name's
    from the semantic model, an attribute's (``self.model``) from the index's attribute table."""
    if isinstance(expr, cst.Name):
        return tf.semantic.plain_assignments(expr.value)
    return assignments_to(tf.index, dotted_name(expr))


def _assigned_before(tf: TFModel, expr: cst.BaseExpression, limit: int) -> bool:
    """Some assignment of ``expr`` (a name or ``self.x``), in any scope, ends before offset ``limit``."""
    return any(tf.span(a)[1] <= limit for a in _assignments(tf, expr))


def _later_assignment_in_block(
    tf: TFModel, model: cst.BaseExpression, anchor: cst.CSTNode
) -> cst.SimpleStatementLine | None:
    """The statement of the same block, after ``anchor``, that assigns ``model`` (model made after its optimizer)."""
    block = tf.index.parent.get(anchor)
    for assign in _assignments(tf, model):
        statement = tf.index.statement_of(assign)
        if (
            tf.index.parent.get(statement) is block
            and tf.index.before(anchor, statement)
            and _on_own_line(tf, statement)
        ):
            return statement  # type: ignore[return-value]  # _on_own_line: a simple line
    return None


def _built_before(tf: TFModel, model: cst.BaseExpression, limit: int) -> bool:
    """True when ``model``'s weights exist at offset ``limit``.

    A Keras model has no weights until it is built: `Sequential([Dense(10)])` gives an empty
    `trainable_variables`. Known built: a model whose constructor names its input (an `Input`
    layer, `input_shape=`, a functional `Model(inputs, outputs)`, a `keras.applications` model),
    or one that was built, or called outside a replica function, before ``limit`` (a call in the
    step builds it inside the step, which is what fails).
    """
    names = tf.names
    key = dotted_name(model)
    for assign in assignments_to(tf.index, dotted_name(model)):
        if tf.span(assign)[0] >= limit or not isinstance(assign.value, cst.Call):
            continue
        value = assign.value
        callee = names.callee(value) or ""
        if callee in _FUNCTIONAL and (
            len(value.args) >= 2 or any(a.keyword and a.keyword.value == "inputs" for a in value.args)
        ):
            return True
        if callee.startswith("keras.applications."):
            return True
        if callee in _SEQUENTIAL and value.args:
            layers = value.args[0].value
            if isinstance(layers, (cst.List, cst.Tuple)) and layers.elements:
                first = layers.elements[0].value
                if isinstance(first, cst.Call) and (
                    names.callee(first) in _INPUTS
                    or any(a.keyword is not None and a.keyword.value in _SHAPE_KEYWORDS for a in first.args)
                ):
                    return True
    in_step = tf.replica.replica_functions
    for call in tf.index.calls:
        if tf.span(call)[0] >= limit:
            continue
        func = call.func
        if dotted_name(func) == key and call.args and tf.index.enclosing_function(call) not in in_step:
            return True  # model(x) outside the step: called once, so built before it
        if isinstance(func, cst.Attribute) and func.attr.value == "build" and dotted_name(func.value) == key:
            return True
    return False


# Small helpers ---------------------------------------------------------------------------------


def _on_own_line(tf: TFModel, statement: cst.CSTNode) -> bool:
    """A one-statement line in an indented block or the module: lines can go right after it."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(tf.index.parent.get(statement), (cst.IndentedBlock, cst.Module))
    )


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float)) and float(node.value) == 0.0
