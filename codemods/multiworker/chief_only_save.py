"""TFD503: a save under MultiWorkerMirroredStrategy that only the chief runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.edits import reindented_lines
from fixer.fixes.checkpoint_edits import moved_save, rewrite_save
from fixer.rule import Rule
from fixer.tf.checkpoints import (
    ChiefGuard,
    Save,
    chief_guard,
    chief_test,
    multi_worker_at,
    not_chief_test,
    save_calls,
)
from fixer.tf.default_values import default_value, flag_text
from fixer.types import Applicability, Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext


class ChiefOnlySave(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds model and checkpoint saves (TFD502's list, plus
    `CheckpointManager.save()`) that only the chief runs, and Keras saving callbacks
    (`ModelCheckpoint`, `BackupAndRestore`, or a subclass) that only the chief gets.

    ## Why is this bad in distributed training?
    Saving can take part in collectives (for example for variables synchronised on read): the
    TensorFlow guide warns that a save run by the chief alone can deadlock the job, the chief
    waiting for peers that never join. In the measured TensorFlow 2.21 case (a small dense model)
    the chief-only `Checkpoint.write` happened to work, so the hang depends on the model: the
    safe pattern is the one the guide prescribes. A chief-only `ModelCheckpoint` does fail
    (measured with tf-keras 2.21 and two workers in `fit`): the chief's save runs collectives that
    meet the other workers' next training all-reduce, and both workers raise `Collective instance
    ... expected type ... but got type ...` or `Shape mismatch in the collective instance`
    (`benchmarks/probe_chief_only_checkpoint_format.py`): a `.keras` checkpoint fails, and so does
    an HDF5 one of a model with BatchNormalization; an HDF5 checkpoint of a model of plain layers
    trains and saves. Given to every worker, the same callbacks train and save (tf-keras writes
    the chief's copy to the path and the others' to temporary directories it deletes). A save
    the chief reaches alone after the others `sys.exit()` fails under tf-keras: the SavedModel's
    collectives find no peer (`UnavailableError`, `benchmarks/probe_chief_saves_after_exit.py`).

    ## Fix safety
    Unsafe. Every worker then saves: the chief to the real path, the others to a temporary copy
    they delete (TFD502's helpers, none below TensorFlow 2.3); a manager gets a per-worker
    directory. When the guard holds only the save, the guard goes; the other conditions of an
    `and` stay
    (`if task_id == 0 and epoch % 5 == 0:` becomes `if epoch % 5 == 0:`). When the save is the
    first or last statement under a guard with more in it, it moves just before or after the
    guard, which keeps the rest chief-only. An `elif`, an early return, a chief-only caller or a
    save in the middle of the guarded block gets advice. A chief-only saving callback is given to
    every worker: `[cb] if is_chief else []` becomes `[cb]`, and an `append` under a chief test
    leaves the guard the same way a save does; other workers given other callbacks get advice.

    ## Known limits
    - "Only the chief" is read from: a chief test (`if is_chief:`, `if _is_chief(...)`,
      `if task_id == 0:`, `if 0 == tf_config["task"]["index"]:`, `if task_type == "chief":`,
      `task_type in (None, "chief")`, also as one part of an `and`), an early
      `if not is_chief: return`, or a function that only the chief calls.
    - A chief-only `ModelCheckpoint` writing HDF5 (a path ending in `.h5`/`.hdf5`, or
      `save_format="h5"`) is not reported when the file names no batch normalisation and builds
      no model elsewhere (`keras.applications`, a hub layer, `load_model`): measured under tf-keras
      with a plain `Dense` model (SGD or Adam), it trains and saves; with BatchNormalization it
      breaks the collectives, so the file's text is read for it. Keras 3 `fit` fails under this
      strategy whatever the callbacks (TFD504). A chief-only `save`/`save_weights` of a model
      (`fit` or `compile` is called on it) writing HDF5 is the callback's own save and is left
      the same way. The suffix is read through a name assigned once, a module constant, a
      parameter's default that no call in the file overrides, and a flag: the one value the
      project's launchers of the script pass (`--weights=w.h5` in a TFJob's `args:`), or its
      `default=` when none passes it; outside a project root (launchers unknown) a flag's
      suffix is not read.
    - A strategy picked by a value is judged on every arm the code offers, unless a flag's
      string default picks another arm and no launcher passes the multi-worker value
      (fixer/tf/flag_arms.py); a default read from a dictionary of hyper-parameters is not
      followed, so a script whose default is one device is still reported for its
      multi-worker arm, where the save fails as measured.
    - Keras 3 saved a `.keras` file alone after the others exited (Dense and BatchNormalization
      models, no `fit`: Keras 3 `fit` fails under this strategy); the finding is not told apart
      by Keras.
    - A callback only the chief gets is found as `[ModelCheckpoint(...)] if task_id == 0 else []`,
      or `if rank == 0: callbacks.append(ModelCheckpoint(...))` (a Horovod habit).

    ## Runtime evidence
    A hang, when it happens, shows in `distfix validate --workers 2` as check `runs` killed at
    the timeout.

    Measured on TensorFlow 2.21 with two workers on 127.0.0.1
    (`benchmarks/probe_chief_only_save.py`, output in `docs/probes.md`): a chief-only
    `Checkpoint.write` of a small dense model went through under both Kerases; under tf-keras a
    chief-only `ModelCheckpoint` made `fit` fail on both workers (`UnavailableError` or, in
    other runs, `InternalError` from `CollectiveReduceV2`; `Collective instance 140 expected type
    0 and data_type 1 but got type 0 and data_type 9`, the two types in either order), and the
    same callback given to every worker trained and saved the chief's file.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_keras#model_saving_and_loading
    """

    code = "TFD503"
    name = "chief-only-save"
    message = "only the chief saves"
    fix_title = "Save on every worker with per-worker paths"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        saves = save_calls(ctx.tf)
        for save in saves:
            if save.kind == "manager":
                continue
            guard = chief_guard(ctx.tf, save.call)
            if guard is None or not multi_worker_at(ctx.tf, save.call):
                continue
            if guard.how == "if" and _others_save(ctx, cst.ensure_type(guard.node, cst.If), saves):
                continue
            if _model_saves_hdf5(ctx, save) and not _read_synced(ctx):
                continue  # the save ModelCheckpoint makes: measured to train and save (docs)
            where = {
                "if": "only the chief saves",
                "exit": "only the chief reaches this save (the others return or exit before it)",
                "caller": "only the chief saves (its function is called under a chief test)",
            }[guard.how]
            message = (
                f"{where}: saving can run collectives, so the chief may wait forever or fail; every worker should save "
                "(the others to a temporary copy)"
            )
            if guard.how == "if":
                ctx.report(cst.ensure_type(guard.node, cst.If).test, message, edits=self._edits(ctx, guard, save))
            else:
                ctx.report(save.call, message)
        self._chief_only_callbacks(ctx)

    def _chief_only_callbacks(self, ctx: RuleContext) -> None:
        """A Keras saving callback (`ModelCheckpoint`, `BackupAndRestore`) that only the chief
        gives to `fit`: ``[ModelCheckpoint(...)] if task_id == 0 else []`` or
        ``if rank == 0: callbacks.append(ModelCheckpoint(...))``."""
        classes = _saving_callback_classes(ctx)
        for call in ctx.index.calls:
            callee = ctx.tf.names.callee(call) or ""
            local = call.func.value if isinstance(call.func, cst.Name) and not callee else None
            if callee not in _SAVING_CALLBACKS and local not in classes:
                continue
            name = (callee or local or "").rsplit(".", 1)[-1]
            if callee == "keras.callbacks.ModelCheckpoint" and _writes_hdf5(ctx, call) and not _read_synced(ctx):
                continue  # measured: a chief-only HDF5 checkpoint of such a model trains and saves (docs)
            message = (
                f"only the chief gets this `{name}` callback: its save runs collectives the other workers never "
                "join; give it to every worker (tf-keras keeps only the chief's copy)"
            )
            choice = _chief_choice(ctx, call)
            if choice is not None:
                conditional, kept, other = choice
                edits = [ctx.replace(conditional, ctx.source(kept))] if _empty(other) else None
                ctx.report(conditional.test, message, edits=edits)
                continue
            guard = chief_guard(ctx.tf, call)
            if guard is None:
                continue
            if guard.how != "if":
                ctx.report(call, message)
                continue
            ctx.report(cst.ensure_type(guard.node, cst.If).test, message, edits=self._guard_edits(ctx, guard, call))

    def _guard_edits(self, ctx: RuleContext, guard: ChiefGuard, call: cst.Call) -> list[Edit] | None:
        """Take the statement holding ``call`` out of the chief-only `if` (as for a save)."""
        node = guard.node
        assert isinstance(node, cst.If)
        statement = ctx.index.statement_of(call)
        body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
        if isinstance(ctx.index.parent.get(node), cst.If) or statement not in body or node.orelse is not None:
            return None
        if not isinstance(statement, cst.SimpleStatementLine):
            return None
        text = reindented_lines(ctx, statement, ctx.indentation(node))
        if body == [statement]:
            if guard.others:
                return [ctx.replace(node.test, " and ".join(ctx.source(o) for o in guard.others))]
            start = ctx.textmap.line_starts[ctx.range(node).start.line - 1]
            end = ctx.textmap.line_end(ctx.range(node).end.line)
            return [Edit(start, end, text)]
        if guard.others or statement not in (body[0], body[-1]):
            return None
        return _lifted(ctx, node, statement, body, text)

    def _edits(self, ctx: RuleContext, guard: ChiefGuard, save: Save) -> list[Edit] | None:
        node = guard.node
        assert isinstance(node, cst.If)
        statement = ctx.index.statement_of(save.call)
        body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
        if isinstance(ctx.index.parent.get(node), cst.If) or statement not in body:
            return None  # an `elif`, or a save nested deeper: advice
        if body == [statement] and node.orelse is None:
            if guard.others:
                rewrite = rewrite_save(ctx, save)
                if rewrite is None:
                    return None
                kept = " and ".join(ctx.source(o) for o in guard.others)
                return [ctx.replace(node.test, kept), *rewrite]
            moved = moved_save(ctx, save, ctx.indentation(node))
            if moved is None:
                return None
            text, edits = moved
            start = ctx.textmap.line_starts[ctx.range(node).start.line - 1]
            end = ctx.textmap.line_end(ctx.range(node).end.line)
            return [Edit(start, end, text), *edits]
        if len(body) < 2 or guard.others or statement not in (body[0], body[-1]):
            return None
        moved = moved_save(ctx, save, ctx.indentation(node))
        if moved is None:
            return None
        text, edits = moved
        return [*_lifted(ctx, node, statement, body, text), *edits]


