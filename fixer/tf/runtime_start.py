"""What starts the TensorFlow runtime, as measured on TensorFlow 2.21 / Keras 3.15: the question
TFD105 (a MultiWorkerMirroredStrategy created too late) and TFD111 (devices configured too late)
both ask of the statements before a strategy or a device configuration."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.model import TFModel

# What starts the TensorFlow runtime, measured on TensorFlow 2.21 / Keras 3.15: each call below was
# run before `MultiWorkerMirroredStrategy()` (a one-worker TF_CONFIG) in a fresh process, and
# either the strategy was created ("configuration") or it raised `Collective ops must be
# configured at program startup` ("runtime").
# Configuration: tf.config.* (set_*, list_physical_devices, get_visible_devices, threading,
# optimizer), seeds, logging, tf.data.Options and AutoShardPolicy, tf.executing_eagerly,
# tf.__version__, cluster resolvers and tf.train.ClusterSpec, CommunicationOptions, TensorShape /
# TensorSpec / dtypes, tf.function, tf.io.gfile, tf.test.is_built_with_cuda / is_gpu_available,
# tf.sysconfig, tf.Module, an empty tf.train.Checkpoint, mixed-precision policies, keras.Input,
# Keras layers without random state or tables (Dense, BatchNormalization, Embedding,
# Normalization), an unbuilt Sequential, losses, initializers, regularizers, callbacks
# (TensorBoard, ModelCheckpoint, BackupAndRestore), learning-rate schedules, clear_session.
# Runtime: tensors and ops (tf.constant, tf.convert_to_tensor, tf.print, tf.random.*), variables,
# datasets, optimizers, metrics, Dropout / Random* / TextVectorization layers, a built model
# (Sequential with an Input, a functional Model, `model.compile`, `layer.build`), another
# strategy, tf.random.Generator, tf.summary.create_file_writer, list_logical_devices,
# get_memory_info.
_CONFIGURATION = (
    "tensorflow.config.",
    "tensorflow.random.set_seed",
    "keras.utils.set_random_seed",
    "keras.utils.to_categorical",
    "tensorflow.get_logger",
    "tensorflow.autograph.",
    "tensorflow.debugging.set_log_device_placement",
    "tensorflow.compat.v1.logging.",
    "tensorflow.distribute.cluster_resolver.",
    "tensorflow.distribute.experimental.CommunicationOptions",
    "tensorflow.distribute.experimental.CommunicationImplementation",
    "tensorflow.distribute.InputOptions",
    "tensorflow.distribute.ReduceOp",
    "tensorflow.train.ClusterSpec",
    "tensorflow.data.Options",
    "tensorflow.data.experimental.AutoShardPolicy",
    "tensorflow.data.experimental.enable_debug_mode",
    "tensorflow.executing_eagerly",
    "tensorflow.function",
    "tensorflow.TensorShape",
    "tensorflow.TensorSpec",
    "tensorflow.as_dtype",
    "tensorflow.dtypes.",
    "tensorflow.io.gfile.",
    "tensorflow.test.is_built_with",
    "tensorflow.test.is_gpu_available",
    "tensorflow.sysconfig.",
    "tensorflow.version.",
    "keras.mixed_precision.set_global_policy",
    "keras.mixed_precision.Policy",
    "keras.Input",
    "keras.layers.Input",
    "keras.losses.",
    "keras.initializers.",
    "keras.regularizers.",
    "keras.constraints.",
    "keras.activations.",
    "keras.callbacks.",
    "keras.optimizers.schedules.",
    "keras.datasets.",
    "keras.backend.set_floatx",
    "keras.backend.clear_session",
    "tensorflow.Module",
    # Measured on 2.21: lists the devices without creating the eager context (it stays uninitialised).
    "tensorflow.python.client.device_lib.list_local_devices",
    # Measured on 2.21: the profiler server starts without initialising the context either.
    "tensorflow.profiler.experimental.server.start",
    "tensorflow.compat.v1.profiler.experimental.server.start",
    # Measured (ground truth, addendum 2): a MultiWorkerMirroredStrategy created after these works.
    "tensorflow.compat.v1.disable_eager_execution",
    # Measured on 2.21, Keras 3 and tf-keras (benchmarks/probe_device_config_after_resource_variables.py):
    # four logical CPUs configured after it take effect.
    "tensorflow.compat.v1.enable_resource_variables",
    "tensorflow.debugging.disable_traceback_filtering",
    # Measured on 2.21, Keras 3 and tf-keras (benchmarks/probe_runtime_start_io.py): writing
    # TFRecords, downloading with get_file and normalising NumPy arrays leave the runtime unstarted.
    "tensorflow.io.TFRecordWriter",
    "tensorflow.compat.v1.io.TFRecordWriter",
    "tensorflow.compat.v1.python_io.TFRecordWriter",
    "keras.utils.get_file",
    "keras.utils.normalize",
    # Measured on 2.21, Keras 3 and tf-keras (benchmarks/probe_image_generator_runtime.py): the
    # generator stores its parameters; its `flow`, `flow_from_directory` and `flow_from_dataframe`
    # iterators list files or hold arrays (method calls, not counted as starts) and run no op.
    "keras.preprocessing.image.ImageDataGenerator",
    # Measured on 2.21 (same probe): it clears the graph-mode default graph, not the eager context.
    "tensorflow.compat.v1.reset_default_graph",
    # Measured on 2.21, Keras 3 and tf-keras (benchmarks/probe_ledger22a_premises.py): it registers
    # an op callback and runs no op; a CPU split and a MultiWorkerMirroredStrategy after it work.
    "tensorflow.debugging.enable_check_numerics",
    # TF 2.1-2.3's names of the mixed-precision policy API listed above (`Policy`,
    # `set_global_policy`); absent on 2.21, so their successors are what the same probe measured.
    "keras.mixed_precision.experimental.Policy",
    "keras.mixed_precision.experimental.set_policy",
)
# Measured on 2.21 (benchmarks/probe_ledger12b_premises.py): constructing a v1 Session leaves the
# eager context's handle unset, the very test behind both "Collective ops must be configured at
# program startup" and the device-configuration errors (context.py), and two logical CPUs
# configured after it take effect. The constructor only (exact names, not prefixes): what a
# session then runs, and `InteractiveSession`, are not measured.
_SESSIONS = frozenset({"tensorflow.compat.v1.Session"})
# `context._reset_context()` clears the eager context: what ran before it no longer counts,
# and it is itself the workaround, so a strategy must never be moved above it.
_RESETS_CONTEXT = frozenset({"tensorflow.python.eager.context._reset_context"})
# The older spelling of the same reset (test suites of 2020): `context._context = None`, then
# `ops.enable_eager_execution_internal()` builds a new eager context; measured on 2.21
# (benchmarks/probe_ledger17a_premises.py): a device split after the pair is accepted. The call
# counts as a reset only after the assignment, which is what drops the started context.
_NEW_CONTEXT = "tensorflow.python.framework.ops.enable_eager_execution_internal"
_EAGER_CONTEXT_MODULE = "tensorflow.python.eager.context"
# Ending the process resets everything: `os._exit(0)`, a module-level `exit()`, and the kernel
# shutdown with restart that notebooks run after installing packages
# (`get_ipython().kernel.do_shutdown(True)`); the cells below it run in a new process, where
# TensorFlow has not started.
_ENDS_PROCESS = frozenset({"os._exit"})
# Descriptions that hold no tensor: namedtuples and option/spec objects. Measured one by one
# (all configuration): tf.io.FixedLenFeature, VarLenFeature, FixedLenSequenceFeature,
# SparseFeature, RaggedFeature (and RaggedFeature.RowLengths...), tf.RaggedTensorSpec,
# SparseTensorSpec, IndexedSlicesSpec, OptionalSpec, tf.data.DatasetSpec, tf.data.Options and its
# parts (ThreadingOptions, DistributeOptions), tf.io.TFRecordOptions, tf.saved_model.SaveOptions,
# tf.train.CheckpointOptions, tf.distribute.InputOptions, tf.feature_column.numeric_column. So the
# whole class is configuration: a TensorFlow name ending in one of these, or under these modules.
_DESCRIPTION_SUFFIXES = ("Spec", "Options", "Feature", "Proto", "Policy")
_DESCRIPTION_MODULES = (
    "tensorflow.io.RaggedFeature.",
    "tensorflow.feature_column.",
    "tensorflow.compat.v1.feature_column.",
)
# The `tf.train.Example` protocol buffers (measured with Feature and Int64List).
_EXAMPLE_PROTOS = frozenset(
    f"tensorflow.train.{n}"
    for n in (
        "Example",
        "SequenceExample",
        "Features",
        "Feature",
        "FeatureList",
        "FeatureLists",
        "Int64List",
        "FloatList",
        "BytesList",
    )
)
# ...except these, which start the runtime (measured: the strategy then fails).
_STARTS_RUNTIME = (
    "tensorflow.config.list_logical_devices",
    "tensorflow.config.experimental.list_logical_devices",
    "tensorflow.config.experimental.get_memory_info",
    "tensorflow.config.experimental.get_memory_usage",
)
# Keras layers whose constructor creates random state (a seed variable): runtime.
# So do the lookup layers, which create tables (measured for TextVectorization).
_RANDOM_LAYERS = (
    "Dropout",
    "SpatialDropout",
    "GaussianNoise",
    "GaussianDropout",
    "AlphaDropout",
    "Random",
    "TextVectorization",
    "StringLookup",
    "IntegerLookup",
)
# Keras layers that are configuration unless they are built (an input shape given).
_BUILD_KEYWORDS = frozenset({"input_shape", "input_dim", "batch_input_shape"})
# Methods of a Keras model or layer that build it or create variables (measured for compile).
_BUILDING_METHODS = frozenset(
    {
        "compile",
        "fit",
        "evaluate",
        "predict",
        "build",
        "load_weights",
        "train_on_batch",
        "test_on_batch",
        "predict_on_batch",
        "__call__",
    }
)


def after_last_reset(tf: TFModel, statements: list[cst.CSTNode]) -> int:
    """The index after the last statement that resets the eager context (0 when none does)."""
    last = 0
    for position, statement in enumerate(statements):
        if resets_context(tf, statement):
            last = position + 1
    return last


def resets_context(tf: TFModel, statement: cst.CSTNode) -> bool:
    """A call in ``statement`` resets the eager context (or ends the process)."""
    return any(_resets(tf, c) for c in tf.index.calls if tf.index.is_within(c, statement))


def resets_before(tf: TFModel, statement: cst.CSTNode) -> bool:
    """Some call earlier in the source resets the eager context (or ends the process)."""
    return any(_resets(tf, c) and tf.index.before(c, statement) for c in tf.index.calls)


def _resets(tf: TFModel, call: cst.Call) -> bool:
    callee = tf.names.callee(call)
    if callee in _RESETS_CONTEXT or callee in _ENDS_PROCESS:
        return True
    if callee == _NEW_CONTEXT:
        return _context_dropped_before(tf, call)
    if isinstance(call.func, cst.Name) and call.func.value in ("exit", "quit"):
        # IPython's `exit()` ends the kernel; only a module-level statement of its own counts
        # (one inside a function or a branch may not run).
        expression = tf.index.parent.get(call)
        line = tf.index.parent.get(expression) if isinstance(expression, cst.Expr) else None
        return line is not None and isinstance(tf.index.parent.get(line), cst.Module)
    # `<anything>.kernel.do_shutdown(...)`: IPython's kernel, reached through `get_ipython()` or
    # `IPython.Application.instance()` (calls the name resolver does not follow).
    func = call.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "do_shutdown"
        and isinstance(func.value, cst.Attribute)
        and func.value.attr.value == "kernel"
    )


def earlier_op(tf: TFModel, statement: cst.CSTNode) -> cst.CSTNode | None:
    """A statement that runs TensorFlow before the block holding ``statement`` is entered: in an
    enclosing block of the same function, or, for a function, before its (only) call site."""
    node: cst.CSTNode = statement
    for _ in range(8):
        parent = tf.index.parent.get(node)
        while parent is not None and not isinstance(parent, (cst.IndentedBlock, cst.Module)):
            node, parent = parent, tf.index.parent.get(parent)
        if parent is None:
            return None
        container = tf.index.parent.get(parent)
        if node is not statement:
            body: list[cst.CSTNode] = list(parent.body)
            if node in body:
                found = next((s for s in body[: body.index(node)] if runs_tf_on_the_way(tf, s)), None)
                if found is not None:
                    return found
        if isinstance(parent, cst.Module):
            return None
        if isinstance(container, cst.FunctionDef):
            sites = tf.strategies.call_sites(container)
            if len(sites) != 1:
                return None
            node = tf.index.statement_of(sites[0])
            body = list(getattr(tf.index.parent.get(node), "body", ()))
            if node in body:
                found = next((s for s in body[: body.index(node)] if runs_tf_on_the_way(tf, s)), None)
                if found is not None:
                    return found
            continue
        if container is None:  # a block always has a parent; without one the next pass ends too
            return None
        node = container
    return None


def runs_tf_on_the_way(tf: TFModel, statement: cst.CSTNode) -> bool:
    """Like :func:`runs_tf` for what runs before the statements after ``statement``: an `if`
    branch that ends in `return` or `raise` never gets there (`get_strategy()` returning a
    MirroredStrategy in one branch and building a MultiWorkerMirroredStrategy after it)."""
    if not isinstance(statement, cst.If):
        return runs_tf(tf, statement)
    branches: list[cst.BaseSuite] = []
    branch: cst.If | cst.Else | None = statement
    while branch is not None:
        branches.append(branch.body)
        branch = branch.orelse if isinstance(branch, cst.If) else None
    return any(
        not _leaves(suite) and any(runs_tf_on_the_way(tf, s) for s in getattr(suite, "body", ())) for suite in branches
    )


def runs_tf(tf: TFModel, statement: cst.CSTNode, depth: int = 0) -> bool:
    """True when a call in ``statement`` (not in a nested function or class) starts the runtime."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or not isinstance(
        statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
    ):
        return False
    owner = tf.index.enclosing_function(statement)
    for call in tf.index.calls:
        if tf.index.is_within(call, statement) and tf.index.enclosing_function(call) is owner:
            if runtime_call(tf, call, depth):
                return True
    return False


