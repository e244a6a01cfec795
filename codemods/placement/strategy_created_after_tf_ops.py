"""TFD105: MultiWorkerMirroredStrategy constructed after TensorFlow already ran ops (what starts
the runtime, measured: fixer/tf/runtime_start.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.cell_lines import line_label
from fixer.clusterspec import is_no_cluster
from fixer.rule import Rule
from fixer.tf.dataflow import independent
from fixer.tf.module_summary import ImportRef
from fixer.tf.names import dotted_name, imported_modules, imported_names
from fixer.tf.programs import Programs
from fixer.tf.restart_cells import restart_above
from fixer.tf.runtime_start import after_last_reset, earlier_op, resets_before, runs_tf_on_the_way, runtime_call
from fixer.tf.strategies import MULTI_WORKER_CLASSES
from fixer.tf.tf1_program import runs_tensorflow_1
from fixer.tf.tf_config_sources import tf_config_of, tf_config_setters
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext


class StrategyCreatedAfterTfOps(Rule):
    """
    ## What it does
    Finds `MultiWorkerMirroredStrategy(...)` constructed after the program already started the
    TensorFlow runtime: earlier in the same block, in an enclosing block, or before the only call of
    the function that creates it.

    ## Why is this bad in distributed training?
    Collective operations must be configured before the TensorFlow runtime starts. Constructing
    the strategy afterwards raises `RuntimeError: Collective ops must be configured at program
    startup`. Configuration does not start it (measured): `tf.config.set_*`,
    `list_physical_devices`, `device_lib.list_local_devices()`,
    `tf.compat.v1.reset_default_graph()`, the profiler server, seeds, logging, `tf.data.Options`,
    cluster resolvers,
    `CommunicationOptions`, `tf.executing_eagerly()`, `tf.__version__`, `TensorSpec`,
    `tf.function`, `tf.io.gfile`, writing TFRecords (`tf.io.TFRecordWriter`), downloads with
    `keras.utils.get_file`, NumPy arithmetic and `keras.utils.normalize`, mixed-precision
    policies, `keras.Input`, unbuilt layers
    without random state, losses, callbacks, learning-rate schedules, and the whole class of
    descriptions that hold no tensor: parsing specs (`tf.io.FixedLenFeature`, `VarLenFeature`,
    `FixedLenSequenceFeature`, `SparseFeature`, `RaggedFeature`), type specs
    (`RaggedTensorSpec`, `SparseTensorSpec`, ...), option objects (`tf.data.Options`,
    `TFRecordOptions`, `SaveOptions`, `CheckpointOptions`, ...) and feature columns.

    ## When it is reported (the policy)
    Code that nothing calls (a method of a template class no caller reaches) is reported as
    written: which code runs is a whole-program question a linter cannot answer for importable
    code, and whoever migrates a repository wants every instance.

    ## Fix safety
    Unsafe: the strategy's statement moves up to just before the first statement in its block
    that starts the runtime, when its arguments do not depend on anything in between. Otherwise,
    or when the runtime starts outside the block, the finding says what to move.

    ## Known limits
    - What starts the runtime was measured on TensorFlow 2.21 / Keras 3.15, one call at a time
      before the strategy. Tensors and ops, variables, datasets, optimizers, metrics,
      `Dropout`/`Random*`/`TextVectorization` layers, a built model (a `Sequential` with an
      `Input`, a functional `Model`, `compile`, `build`, calling it), another strategy,
      `tf.random.Generator`, summary writers, `list_logical_devices` and `get_memory_info` start
      it. Module functions and classes are followed to what their bodies call. Constructing a
      `tf.compat.v1.Session(...)` does not: it leaves the eager context uninitialised
      (`benchmarks/probe_ledger12b_premises.py`), the state TensorFlow's collective-ops check reads.
    - A strategy with no TF_CONFIG in play is a single local worker, which TensorFlow creates after
      other ops (measured on 2.21): no finding when the file deletes TF_CONFIG before it
      (`os.environ.pop("TF_CONFIG")`, `del os.environ["TF_CONFIG"]`) or sets it to `"{}"` (no
      cluster, measured: `benchmarks/probe_empty_tf_config.py`), or first imports a project
      module whose top level ends doing so, and does not set it again before the strategy (set
      again, by any setter TFD601 follows, the finding stays), nor in a notebook whose code never
      names TF_CONFIG (a kernel is not started by a cluster launcher; the ground truth has no
      notebook run with one). A notebook downloaded as a script (Colab's `.py`: its Markdown cells
      are bare top-level strings, two or more opening with a heading) counts as that notebook when
      its code never names TF_CONFIG (its Markdown may show one to set).
    - A notebook cell that asks to be run after a kernel restart (a comment with "restart" and
      "kernel" or "runtime", above any code of the cell but imports: "restart the kernel before
      running this cell") starts a new program: the ops and the TF_CONFIG of the cells above it
      do not reach its strategy (`benchmarks/probe_ledger18a_premises.py`). So does a cell whose
      saved execution count starts over at 1 below cells that counted higher, every later count
      above 1: the first a new kernel ran (fixer/tf/restart_cells.py).
    - A script that sets TF_CONFIG itself only after the strategy runs the strategy with no
      cluster: one local worker, no finding (`benchmarks/probe_ledger17b_premises.py`). It stays when a
      TF_CONFIG setter or the key comes before it, when the strategy is given a cluster resolver,
      runs in a function or loop, or follows the import of a project module that names TF_CONFIG.
    - A script that never names TF_CONFIG keeps the finding: a launcher (Kubeflow, Vertex AI, a
      shell loop) may start it as one worker of a cluster, which is the failing case. Unless the file
      names TF_CONFIG or a cluster resolver, the message says the error needs a cluster TF_CONFIG.
    - A script that a notebook's `%%writefile` cell writes is judged by how the notebook starts it:
      launched (`!python main.py`, a `%%bash` cell, `%run`, `subprocess`) after a cell sets
      TF_CONFIG, it is a worker of that cluster; launched without it, a single worker.
    - A TensorFlow 1.x program (it uses a name only 1.x has: `tensorflow.contrib`, `tf.Session`,
      `tf.placeholder` under `import tensorflow as tf`) runs graphs by default and gets no finding.
      The `tf.compat.v1` API alone does not count: it runs eagerly on TensorFlow 2.
    - Programs pasted one after another in one script (each starts again with its imports:
      `fixer/tf/programs.py`) are separate processes: only what the strategy's own program ran counts.
    - A strategy in an arm of a local factory that every call of the file rules out by its literal
      arguments is never created: `def make(mode="local"): if mode == "local": return
      MirroredStrategy() ... if mode == "multi": return MultiWorkerMirroredStrategy()` called as
      `make()` gets no finding (called with `"multi"`, with a non-literal, or passed as a value, it
      does). A call from another module of the project is not seen.
    - A multi-worker strategy built again after a first one, with nothing else that starts the
      runtime before the first or between them, finds the collectives configured and builds
      (measured with NumPy work between: `benchmarks/probe_ledger18b_premises.py` part 1): no
      finding. With an op between them (not measured) the finding stays.

    ## Runtime evidence
    `distfix validate --workers 2` shows the original failing check `runs` with the error above.

    Measured on TensorFlow 2.21 (`benchmarks/probe_cluster_specs.py`, output in
    `docs/probes.md`): with a two-worker TF_CONFIG, a `tf.constant` before
    `MultiWorkerMirroredStrategy()` raises the `RuntimeError` above on both workers, and with no
    TF_CONFIG the strategy is built after it (one replica). What starts the runtime and what
    does not (TFRecord writing, `get_file`, NumPy normalisation, `reset_default_graph`):
    `benchmarks/probe_runtime_start_io.py`.

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
        if runs_tensorflow_1(ctx.tf.target):
            return  # TensorFlow 1.x: graph mode by default, no eager context to configure first
        # A script may hold several programs pasted one after another (issue reproductions): what an
        # earlier one ran started another process's runtime. A notebook's cells share one kernel.
        programs = None if ctx.path.endswith(".ipynb") else Programs(ctx.module, ctx.index)
        for call, kind in ctx.tf.strategies.all_constructions:
            if kind not in MULTI_WORKER_CLASSES:
                continue
            # A notebook cell that asks for a kernel restart starts a new program (fixer/tf/restart_cells.py).
            restart = restart_above(ctx.tf, call) if programs is None else None
            if self._single_worker(ctx, call, restart) or _cluster_only_later(ctx, call):
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
            if not _names_a_cluster(ctx):
                # Nothing here says the script is a worker: only a launcher's TF_CONFIG makes it one.
                # Without TF_CONFIG it runs as one local worker (measured), so say when it fails.
                message = (
                    "MultiWorkerMirroredStrategy after TensorFlow ran ops: under a cluster TF_CONFIG it raises "
                    "`Collective ops must be configured at program startup`; create it first"
                )
            position = body.index(statement)
            start_at = after_last_reset(ctx.tf, body[:position])
            if restart is not None and block is ctx.module:
                start_at = max(start_at, body.index(restart))
            if programs is not None and block is ctx.module:
                start_at = max(start_at, next(i for i, s in enumerate(body) if programs.same_program(s, statement)))
            first_op = next(
                (i for i, s in enumerate(body[:position]) if i >= start_at and runs_tf_on_the_way(ctx.tf, s)), None
            )
            if first_op is None:
                if start_at > 0 or resets_before(ctx.tf, statement):
                    continue  # the context was reset (or the program began) after anything that ran before
                earlier = earlier_op(ctx.tf, statement)
                if restart is not None and earlier is not None and ctx.index.before(earlier, restart):
                    continue  # what ran before the restart ran in another process
                if earlier is not None and _rebuilt_after_a_multi_worker_strategy(ctx, earlier, call):
                    continue  # built again after a first one: the collectives are configured already
                if earlier is not None and (programs is None or programs.same_program(earlier, statement)):
                    where = line_label(ctx.text, ctx.range(earlier).start.line)
                    ctx.report(call, message + f" (TensorFlow already runs at {where})")
                continue
            if _rebuilt_after_a_multi_worker_strategy(ctx, body[first_op], call):
                continue  # built again after a first one: the collectives are configured already
            between = body[first_op:position]
            if not independent([statement], between) or not isinstance(statement, cst.SimpleStatementLine):
                ctx.report(call, message)
                continue
            start, end = ctx.statement_block([statement])
            target = ctx.statement_block([body[first_op]])[0]
            ctx.report(call, message, edits=[Edit(start, end, ""), Edit(target, target, ctx.text[start:end])])

    def _single_worker(self, ctx: RuleContext, call: cst.Call, restart: cst.BaseStatement | None) -> bool:
        """No TF_CONFIG can be in play when ``call`` runs: a single-worker strategy, which TensorFlow
        creates after other ops (measured on 2.21).

        Either the file itself deletes TF_CONFIG before the strategy (``os.environ.pop("TF_CONFIG")``,
        ``del os.environ["TF_CONFIG"]``), or imports first a project module whose top level does, and
        does not set it again between the deletion and the strategy, or it is a notebook whose code
        never names TF_CONFIG: a kernel is not started by a cluster launcher. A script that never
        names TF_CONFIG may still be launched with one per worker, so it keeps the finding. In a
        notebook, code from a restart-instructed cell on (``restart``) is the whole program.
        """
        if ctx.path.endswith(".ipynb") and "TF_CONFIG" not in ctx.text:
            return True
        if (
            restart is not None
            and "TF_CONFIG" not in ctx.text[ctx.textmap.line_starts[ctx.range(restart).start.line - 1] :]
        ):
            return True  # the earlier cells' TF_CONFIG went with the process the restart ended
        if _notebook_download(ctx) and not tf_config_setters(ctx.tf) and not _names_tf_config_before(ctx, None):
            return True  # a notebook saved as a script runs as that notebook did: no cluster
        setters = tf_config_setters(ctx.tf)
        # `TF_CONFIG = "{}"` clears the cluster as a deletion does (measured: one local worker, also
        # after other ops; benchmarks/probe_empty_tf_config.py).
        clearers = [s.node for s in setters if is_no_cluster(tf_config_of(ctx.tf, s))]
        deletions = [
            node
            for node in _tf_config_deletions(ctx) + clearers + _clearing_imports(ctx)
            if ctx.index.before(node, call)
        ]
        if not deletions:
            return False
        # A TF_CONFIG set again after the last deletion and before the strategy puts a cluster back.
        last = max(deletions, key=lambda node: ctx.index.order[node])
        return not any(
            ctx.index.before(last, setter.node) and ctx.index.before(setter.node, call)
            for setter in setters
            if setter.node not in clearers
        )


def _rebuilt_after_a_multi_worker_strategy(ctx: RuleContext, statement: cst.CSTNode, call: cst.Call) -> bool:
    """The first call of ``statement`` that starts the runtime builds a multi-worker strategy, and
    nothing else that starts it runs from there to ``call``: the strategy is built again over the
    collectives the first one configured, which works (measured with NumPy work between, both
    Kerases: benchmarks/probe_ledger18b_premises.py part 1; with ops between, not measured)."""
    owner = ctx.index.enclosing_function(statement)
    runtime = [
        c
        for c in ctx.index.calls
        if c is not call and runtime_call(ctx.tf, c, 0) and ctx.index.before(statement, c) and ctx.index.before(c, call)
    ]
    first = next(
        (c for c in runtime if ctx.index.is_within(c, statement) and ctx.index.enclosing_function(c) is owner), None
    )
    multi_worker = {c for c, kind in ctx.tf.strategies.all_constructions if kind in MULTI_WORKER_CLASSES}
    return first is not None and first in multi_worker and all(c is first or c in multi_worker for c in runtime)


def _cluster_only_later(ctx: RuleContext, call: cst.Call) -> bool:
    """The file gives the process a cluster only after ``call`` has run: every statement of the
    file that sets TF_CONFIG comes later, and ``call`` runs once at the top level (in no function or
    loop a later setter could come round to), with no cluster resolver of its own.

    The process environment is unknown, but a script that writes TF_CONFIG itself is not one a
    launcher hands a cluster to: at ``call`` there is none, and the strategy is one local worker,
    built after other ops (measured on 2.21, ``benchmarks/probe_ledger17b_premises.py``). The key
    named before ``call`` (a variable holding it, a project module naming it on import) keeps the
    finding.
    """
    setters = tf_config_setters(ctx.tf)
    if not setters or any(not ctx.index.before(call, setter.node) for setter in setters):
        return False
    if any(isinstance(node, (cst.FunctionDef, cst.Lambda, cst.For, cst.While)) for node in ctx.index.ancestors(call)):
        return False
    if _given_a_resolver(ctx, call) or _names_tf_config_before(ctx, call):
        return False
    return not _imports_naming_tf_config(ctx, call)


def _given_a_resolver(ctx: RuleContext, call: cst.Call) -> bool:
    """``call`` is handed a cluster resolver: ``cluster_resolver=``, or the stable class's first
    positional argument (the experimental class's is the communication enum)."""
    if any(arg.keyword is not None and arg.keyword.value == "cluster_resolver" for arg in call.args):
        return True
    stable = not (ctx.tf.names.callee(call) or "").endswith("experimental.MultiWorkerMirroredStrategy")
    return stable and any(arg.keyword is None for arg in call.args)


def _names_tf_config_before(ctx: RuleContext, call: cst.Call | None) -> bool:
    """A string ``"TF_CONFIG"`` (a key kept in a variable, a read) stands before ``call`` (None:
    anywhere in the file)."""
    return any(
        isinstance(node, cst.SimpleString) and (call is None or ctx.index.before(node, call)) and _names_tf_config(node)
        for node in ctx.index.order
    )


def _notebook_download(ctx: RuleContext) -> bool:
    """The script is a notebook downloaded as `.py` (Colab's "Download .py"): its Markdown cells
    stand at the top level as bare strings, at least two of them opening with a heading
    (`\"\"\"## Types of strategies`)."""
    if ctx.path.endswith(".ipynb") or '"""#' not in ctx.text:
        return False
    headings = 0
    for statement in ctx.module.body:
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            expr = statement.body[0]
            if isinstance(expr, cst.Expr) and isinstance(expr.value, cst.SimpleString):
                text = expr.value.evaluated_value
                headings += isinstance(text, str) and text.lstrip().startswith("#")
    return headings >= 2


def _imports_naming_tf_config(ctx: RuleContext, call: cst.Call) -> bool:
    """A project module imported before ``call`` names TF_CONFIG: its top level may set it."""
    return any(
        ctx.index.before(node, call) and ctx.tf.project.names_tf_config(refs) for node, refs in _project_imports(ctx)
    )


def _tf_config_deletions(ctx: RuleContext) -> list[cst.CSTNode]:
    """``os.environ.pop("TF_CONFIG", ...)`` calls and ``del os.environ["TF_CONFIG"]`` statements."""
    found: list[cst.CSTNode] = [
        call
        for call in ctx.index.calls
        if isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "pop"
        and (ctx.tf.names.qualified(call.func.value) or dotted_name(call.func.value) or "").endswith("os.environ")
        and call.args
        and _names_tf_config(call.args[0].value)
    ]
    for attribute in ctx.index.attributes:
        subscript = ctx.index.parent.get(attribute)
        if (
            isinstance(subscript, cst.Subscript)
            and subscript.value is attribute
            and isinstance(ctx.index.parent.get(subscript), cst.Del)
            and (ctx.tf.names.qualified(attribute) or dotted_name(attribute) or "").endswith("os.environ")
            and len(subscript.slice) == 1
            and isinstance(subscript.slice[0].slice, cst.Index)
            and _names_tf_config(subscript.slice[0].slice.value)
        ):
            found.append(attribute)
    return found


def _clearing_imports(ctx: RuleContext) -> list[cst.CSTNode]:
    """Module-level imports of project modules whose top level leaves TF_CONFIG deleted
    (``import setup`` where setup.py runs ``os.environ.pop("TF_CONFIG", None)``)."""
    return [node for node, refs in _project_imports(ctx) if ctx.tf.project.clears_tf_config(refs)]


def _project_imports(ctx: RuleContext) -> list[tuple[cst.CSTNode, list[ImportRef]]]:
    """Module-level imports with the modules they name."""
    if "import" not in ctx.text:
        return []
    found: list[tuple[cst.CSTNode, list[ImportRef]]] = []
    for node in ctx.index.imports:
        if ctx.index.enclosing_function(node) is not None:
            continue
        if isinstance(node, cst.Import):
            refs = [ImportRef(0, module) for module, _ in imported_modules(node)]
        else:
            module = dotted_name(node.module) if node.module is not None else ""
            level = len(node.relative)
            refs = [ImportRef(level, module or "", name) for _, name in imported_names(node)]
            refs = refs or [ImportRef(level, module or "")]
        found.append((node, refs))
    return found


def _names_a_cluster(ctx: RuleContext) -> bool:
    """The file names TF_CONFIG or a cluster resolver (in code or comments): it knows it runs in a
    cluster. Without either, the failure needs a launcher that gives it a cluster TF_CONFIG."""
    return any(word in ctx.text for word in ("TF_CONFIG", "ClusterResolver", "cluster_resolver"))


def _names_tf_config(key: cst.BaseExpression) -> bool:
    return isinstance(key, cst.SimpleString) and key.evaluated_value == "TF_CONFIG"