def _others_save(ctx: RuleContext, node: cst.If, saves: list[Save]) -> bool:
    """The `else:` of the chief test saves too: every worker saves (the others, usually, to a
    temporary copy), which is the pattern the guide prescribes, not a chief-only save."""
    orelse = node.orelse
    return orelse is not None and any(
        save.kind != "manager" and ctx.index.is_within(save.call, orelse) for save in saves
    )


def _lifted(
    ctx: RuleContext, node: cst.If, statement: cst.BaseStatement, body: list[cst.BaseStatement], text: str
) -> list[Edit]:
    """Edits taking ``statement``, the first or last of the `if` block's ``body``, out of it:
    ``text`` (the statement at the `if`'s indentation) goes just above or just below the `if`."""
    start = ctx.textmap.line_starts[ctx.range(statement).start.line - 1]
    removed = Edit(start, ctx.textmap.line_end(ctx.range(statement).end.line), "")
    if statement is body[0]:
        at = ctx.textmap.line_starts[ctx.range(node).start.line - 1]
    else:
        at = ctx.textmap.line_end(ctx.range(node).end.line)
        if not ctx.text[:at].endswith(("\n", "\r")):
            text = ctx.newline + text
    return [removed, Edit(at, at, text)]


def _model_saves_hdf5(ctx: RuleContext, save: Save) -> bool:
    """A Keras model's `save`/`save_weights` (``fit`` or ``compile`` is called on its receiver)
    writing HDF5: `save_format="h5"`, or a path known to end in `.h5` / `.hdf5` (as for
    `ModelCheckpoint`, whose epoch-end save is this call)."""
    func = save.call.func
    if save.kind != "save" or not isinstance(func, cst.Attribute) or func.attr.value not in ("save", "save_weights"):
        return False
    receiver = ctx.source(func.value)
    trained = any(
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("fit", "compile")
        and ctx.source(call.func.value) == receiver
        for call in ctx.index.calls
    )
    return trained and _hdf5_call(ctx, save.call, save.path)