def _context_dropped_before(tf: TFModel, call: cst.Call) -> bool:
    """``<eager context module>._context = None`` runs earlier in the function (or module code)
    that makes ``call``: the eager context it builds replaces the started one."""
    owner = tf.index.enclosing_function(call)
    for assign in tf.index.assigns:
        if (
            isinstance(assign, cst.Assign)
            and isinstance(assign.value, cst.Name)
            and assign.value.value == "None"
            and tf.index.enclosing_function(assign) is owner
            and tf.index.before(assign, call)
            and any(_is_eager_context_slot(tf, t.target) for t in assign.targets)
        ):
            return True
    return False


def _is_eager_context_slot(tf: TFModel, target: cst.BaseAssignTargetExpression) -> bool:
    return (
        isinstance(target, cst.Attribute)
        and target.attr.value == "_context"
        and tf.names.qualified(target.value) == _EAGER_CONTEXT_MODULE
    )


def runtime_call(tf: TFModel, call: cst.Call, depth: int) -> bool:
    """True when ``call`` starts the TensorFlow runtime (see the measurements above)."""
    callee = tf.names.callee(call)
    if callee is None:
        return _runtime_method(tf, call, depth)
    if callee.split(".")[0] not in ("tensorflow", "keras") or callee in _RESETS_CONTEXT:
        return False  # a reset ends the started state (probe_virtual_devices_after_context_reset)
    if callee.startswith(_STARTS_RUNTIME):
        return True
    if callee in _SESSIONS:
        return False
    if callee.startswith("keras.layers."):
        name = callee.rsplit(".", 1)[1]
        return name.startswith(_RANDOM_LAYERS) or any(
            a.keyword is not None and a.keyword.value in _BUILD_KEYWORDS for a in call.args
        )
    if callee in ("keras.Sequential", "keras.models.Sequential"):
        # Unbuilt: configuration. With an Input (or a layer given its input shape) it builds.
        return any(
            runtime_call(tf, inner, depth) or (tf.names.callee(inner) or "").endswith("Input")
            for inner in tf.index.calls
            if inner is not call and tf.index.is_within(inner, call)
        )
    if callee.startswith("tensorflow.distribute."):
        return callee.endswith("Strategy")  # creating another strategy starts the runtime (measured)
    if callee == "tensorflow.train.Checkpoint":
        return False  # its variables are created by other calls, which are checked themselves
    if _description(callee):
        return False
    return not callee.startswith(_CONFIGURATION)


