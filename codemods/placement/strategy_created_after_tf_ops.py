"""TFD105: MultiWorkerMirroredStrategy constructed after TensorFlow already ran ops."""

from __future__ import annotations

import libcst as cst

from fixer.context import RuleContext
from fixer.rule import Rule
from fixer.tf.compat import runs_on_tf1
from fixer.tf.dataflow import independent
from fixer.tf.names import dotted_name
from fixer.tf.strategies import MULTI_WORKER_CLASSES
from fixer.types import Applicability, Edit

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
    "tensorflow.debugging.disable_traceback_filtering",
)
# `context._reset_context()` clears the eager context: what ran before it no longer counts,
# and it is itself the workaround, so a strategy must never be moved above it.
_RESETS_CONTEXT = frozenset({"tensorflow.python.eager.context._reset_context"})
# Descriptions that hold no tensor: namedtuples and option/spec objects. Measured one by one
# (all configuration): tf.io.FixedLenFeature, VarLenFeature, FixedLenSequenceFeature,
# SparseFeature, RaggedFeature (and RaggedFeature.RowLengths...), tf.RaggedTensorSpec,
# SparseTensorSpec, IndexedSlicesSpec, OptionalSpec, tf.data.DatasetSpec, tf.data.Options and its
# parts (ThreadingOptions, DistributeOptions), tf.io.TFRecordOptions, tf.saved_model.SaveOptions,
# tf.train.CheckpointOptions, tf.distribute.InputOptions, tf.feature_column.numeric_column. So the
# whole class is configuration: a TensorFlow name ending in one of these, or under these modules.
_DESCRIPTION_SUFFIXES = ("Spec", "Options", "Feature", "Proto", "Policy")
_DESCRIPTION_MODULES = ("tensorflow.io.RaggedFeature.", "tensorflow.feature_column.", "tensorflow.compat.v1.feature_column.")
# The `tf.train.Example` protocol buffers (measured with Feature and Int64List).
_EXAMPLE_PROTOS = frozenset(
    f"tensorflow.train.{n}"
    for n in ("Example", "SequenceExample", "Features", "Feature", "FeatureList", "FeatureLists", "Int64List", "FloatList", "BytesList")
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
    "Dropout", "SpatialDropout", "GaussianNoise", "GaussianDropout", "AlphaDropout", "Random",
    "TextVectorization", "StringLookup", "IntegerLookup",
)
# Keras layers that are configuration unless they are built (an input shape given).
_BUILD_KEYWORDS = frozenset({"input_shape", "input_dim", "batch_input_shape"})
# Methods of a Keras model or layer that build it or create variables (measured for compile).
_BUILDING_METHODS = frozenset(
    {"compile", "fit", "evaluate", "predict", "build", "load_weights", "train_on_batch", "test_on_batch", "predict_on_batch", "__call__"}
)