def _writes_hdf5(ctx: RuleContext, call: cst.Call) -> bool:
    """The `ModelCheckpoint(...)` writes an HDF5 file: `save_format="h5"`, or a file path whose
    last literal part ends in `.h5` / `.hdf5` (a string, an f-string, a `+` concatenation,
    `os.path.join(...)`, or a name bound once to one of those)."""
    path = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "filepath"), None)
    return _hdf5_call(ctx, call, path)


def _hdf5_call(ctx: RuleContext, call: cst.Call, path: cst.BaseExpression | None) -> bool:
    """``call`` (a save or `ModelCheckpoint`) writes HDF5: its `save_format` says so, or, without
    one, ``path`` is known to end in `.h5` / `.hdf5`."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "save_format":
            return _literal_tail(ctx, arg.value).lower() in ("h5", "hdf5")
    return path is not None and _literal_tail(ctx, path).lower().endswith((".h5", ".hdf5"))


# What may give the model weights synchronised on read (BatchNormalization's moving statistics),
# whose save runs a collective: a batch-normalisation layer, or a model built elsewhere.
_READ_SYNCED = ("BatchNorm", "applications", "hub.", "load_model", "from_config", "model_from_")


def _read_synced(ctx: RuleContext) -> bool:
    """The file's model may hold weights synchronised on read: an HDF5 save of them by the chief
    alone meets the other workers' all-reduce (measured with BatchNormalization)."""
    return any(word in ctx.text for word in _READ_SYNCED)


