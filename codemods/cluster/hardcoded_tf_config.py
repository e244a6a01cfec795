"""TFD601: TF_CONFIG written into the script from literals."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, TypeVar

import libcst as cst

from fixer.clusterspec import is_no_cluster, is_template, launcher_problem
from fixer.facts import NOT_A_TEST
from fixer.rule import Rule
from fixer.test_files import is_test_file
from fixer.tf.module_readers import imports_only_the_standard_library
from fixer.tf.pipeline_components import component_functions, in_component
from fixer.tf.processes import shell_start_lines, starts_processes_after
from fixer.tf.programs import Programs
from fixer.tf.restart_cells import restart_above, restart_below
from fixer.tf.script_launchers import caller_launches
from fixer.tf.tf_config_readers import set_after_every_reader
from fixer.tf.tf_config_sources import (
    TfConfigSetter,
    tf_config_deletions,
    tf_config_of,
    tf_config_pops,
    tf_config_setters,
)
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from fixer.context import RuleContext
    from fixer.tf.script_launchers import Launcher, ScriptLaunchers

# What `_recomma` keeps: the elements of a dict display or the arguments of a call.
_Listed = TypeVar("_Listed", cst.BaseDictElement, cst.Arg)


class HardcodedTfConfig(Rule):
    """
    ## What it does
    Finds `TF_CONFIG` set from literals inside the training script: `os.environ["TF_CONFIG"] =`
    a string, a triple-quoted string, an f-string of literals, `json.dumps` of a literal dict or of
    a name bound to one, and the same through `os.environ.update`, `os.environ.setdefault` and
    `os.putenv`; `dict(cluster=..., task=...)` counts as a literal.

    ## Why is this bad in distributed training?
    When every worker runs the same script, every worker claims the same task index. Measured on
    TensorFlow 2.21 with two processes: the second fails with `UnknownError: Could not start gRPC
    server` (the port is taken) and the first hangs forever waiting for its peer, ignoring
    SIGTERM. Addresses baked into the code also break as soon as the job moves to other hosts; a
    copy of the script per task (`worker0.py`, `worker1.py`, each with its own index) avoids the
    clash but still has to be edited by hand for every cluster, which is what a launcher does.

    ## When it is reported (the policy)
    - Addresses that are not addresses are no cluster anybody runs: a TF_CONFIG whose every
      address is a template slot (`"host1:port"`, `"IP1:PORT1"`, `"<worker-ip>:port"`) or a host
      of a documentation domain (`"worker0.example.com:2222"`, RFC 2606) is not reported here
      (TFD603 reports such a spec once, and only in a script a launcher starts).
    - A configuration module of a scaffold or template (it imports only the standard library, so
      it builds no strategy and starts no worker) that no file of the project imports, runs
      (`%run`, `exec`) or starts is not reported: its TF_CONFIG reaches no cluster. Known only
      when a folder is checked (the project root); a file checked alone is reported. A cached
      result is checked again when any Python file or notebook of the root changes, so a new
      importer brings the finding back on the next run.
    - Code that nothing calls (a method of a template class no caller reaches) is reported as
      written: which code runs is a whole-program question a linter cannot answer for importable
      code, and whoever migrates a repository wants every instance.

    ## Fix safety
    Unsafe. The setting is removed: only its key when an `os.environ.update(...)` also sets other
    variables, else the statement, with the dict it was built from when nothing else uses it,
    and `pass` when that empties a block. Earlier statements in the same function that delete
    TF_CONFIG to make room for it (`os.environ.pop("TF_CONFIG", None)`,
    `del os.environ["TF_CONFIG"]`, alone or under `if "TF_CONFIG" in os.environ:`,
    `os.unsetenv`) go too, since they would erase the launcher's TF_CONFIG; a pop whose value is
    kept becomes `os.environ.get(...)`. Implicitly concatenated string literals count as one
    literal. A comment takes the setting's place and keeps the removed cluster, so no address is
    lost. `MultiWorkerMirroredStrategy()` already reads TF_CONFIG from the environment (through
    `TFConfigClusterResolver`, its default), so the strategy is left as it is. The script then
    needs TF_CONFIG from its environment: `distfix fix --write --emit-launcher DIR` writes one
    launch script per task holding the removed spec with that task's index (with `--launcher ray`,
    a Ray job entry point; with `--launcher tfjob`, a Kubeflow TFJob manifest). A TF_CONFIG whose
    cluster no launcher could carry (not valid JSON, no `cluster`, a TFD603 defect in the
    cluster) is reported but kept, so nothing is lost. The rewrite is offered only where something
    gives each task its TF_CONFIG: a launcher of the project that sets it (below), the launchers
    `--emit-launcher` writes in the same run, or `distfix validate`'s local cluster. Elsewhere (no
    launcher found, a launcher that starts the script with no environment, a file checked
    alone, a notebook) its own TF_CONFIG is all each task has: without it
    MultiWorkerMirroredStrategy runs one local worker (`benchmarks/probe_empty_tf_config.py`,
    TF_CONFIG unset), so the finding advises (it names the launcher that gives none) and
    removes nothing.

    ## Known limits
    - A TF_CONFIG built from command-line flags or environment variables is not reported, nor is a
      literal dict that is later changed from them (`cfg["task"]["index"] = flags.task_index`,
      `cfg.update(...)`, or handed to a function that may fill it).
    - A dict name is followed to the binding the write sees, so re-binding it afterwards (the
      tutorial's `tf_config = json.loads(os.environ[...])`) does not hide it; when the binding
      depends on a branch it is not followed.
    - `os` and `json` used without an import (a notebook cell, a snippet) are the standard modules,
      unless the file binds those names some other way.
    - A TF_CONFIG deleted again in the same code before any strategy or cluster resolver is built (a
      notebook showing the format) is not reported.
    - A script that sets it at its top level after every strategy and resolver it makes, and after
      it runs nothing that could read it (a project module that may make one, a library call other
      than TensorFlow's, Keras's or NumPy's non-distribution APIs, an import, a process start), is
      not reported: the value is left to nothing (a `.py` transcription of a tutorial notebook whose
      workers it never starts; fixer/tf/tf_config_readers.py). Unknown counts as a reader.
      A notebook likewise, when a later cell asks for a kernel restart and nothing from the
      setting to that cell can read it (a function of an earlier cell counts when that stretch
      names it): the restarted kernel is a new process without this kernel's `os.environ`
      (`benchmarks/probe_noise22_premises.py`). Without a restart below it, a notebook's setting
      is reported: a cell run again may make a strategy from it.
    - A cluster whose every address is a template slot (`"<worker-ip>:port"`, `"IP1:PORT1"`) is
      no cluster anybody runs: not reported here; TFD603 reports the whole spec once, and only
      in a script a launcher of the project starts (its "When it is reported").
    - An empty TF_CONFIG object (`"{}"`, `json.dumps({})`) is not reported: it fixes no address or
      index. TensorFlow 2.21 reads it as no cluster and runs one local worker
      (`benchmarks/probe_empty_tf_config.py`); launchers set it on purpose after starting workers.
    - A TF_CONFIG set by a launcher is not reported: code that starts processes after setting it
      (`subprocess`, `multiprocessing`), or a notebook whose later cells start the workers
      (`!python main.py &`, a `%%bash` cell, `%run main.py`, which reads the kernel's environment):
      the workers read it. In a script, only a start in the same program counts: programs pasted
      one after another (each begins by importing again what the one above imported, or follows
      its `if __name__ == "__main__":` block) are separate scripts (`fixer/tf/programs.py`).
    - A TF_CONFIG set inside a function that the module makes a Kubeflow Pipelines component of
      (KFP v1 `func_to_container_op(f)` / `create_component_from_func(f)`, KFP v2
      `@dsl.component`) is not reported: each component runs that body as its own pod with a
      fixed role, so the body is the launcher for that pod.
    - In a script a `%%writefile` cell writes, it is reported without an edit: the cell is not the
      notebook's Python.
    - A TF_CONFIG whose cluster no launcher could carry (not valid JSON, no `cluster`, a TFD603
      defect in the cluster) is reported but kept, so nothing is lost.
    - Copies of one script or notebook per task in one folder, each setting the same cluster with
      its own task index, whose indices with this one's are `0..N-1` for the N tasks of that type
      (N >= 2), are not reported: run together by hand, they are the launch
      (`fixer/tf/task_copies.py`). Only when a folder is checked; an incomplete set, copies
      naming another cluster, or copies a launcher of the project starts, stay reported.
    - Launchers are looked for only when a folder is checked (its project root): shell scripts,
      HCL/Nomad jobs, YAML manifests, Makefiles, Dockerfiles, Procfiles, notebooks and Python files
      that start processes or submit jobs, naming the script by a path or by a file name no other
      script of the tree has (`fixer/tf/script_launchers.py`). A launcher that mentions TF_CONFIG
      anywhere, or is a TFJob, a SageMaker estimator with a `distribution` or a Vertex AI custom job,
      counts as giving it.

    ## Runtime evidence
    `distfix validate --workers 2` maps every address the script names to free 127.0.0.1 ports
    and keeps the task indices as written: the original fails check `runs` (`Could not start
    gRPC server`, then a hang that is killed), the fixed script forms the cluster.

    Measured on TensorFlow 2.21 with two worker processes on 127.0.0.1
    (`benchmarks/probe_cluster_specs.py`, output in `docs/probes.md`): given the same literal
    TF_CONFIG (index 0), one worker fails with `Could not start gRPC server` and the other
    hangs, still alive 15 s after SIGTERM; each worker given its own index forms the cluster.

    ## References
    - https://www.tensorflow.org/guide/distributed_training#TF_CONFIG
    - https://www.tensorflow.org/api_docs/python/tf/distribute/cluster_resolver/TFConfigClusterResolver
    """

    code = "TFD601"
    name = "hardcoded-tf-config"
    message = "TF_CONFIG is hard-coded in the script"
    fix_title = "Read TF_CONFIG from the launcher's environment"
    applicability = Applicability.UNSAFE
    triggers = ("TF_CONFIG",)
    facts = (NOT_A_TEST,)

    def check(self, ctx: RuleContext) -> None:
        if is_test_file(ctx.path, ctx.module):
            return  # a test's TF_CONFIG is a fixture: tying the test to that cluster is the point
        setters = tf_config_setters(ctx.tf)
        shell_starts = shell_start_lines(ctx.text)
        # A notebook is one program (one kernel); a script may paste several one after another.
        programs = None if ctx.path.endswith(".ipynb") or not setters else Programs(ctx.module, ctx.index)
        components = component_functions(ctx.index, ctx.tf.names, ctx.tf.semantic) if setters else set()
        inert: bool | None = None  # asked once, for the first literal cluster
        for setter in setters:
            if in_component(ctx.index, components, setter.statement):
                continue  # a KFP component's body is its own pod's program: this IS that pod's launcher
            line = ctx.range(setter.node).start.line
            if starts_processes_after(ctx.index, ctx.tf.names, setter.node, programs) or any(
                s > line for s in shell_starts
            ):
                continue  # a launcher: the TF_CONFIG it sets is what the workers it starts read
            config = tf_config_of(ctx.tf, setter)
            if not isinstance(config, str) or is_no_cluster(config) or _removed_unread(ctx, setter):
                continue  # `"{}"` fixes no address or index: it clears the cluster (one local worker)
            if _left_unread(ctx, setter):
                continue  # set after every strategy, resolver and launch of the script: nothing reads it
            if is_template(config):
                continue  # a template with slots for the addresses: TFD603 says so, once for the spec
            inert = _inert_and_unread(ctx) if inert is None else inert
            if inert:
                continue  # a scaffold's config module nothing imports or runs: its cluster reaches no strategy
            launchers = ctx.tf.launchers
            if launchers is not None and _task_copies_cover(launchers, config) and not launchers.launchers():
                continue  # one copy per task, run together by hand: these files are the launch configuration
            # Not "every worker claims the same task": one file per task (`worker0.py`,
            # `worker1.py`) each with its own index is common, and the result cache shares
            # findings between files of equal bytes, so the message cannot depend on the name.
            message = "TF_CONFIG is hard-coded: its addresses and task index are fixed in code"
            problem = launcher_problem(config)
            if problem is not None:
                # Removing it would lose a cluster that no launcher can be written from.
                first = problem.split("; ")[0]  # what is wrong; the remedy is in `explain`
                ctx.report(setter.node, message + f"; kept until fixed: {first}")
                continue
            spec = _summary(config)
            if spec:
                message += f" ({spec})"
            statement = setter.statement
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                ctx.report(setter.node, message + "; set it in the launcher instead")
                continue
            found = launchers.launchers() if launchers is not None and not ctx.path.endswith(".ipynb") else []
            if not caller_launches() and not any(launcher.with_tf_config for launcher in found):
                # No launcher gives it a TF_CONFIG: this one is all each task has, and removing it
                # makes every task train alone (one local worker).
                ctx.report(setter.node, message + _advice(found, launchers))
                continue
            edits = _removal(ctx, setter, _removed_cluster_note(ctx, setter.statement, config))
            if edits is None:
                ctx.report(setter.node, message + "; set it in the launcher instead")
                continue
            ctx.report(setter.node, message + "; the launcher sets it (see `distfix fix --emit-launcher`)", edits=edits)


def _inert_and_unread(ctx: RuleContext) -> bool:
    """A configuration module that imports only the standard library (so it builds no strategy and
    starts no worker) and that no file of the project imports, runs or starts: its TF_CONFIG
    reaches no cluster (fixer/tf/module_readers.py). Unknown (a file checked alone, a notebook):
    False."""
    # Imported here: the summaries' module reaches the engine, which imports the rules.
    from fixer.tf.project_imports import imports_of

    launchers = ctx.tf.launchers
    if launchers is None or ctx.path.endswith(".ipynb"):
        return False
    if not imports_only_the_standard_library(imports_of(ctx.index)):
        return False
    return not launchers.launchers() and not launchers.read_by_project()


def _left_unread(ctx: RuleContext, setter: TfConfigSetter) -> bool:
    """A script that no file of the project imports, runs or starts sets TF_CONFIG after every
    reader it has (fixer/tf/tf_config_readers.py): the value is left to nothing. In a notebook,
    only when a later cell asks for a kernel restart and nothing from the setter to that cell can
    read it: the new kernel starts from the server's environment, not this kernel's. Unknown (a
    file checked alone, a notebook with no restart below the setter): False."""
    launchers = ctx.tf.launchers
    if launchers is None:
        return False
    program: tuple[cst.CSTNode | None, cst.CSTNode | None] = (None, None)
    if ctx.path.endswith(".ipynb"):
        end = restart_below(ctx.tf, setter.statement)
        if end is None:
            return False  # the kernel lives on: a cell run again (or later) may make a strategy from it
        program = (restart_above(ctx.tf, setter.statement), end)
    if not set_after_every_reader(ctx.tf, setter, program):
        return False
    return not launchers.launchers() and not launchers.read_by_project()


def _advice(found: list[Launcher], launchers: ScriptLaunchers | None) -> str:
    """What to do when no launcher of the project gives the script a TF_CONFIG: name the one
    that starts it without it, or say how to get launchers (nothing is removed either way)."""
    if found and launchers is not None:
        where = os.path.relpath(found[0].path, launchers.root)
        return f"; `{where}` starts this file without TF_CONFIG: set it there first"
    return "; no launcher here sets it: write launchers with `fix --write --emit-launcher DIR`, then remove it"


def _task_copies_cover(launchers: ScriptLaunchers, config: str) -> bool:
    """This file is one of sibling files that set this cluster, each for its own task index, and
    together they run each task of its type."""
    try:
        data = json.loads(config)
        task_type, index = data["task"]["type"], data["task"]["index"]
    except (TypeError, KeyError, ValueError):
        return False
    if not isinstance(task_type, str) or not isinstance(index, int):
        return False
    return launchers.task_copies_cover(data.get("cluster"), task_type, index)


def _removed_cluster_note(ctx: RuleContext, statement: cst.CSTNode, config: str) -> str:
    """Comment lines that keep the removed cluster in the script, so no address is lost silently."""
    cluster = json.dumps(json.loads(config)["cluster"])
    indent = ctx.indentation(statement)
    return (
        f"{indent}# distfix TFD601: TF_CONFIG comes from each task's launcher now; "
        f"the cluster removed here was{ctx.newline}"
        f"{indent}# {cluster}{ctx.newline}"
    )


def _removal(ctx: RuleContext, setter: TfConfigSetter, note: str) -> list[Edit] | None:
    """Edits that take the setting out: only its key from an `os.environ.update(...)` that sets
    other variables too, else the statement (and the literal dict it used, if nothing else does);
    a block left empty gets `pass`. ``note`` (comment lines) goes where the setting was."""
    line_start = ctx.textmap.line_starts[ctx.range(setter.statement).start.line - 1]
    note_edit = Edit(line_start, line_start, note)
    if setter.element is not None:
        call = setter.node
        assert isinstance(call, cst.Call)
        if isinstance(setter.element, cst.DictElement):
            container = next(
                a.value for a in call.args if isinstance(a.value, cst.Dict) and setter.element in a.value.elements
            )
            others = [e for e in container.elements if e is not setter.element]
            if others or len(call.args) > 1:
                if not others:
                    return None  # `update({"TF_CONFIG": ...}, OTHER=...)`: rare, explain only
                kept = container.with_changes(elements=_recomma(container.elements, others))
                return [
                    note_edit,
                    ctx.replace(container, ctx.module.code_for_node(kept)),
                    *_remove_statements(ctx, _clearers(ctx, setter)),
                ]
        else:
            other_args = [a for a in call.args if a is not setter.element]
            if other_args:
                new_call = call.with_changes(args=_recomma(call.args, other_args))
                return [
                    note_edit,
                    ctx.replace(call, ctx.module.code_for_node(new_call)),
                    *_remove_statements(ctx, _clearers(ctx, setter)),
                ]
    removed = [setter.statement, *_literal_binding(ctx, setter.value), *_clearers(ctx, setter)]
    return _remove_statements(ctx, removed, {setter.statement: note})


def _remove_statements(
    ctx: RuleContext, statements: list[cst.CSTNode], notes: dict[cst.CSTNode, str] | None = None
) -> list[Edit]:
    """Edits removing whole statements; a block they would leave empty gets `pass`. A
    ``os.environ.pop(...)`` call among them whose value is used becomes ``os.environ.get(...)``.
    ``notes`` maps a statement to the comment lines that take its place."""
    notes = notes or {}
    edits = []
    for node in statements:
        if isinstance(node, cst.Call):
            edits.append(ctx.replace(cst.ensure_type(node.func, cst.Attribute).attr, "get"))
    statements = [s for s in statements if not isinstance(s, cst.Call)]
    for statement in statements:
        block = ctx.index.parent.get(statement)
        body = list(getattr(block, "body", ()))
        if isinstance(block, cst.IndentedBlock) and all(s in statements for s in body) and statement is body[-1]:
            start = ctx.textmap.line_starts[ctx.range(statement).start.line - 1]
            end = ctx.textmap.line_end(ctx.range(statement).end.line)
            newline = ctx.newline if ctx.text[:end].endswith(("\n", "\r")) else ""
            pass_line = f"{ctx.indentation(statement)}pass  # TF_CONFIG comes from the launcher{newline}"
            edits.append(Edit(start, end, notes.get(statement, "") + pass_line))
        else:
            edit = _remove_statement(ctx, statement)
            edits.append(Edit(edit.start, edit.end, notes.get(statement, "")))
    return edits


def _clearers(ctx: RuleContext, setter: TfConfigSetter) -> list[cst.CSTNode]:
    """Statements before ``setter`` that delete TF_CONFIG (``os.environ.pop("TF_CONFIG", None)``,
    ``del os.environ["TF_CONFIG"]``, ``os.unsetenv("TF_CONFIG")``, also alone under
    ``if "TF_CONFIG" in os.environ:``), in the same function: they only made room for the hard-coded
    value, and once it is gone they would erase the TF_CONFIG the launcher gives."""
    owner = ctx.index.enclosing_function(setter.statement)
    found: list[cst.CSTNode] = []
    for node in tf_config_pops(ctx.tf) + tf_config_deletions(ctx.tf):
        statement = ctx.index.statement_of(node)
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if not ctx.index.before(statement, setter.statement) or ctx.index.enclosing_function(statement) is not owner:
            continue
        if not ((isinstance(small, cst.Expr) and small.value is node) or small is node):
            # The popped value is used (`saved = os.environ.pop(...)`): read it without deleting.
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "pop":
                found.append(node)
            continue
        block = ctx.index.parent.get(statement)
        guard = ctx.index.parent.get(block) if isinstance(block, cst.IndentedBlock) else None
        if (
            isinstance(guard, cst.If)
            and guard.orelse is None
            and isinstance(block, cst.IndentedBlock)
            and list(block.body) == [statement]
            and "TF_CONFIG" in ctx.source(guard.test)
            and ctx.index.enclosing_function(guard) is owner
        ):
            statement = guard
        found.append(statement)
    return found


def _removed_unread(ctx: RuleContext, setter: TfConfigSetter) -> bool:
    """TF_CONFIG is deleted again (``del os.environ["TF_CONFIG"]``, ``os.environ.pop(...)``,
    ``os.unsetenv``) in the same code before any strategy or cluster resolver is built: a
    notebook showing the format, not a cluster anything joins."""
    owner = ctx.index.enclosing_function(setter.statement)
    removals = [
        node
        for node in tf_config_deletions(ctx.tf) + tf_config_pops(ctx.tf)
        if ctx.index.before(setter.statement, node) and ctx.index.enclosing_function(node) is owner
    ]
    if not removals:
        return False
    first = min(removals, key=lambda node: ctx.index.order[node])
    readers = [call for call, _ in ctx.tf.strategies.constructions] + [
        call for call in ctx.index.calls if (ctx.tf.names.callee(call) or "").endswith("ClusterResolver")
    ]
    return not any(ctx.index.before(setter.statement, r) and ctx.index.before(r, first) for r in readers)


def _recomma(original: Sequence[_Listed], kept: Iterable[_Listed]) -> list[_Listed]:
    """``kept`` elements/arguments with the last one's comma as the original last one had it."""
    kept = list(kept)
    if kept and original and kept[-1] is not original[-1]:
        kept[-1] = kept[-1].with_changes(comma=original[-1].comma)
    return kept


def _summary(config: str) -> str:
    try:
        data = json.loads(config)
    except (json.JSONDecodeError, TypeError):
        return ""
    cluster = data.get("cluster", {}) if isinstance(data, dict) else {}
    if not isinstance(cluster, dict):
        return ""
    return ", ".join(f"{len(v)} {k}" for k, v in cluster.items() if isinstance(v, list))


def _remove_statement(ctx: RuleContext, statement: cst.CSTNode) -> Edit:
    start = ctx.textmap.line_starts[ctx.range(statement).start.line - 1]
    end = ctx.textmap.line_end(ctx.range(statement).end.line)
    return Edit(start, end, "")


def _literal_binding(ctx: RuleContext, value: cst.BaseExpression) -> list[cst.BaseStatement]:
    """The `cfg = {...}` statement when the TF_CONFIG was `json.dumps(cfg)` and cfg is used nowhere else."""
    if not (isinstance(value, cst.Call) and value.args and isinstance(value.args[0].value, cst.Name)):
        return []
    use = value.args[0].value
    binding = ctx.tf.semantic.only_binding(use)
    # Used nowhere else: the file names `cfg` twice, where it is bound and in `json.dumps(cfg)`.
    if binding is None or not isinstance(binding.statement, cst.Assign) or len(ctx.index.names.get(use.value, [])) != 2:
        return []
    statement = ctx.index.statement_of(binding.statement)
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return []
    return [statement]