def _runtime_method(tf: TFModel, call: cst.Call, depth: int) -> bool:
    """A module function or class that runs TensorFlow, or a Keras model method that builds it."""
    func = call.func
    if isinstance(func, cst.Name):
        if _keras_object(tf, func):
            return True  # calling a model or layer builds it
        if depth >= 3:
            return False
        bodies = list(tf.index.functions_by_name.get(func.value, ()))
        bodies += [
            m
            for c in tf.index.classes
            if c.name.value == func.value
            for m in tf.index.functions_by_name.get("__init__", ())
            if tf.index.method_class(m) is c
        ]
        return any(_body_runs_tf(tf, f, depth + 1) for f in bodies)
    if isinstance(func, cst.Attribute) and func.attr.value in _BUILDING_METHODS:
        return _keras_object(tf, func.value)
    return False


def _body_runs_tf(tf: TFModel, func: cst.FunctionDef, depth: int) -> bool:
    return any(runtime_call(tf, c, depth) for c in tf.index.calls if tf.index.enclosing_function(c) is func)


def _keras_object(tf: TFModel, node: cst.BaseExpression) -> bool:
    """A name bound to a Keras model or layer."""
    if not isinstance(node, cst.Name):
        return False
    for assign in tf.index.assigns:
        if (
            isinstance(assign, cst.Assign)
            and isinstance(assign.value, cst.Call)
            and any(isinstance(t.target, cst.Name) and t.target.value == node.value for t in assign.targets)
        ):
            if (tf.names.callee(assign.value) or "").startswith(
                ("keras.Sequential", "keras.Model", "keras.models.", "keras.layers.", "keras.applications.")
            ):
                return True
    return False


def _leaves(suite: cst.BaseSuite) -> bool:
    """True when a block always ends by leaving it (its last statement returns or raises)."""
    body = getattr(suite, "body", ())
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], (cst.Return, cst.Raise))
    if isinstance(suite, cst.SimpleStatementSuite):
        return isinstance(suite.body[-1], (cst.Return, cst.Raise))
    return False


def _description(callee: str) -> bool:
    """A TensorFlow constructor of a plain description (a feature spec, a type spec, options):
    namedtuples and option objects that hold no tensor and start nothing (measured)."""
    if not callee.startswith("tensorflow.") or callee.startswith(_STARTS_RUNTIME):
        return False
    name = callee.rsplit(".", 1)[1]
    return (
        (name[:1].isupper() and name.endswith(_DESCRIPTION_SUFFIXES))
        or callee.startswith(_DESCRIPTION_MODULES)
        or callee in _EXAMPLE_PROTOS
    )