def _literal_tail(ctx: RuleContext, node: cst.BaseExpression, depth: int = 0) -> str:
    """The text a string expression is known to end with ("" when unknown)."""
    if depth > 3:
        return ""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else ""
    if isinstance(node, cst.ConcatenatedString):
        return _literal_tail(ctx, node.right, depth + 1)
    if isinstance(node, cst.FormattedString):
        last = node.parts[-1] if node.parts else None
        return last.value if isinstance(last, cst.FormattedStringText) else ""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _literal_tail(ctx, node.right, depth + 1)
    if isinstance(node, cst.Call) and (ctx.tf.names.callee(node) or "") == "os.path.join" and node.args:
        return _literal_tail(ctx, node.args[-1].value, depth + 1)
    if isinstance(node, cst.Attribute):
        return flag_text(ctx.tf, node) or ""  # what the launchers pass, or the flag's default
    if isinstance(node, cst.Name):
        # A module constant or a name assigned once; else a parameter's default no call overrides.
        held = ctx.tf.semantic.value_of(node)
        held = held if held is not None else default_value(ctx.tf, node)
        return _literal_tail(ctx, held, depth + 1) if held is not None else ""
    return ""


_SAVING_CALLBACKS = frozenset(
    {
        "keras.callbacks.ModelCheckpoint",
        "keras.callbacks.BackupAndRestore",
        "keras.callbacks.experimental.BackupAndRestore",
    }
)


def _saving_callback_classes(ctx: RuleContext) -> set[str]:
    """Classes of the module that subclass a saving callback."""
    return {
        cls.name.value
        for cls in ctx.index.classes
        if any((ctx.tf.names.qualified(base.value) or "") in _SAVING_CALLBACKS for base in cls.bases)
    }


def _chief_choice(ctx: RuleContext, call: cst.Call) -> tuple[cst.IfExp, cst.BaseExpression, cst.BaseExpression] | None:
    """``[cb] if is_chief else []`` (or ``[] if not is_chief else [cb]``) holding ``call`` in the
    branch only the chief takes: the conditional, that branch and the other one."""
    child: cst.CSTNode = call
    for ancestor in ctx.index.ancestors(call):
        if isinstance(ancestor, (cst.BaseStatement, cst.Lambda, cst.FunctionDef)):
            return None
        if isinstance(ancestor, cst.IfExp):
            if child is ancestor.body and chief_test(ancestor.test, ctx.tf):
                return ancestor, ancestor.body, ancestor.orelse
            if child is ancestor.orelse and not_chief_test(ancestor.test, ctx.tf):
                return ancestor, ancestor.orelse, ancestor.body
        child = ancestor
    return None


def _empty(node: cst.BaseExpression) -> bool:
    """``[]``, ``()`` or ``None``: nothing given to the other workers."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return not node.elements
    return isinstance(node, cst.Name) and node.value == "None"