class StrategyCreatedAfterTfOps(Rule):
    """
    ## What it does
    Finds `MultiWorkerMirroredStrategy(...)` constructed after the program already started the
    TensorFlow runtime: earlier in the same block, in an enclosing block, or before the only
    call of the function that creates it. What starts the runtime was measured on TensorFlow
    2.21 / Keras 3.15, one call at a time before the strategy. Tensors and ops, variables,
    datasets, optimizers, metrics, `Dropout`/`Random*`/`TextVectorization` layers, a built model
    (a `Sequential` with an `Input`, a functional `Model`, `compile`, `build`, calling it),
    another strategy, `tf.random.Generator`, summary writers, `list_logical_devices` and
    `get_memory_info` start it. Module functions and classes are followed to what their bodies
    call.

    A strategy with no TF_CONFIG in play is a single local worker, which TensorFlow creates after
    other ops (measured on 2.21): no finding when the file deletes TF_CONFIG before it
    (`os.environ.pop("TF_CONFIG")`, `del os.environ["TF_CONFIG"]`), nor in a notebook whose
    code never names TF_CONFIG (a kernel is not started by a cluster launcher; the ground truth
    has no notebook run with one). A script that never names TF_CONFIG keeps the finding: a
    launcher may start it as one worker of a cluster, which is the failing case. A script that a
    notebook's `%%writefile` cell writes is judged by how the notebook starts it: launched
    (`!python main.py`, a `%%bash` cell, `%run`, `subprocess`) after a cell sets TF_CONFIG, it is a
    worker of that cluster; launched without it, a single worker. A TensorFlow
    1.x program (it imports `tensorflow.contrib`) runs graphs by default and gets no finding.

    ## Why is this bad in distributed training?
    Collective operations must be configured before the TensorFlow runtime starts. Constructing
    the strategy afterwards raises `RuntimeError: Collective ops must be configured at program
    startup`. Configuration does not start it (measured): `tf.config.set_*`,
    `list_physical_devices`, `device_lib.list_local_devices()`, the profiler server, seeds, logging, `tf.data.Options`, cluster resolvers,
    `CommunicationOptions`, `tf.executing_eagerly()`, `tf.__version__`, `TensorSpec`,
    `tf.function`, `tf.io.gfile`, mixed-precision policies, `keras.Input`, unbuilt layers
    without random state, losses, callbacks, learning-rate schedules, and the whole class of
    descriptions that hold no tensor: parsing specs (`tf.io.FixedLenFeature`, `VarLenFeature`,
    `FixedLenSequenceFeature`, `SparseFeature`, `RaggedFeature`), type specs
    (`RaggedTensorSpec`, `SparseTensorSpec`, ...), option objects (`tf.data.Options`,
    `TFRecordOptions`, `SaveOptions`, `CheckpointOptions`, ...) and feature columns.

    ## Fix safety
    Unsafe: the strategy's statement moves up to just before the first statement in its block
    that starts the runtime, when its arguments do not depend on anything in between. Otherwise,
    or when the runtime starts outside the block, the finding says what to move.

    ## Runtime evidence
    `distfix validate --workers 2` shows the original failing check `runs` with the error above.

    ## References
    - https://www.tensorflow.org/api_docs/python/tf/distribute/MultiWorkerMirroredStrategy
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_ctl
    """

    code = "TFD105"
    name = "strategy-created-after-tf-ops"
    message = "MultiWorkerMirroredStrategy created after TensorFlow ran ops"
    fix_title = "Create the strategy before any TensorFlow op"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    def check(self, ctx: RuleContext) -> None:
        if runs_on_tf1(ctx.index):
            return  # TensorFlow 1.x (contrib): graph mode by default, no eager context to configure first
        for call, kind in ctx.tf.strategies.constructions:
            if kind not in MULTI_WORKER_CLASSES or self._single_worker(ctx, call):
                continue
            statement = ctx.index.statement_of(call)
            block = ctx.index.parent.get(statement)
            body = list(getattr(block, "body", ()))
            if statement not in body:
                continue
            message = (
                "MultiWorkerMirroredStrategy is created after TensorFlow ran ops: it raises `Collective ops must "
                "be configured at program startup`; create it first"
            )
            position = body.index(statement)
            start_at = self._after_last_reset(ctx, body[:position])
            first_op = next(
                (i for i, s in enumerate(body[:position]) if i >= start_at and self._runs_tf_on_the_way(ctx, s)), None
            )
            if first_op is None:
                if start_at > 0 or self._resets_before(ctx, statement):
                    continue  # the context was reset after anything that ran before
                earlier = self._earlier_op(ctx, statement)
                if earlier is not None:
                    line = ctx.range(earlier).start.line
                    ctx.report(call, message + f" (TensorFlow already runs at line {line})")
                continue
            between = body[first_op:position]
            if not independent([statement], between) or not isinstance(statement, cst.SimpleStatementLine):
                ctx.report(call, message)
                continue
            start, end = ctx.statement_block([statement])
            target = ctx.statement_block([body[first_op]])[0]
            ctx.report(call, message, edits=[Edit(start, end, ""), Edit(target, target, ctx.text[start:end])])

    def _single_worker(self, ctx: RuleContext, call: cst.Call) -> bool:
        """No TF_CONFIG can be in play when ``call`` runs: a single-worker strategy, which TensorFlow
        creates after other ops (measured on 2.21).

        Either the file itself deletes TF_CONFIG before the strategy (``os.environ.pop("TF_CONFIG")``,
        ``del os.environ["TF_CONFIG"]``), or it is a notebook whose code never names TF_CONFIG: a
        kernel is not started by a cluster launcher. A script that never names TF_CONFIG may still be
        launched with one per worker, so it keeps the finding.
        """
        if ctx.path.endswith(".ipynb") and "TF_CONFIG" not in ctx.text:
            return True
        return any(ctx.index.before(node, call) for node in _tf_config_deletions(ctx))

    def _after_last_reset(self, ctx: RuleContext, statements: list[cst.CSTNode]) -> int:
        """The index after the last statement that resets the eager context (0 when none does)."""
        last = 0
        for position, statement in enumerate(statements):
            if any(
                ctx.tf.names.callee(c) in _RESETS_CONTEXT for c in ctx.index.calls if ctx.index.is_within(c, statement)
            ):
                last = position + 1
        return last

    def _resets_before(self, ctx: RuleContext, statement: cst.CSTNode) -> bool:
        """Some call earlier in the source resets the eager context."""
        return any(
            ctx.tf.names.callee(c) in _RESETS_CONTEXT and ctx.index.before(c, statement) for c in ctx.index.calls
        )

    def _earlier_op(self, ctx: RuleContext, statement: cst.CSTNode) -> cst.CSTNode | None:
        """A statement that runs TensorFlow before the block holding ``statement`` is entered: in an
        enclosing block of the same function, or, for a function, before its (only) call site."""
        node: cst.CSTNode = statement
        for _ in range(8):
            parent = ctx.index.parent.get(node)
            while parent is not None and not isinstance(parent, (cst.IndentedBlock, cst.Module)):
                node, parent = parent, ctx.index.parent.get(parent)
            if parent is None:
                return None
            container = ctx.index.parent.get(parent)
            if node is not statement:
                body = list(parent.body)
                if node in body:
                    found = next((s for s in body[: body.index(node)] if self._runs_tf_on_the_way(ctx, s)), None)
                    if found is not None:
                        return found
            if isinstance(parent, cst.Module):
                return None
            if isinstance(container, cst.FunctionDef):
                sites = ctx.tf.strategies.call_sites(container)
                if len(sites) != 1:
                    return None
                node = ctx.index.statement_of(sites[0])
                body = list(getattr(ctx.index.parent.get(node), "body", ()))
                if node in body:
                    found = next((s for s in body[: body.index(node)] if self._runs_tf_on_the_way(ctx, s)), None)
                    if found is not None:
                        return found
                continue
            node = container
        return None

    def _runs_tf_on_the_way(self, ctx: RuleContext, statement: cst.CSTNode) -> bool:
        """Like :meth:`_runs_tf` for what runs before the statements after ``statement``: an `if`
        branch that ends in `return` or `raise` never gets there (`get_strategy()` returning a
        MirroredStrategy in one branch and building a MultiWorkerMirroredStrategy after it)."""
        if not isinstance(statement, cst.If):
            return self._runs_tf(ctx, statement)
        branches: list[cst.BaseSuite] = []
        branch: cst.If | cst.Else | None = statement
        while branch is not None:
            branches.append(branch.body)
            branch = branch.orelse if isinstance(branch, cst.If) else None
        return any(
            not _leaves(suite) and any(self._runs_tf_on_the_way(ctx, s) for s in getattr(suite, "body", ()))
            for suite in branches
        )

    def _runs_tf(self, ctx: RuleContext, statement: cst.CSTNode, depth: int = 0) -> bool:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or not isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return False
        owner = ctx.index.enclosing_function(statement)
        for call in ctx.index.calls:
            if ctx.index.is_within(call, statement) and ctx.index.enclosing_function(call) is owner:
                if self._runtime_call(ctx, call, depth):
                    return True
        return False

    def _runtime_call(self, ctx: RuleContext, call: cst.Call, depth: int) -> bool:
        """True when ``call`` starts the TensorFlow runtime (see the measurements above)."""
        callee = ctx.tf.names.callee(call)
        if callee is None:
            return self._runtime_method(ctx, call, depth)
        if callee.split(".")[0] not in ("tensorflow", "keras"):
            return False
        if callee.startswith(_STARTS_RUNTIME):
            return True
        if callee.startswith("keras.layers."):
            name = callee.rsplit(".", 1)[1]
            return name.startswith(_RANDOM_LAYERS) or any(a.keyword is not None and a.keyword.value in _BUILD_KEYWORDS for a in call.args)
        if callee in ("keras.Sequential", "keras.models.Sequential"):
            # Unbuilt: configuration. With an Input (or a layer given its input shape) it builds.
            return any(self._runtime_call(ctx, inner, depth) or (ctx.tf.names.callee(inner) or "").endswith("Input")
                       for inner in ctx.index.calls if inner is not call and ctx.index.is_within(inner, call))
        if callee.startswith("tensorflow.distribute."):
            return callee.endswith("Strategy")  # creating another strategy starts the runtime (measured)
        if callee == "tensorflow.train.Checkpoint":
            return False  # its variables are created by other calls, which are checked themselves
        if _description(callee):
            return False
        return not callee.startswith(_CONFIGURATION)

    def _runtime_method(self, ctx: RuleContext, call: cst.Call, depth: int) -> bool:
        """A module function or class that runs TensorFlow, or a Keras model method that builds it."""
        func = call.func
        if isinstance(func, cst.Name):
            if self._keras_object(ctx, func):
                return True  # calling a model or layer builds it
            if depth >= 3:
                return False
            bodies = list(ctx.index.functions_by_name.get(func.value, ()))
            bodies += [
                m for c in ctx.index.classes if c.name.value == func.value
                for m in ctx.index.functions_by_name.get("__init__", ()) if ctx.index.method_class(m) is c
            ]
            return any(self._body_runs_tf(ctx, f, depth + 1) for f in bodies)
        if isinstance(func, cst.Attribute) and func.attr.value in _BUILDING_METHODS:
            return self._keras_object(ctx, func.value)
        return False

    def _body_runs_tf(self, ctx: RuleContext, func: cst.FunctionDef, depth: int) -> bool:
        return any(
            self._runtime_call(ctx, c, depth)
            for c in ctx.index.calls
            if ctx.index.enclosing_function(c) is func
        )

    def _keras_object(self, ctx: RuleContext, node: cst.BaseExpression) -> bool:
        """A name bound to a Keras model or layer."""
        if not isinstance(node, cst.Name):
            return False
        for assign in ctx.index.assigns:
            if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call) and any(
                isinstance(t.target, cst.Name) and t.target.value == node.value for t in assign.targets
            ):
                if (ctx.tf.names.callee(assign.value) or "").startswith(("keras.Sequential", "keras.Model", "keras.models.", "keras.layers.", "keras.applications.")):
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


def _tf_config_deletions(ctx: RuleContext) -> list[cst.CSTNode]:
    """``os.environ.pop("TF_CONFIG", ...)`` calls and ``del os.environ["TF_CONFIG"]`` statements."""
    found: list[cst.CSTNode] = [
        call for call in ctx.index.calls
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "pop"
        and (ctx.tf.names.qualified(call.func.value) or dotted_name(call.func.value) or "").endswith("os.environ")
        and call.args and _names_tf_config(call.args[0].value)
    ]
    for attribute in ctx.index.attributes:
        subscript = ctx.index.parent.get(attribute)
        if (
            isinstance(subscript, cst.Subscript) and subscript.value is attribute
            and isinstance(ctx.index.parent.get(subscript), cst.Del)
            and (ctx.tf.names.qualified(attribute) or dotted_name(attribute) or "").endswith("os.environ")
            and len(subscript.slice) == 1 and isinstance(subscript.slice[0].slice, cst.Index)
            and _names_tf_config(subscript.slice[0].slice.value)
        ):
            found.append(attribute)
    return found


def _names_tf_config(key: cst.BaseExpression) -> bool:
    return isinstance(key, cst.SimpleString) and key.evaluated_value == "TF_CONFIG"
