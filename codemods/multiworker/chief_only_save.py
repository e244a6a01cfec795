"""TFD503: a save under MultiWorkerMirroredStrategy that only the chief runs."""

from __future__ import annotations

import libcst as cst

from fixer.tf.checkpoints import (
    ChiefGuard,
    Save,
    chief_guard,
    chief_test,
    moved_save,
    not_chief_test,
    rewrite_save,
    save_calls,
)
from fixer.context import RuleContext
from fixer.edits import reindented_lines
from fixer.example_programs import MULTI_WORKER_MODEL as _HEADER
from fixer.example_programs import with_worker_path_helpers as _fixed
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability, Edit


_FIT = """
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
"""


class ChiefOnlySave(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds model and checkpoint saves (TFD502's list, plus
    `CheckpointManager.save()`) that only the chief runs: under a chief test (`if is_chief:`,
    `if _is_chief(...)`, `if task_id == 0:`, `if 0 == tf_config["task"]["index"]:`,
    `if task_type == "chief":`, `task_type in (None, "chief")`, also as one part of an `and`),
    after an early `if not is_chief: return`, or in a function that only the chief calls. Also a
    Keras saving callback (`ModelCheckpoint`, `BackupAndRestore`, or a subclass) that only the
    chief gets: `[ModelCheckpoint(...)] if task_id == 0 else []`, or
    `if rank == 0: callbacks.append(ModelCheckpoint(...))` (a Horovod habit).

    ## Why is this bad in distributed training?
    Saving can take part in collectives (for example for variables synchronised on read): the
    TensorFlow guide warns that a save run by the chief alone can deadlock the job, the chief
    waiting for peers that never join. In the measured TensorFlow 2.21 case (a small dense model)
    the chief-only `Checkpoint.write` happened to work, so the hang depends on the model: the
    safe pattern is the one the guide prescribes. A chief-only `ModelCheckpoint` does fail
    (measured with tf-keras 2.21 and two workers in `fit`): the chief's save runs collectives that
    meet the other workers' next training all-reduce, and both workers raise `Collective instance
    ... expected type ... but got type ...` or `Shape mismatch in the collective instance`. It
    failed for `.keras`, SavedModel and (with BatchNormalization, Adam and a metric) `.h5`
    checkpoints; only an `.h5` save of a plain `Dense` model got through. Given to every worker,
    the same callbacks train and save (tf-keras writes the chief's copy to the path and the
    others' to temporary directories it deletes).

    ## Fix safety
    Unsafe. Every worker then saves: the chief to the real path, the others to a temporary copy
    they delete (TFD502's helpers); a manager gets a per-worker directory. When the guard holds
    only the save, the guard goes; the other conditions of an `and` stay
    (`if task_id == 0 and epoch % 5 == 0:` becomes `if epoch % 5 == 0:`). When the save is the
    first or last statement under a guard with more in it, it moves just before or after the
    guard, which keeps the rest chief-only. An `elif`, an early return, a chief-only caller or a
    save in the middle of the guarded block gets advice. A chief-only saving callback is given to
    every worker: `[cb] if is_chief else []` becomes `[cb]`, and an `append` under a chief test
    leaves the guard the same way a save does; other workers given other callbacks get advice.

    ## Runtime evidence
    A hang, when it happens, shows in `distfix validate --workers 2` as check `runs` killed at
    the timeout.

    ## References
    - https://www.tensorflow.org/tutorials/distribute/multi_worker_with_keras#model_saving_and_loading
    """

    code = "TFD503"
    name = "chief-only-save"
    message = "only the chief saves"
    fix_title = "Save on every worker with per-worker paths"
    applicability = Applicability.UNSAFE
    triggers = ("MultiWorkerMirroredStrategy",)

    examples = (
        Invalid(
            _HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    model.save("/models/final.keras")\n',
            after=_fixed('model.save(_worker_path("/models/final.keras", strategy))\n_remove_worker_copy("/models/final.keras", strategy)\n'),
            note="task id guard",
        ),
        Invalid(
            _HEADER + 'is_chief = strategy.cluster_resolver.task_id == 0\nif is_chief:\n    model.save_weights("/w.h5")\n',
            after=_fixed('is_chief = strategy.cluster_resolver.task_id == 0\nmodel.save_weights(_worker_path("/w.h5", strategy))\n_remove_worker_copy("/w.h5", strategy)\n'),
            note="is_chief flag",
        ),
        Invalid(
            _HEADER + 'checkpoint = tf.train.Checkpoint(model=model)\nif strategy.cluster_resolver.task_type == "chief":\n    checkpoint.write("/ckpt/model")\n',
            after=_fixed('checkpoint = tf.train.Checkpoint(model=model)\ncheckpoint.write(_worker_path("/ckpt/model", strategy))\n_remove_worker_copy("/ckpt/model", strategy)\n'),
            note="chief task type",
        ),
        Invalid(
            _HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    model.save("/m.keras")\nelse:\n    print("not saving")\n',
            after=None,
            note="guard with else: advice",
        ),
        Invalid(
            _HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    model.save("/m.keras")\n    print("saved")\n',
            after=_fixed(
                'model.save(_worker_path("/m.keras", strategy))\n_remove_worker_copy("/m.keras", strategy)\n'
                'if strategy.cluster_resolver.task_id == 0:\n    print("saved")\n'
            ),
            note="save first under the guard: moved before it",
        ),
        Invalid(
            _HEADER + 'for epoch in range(2):\n    if strategy.cluster_resolver.task_id == 0:\n        model.save(f"/m{epoch}.keras")\n',
            after=_fixed('for epoch in range(2):\n    model.save(_worker_path(f"/m{epoch}.keras", strategy))\n    _remove_worker_copy(f"/m{epoch}.keras", strategy)\n'),
            note="in a loop",
        ),
        Invalid(
            _HEADER + 'task_index = strategy.cluster_resolver.task_id\nif task_index == 0:\n    model.save("/m.keras")\n',
            after=_fixed('task_index = strategy.cluster_resolver.task_id\nmodel.save(_worker_path("/m.keras", strategy))\n_remove_worker_copy("/m.keras", strategy)\n'),
            note="task index variable",
        ),
        Invalid(
            _HEADER + 'checkpoint = tf.train.Checkpoint(model=model)\nif strategy.cluster_resolver.task_id == 0:\n    checkpoint.save("/ckpt/c")\n',
            after=_fixed('checkpoint = tf.train.Checkpoint(model=model)\ncheckpoint.save(_worker_path("/ckpt/c", strategy))\n_remove_worker_copy("/ckpt/c", strategy)\n'),
            note="Checkpoint.save",
        ),
        Valid(_HEADER + 'model.save(_worker_path("/m.keras", strategy))\n', note="every worker saves"),
        Valid(
            """
            import tensorflow as tf

            strategy = tf.distribute.MirroredStrategy()
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
            if is_chief:
                model.save("/m.keras")
            """,
            note="single machine",
        ),
        Valid(_HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    print("chief logs")\n', note="logging only"),
        Valid(_HEADER + 'if epoch % 10 == 0:\n    model.save(_worker_path("/m.keras", strategy))\n', note="periodic, not chief"),
        Valid(_HEADER + 'if strategy.cluster_resolver.task_id == 0:  # distfix: ignore[TFD503]\n    model.save("/m.keras")\n', note="suppressed"),
        Valid(_HEADER + 'if strategy.cluster_resolver.task_id == 0:\n    upload("/m.keras")\n', note="upload after saving"),
        Valid(
            _HEADER + 'def export(is_chief):\n    if is_chief:\n        tf.saved_model.save(serving_model, "/export")\n',
            note="a serving export of another model",
        ),
        Valid(_HEADER + 'if is_chief:\n    writer.save("/report.txt")\n', note="another object's save"),

        Invalid(
            _HEADER + 'for epoch in range(10):\n    if strategy.cluster_resolver.task_id == 0 and epoch % 5 == 0:\n        model.save(f"/m{epoch}.keras")\n',
            after=_fixed(
                'for epoch in range(10):\n    if epoch % 5 == 0:\n'
                '        model.save(_worker_path(f"/m{epoch}.keras", strategy))\n        _remove_worker_copy(f"/m{epoch}.keras", strategy)\n'
            ),
            note="compound guard keeps the other condition",
        ),
        Invalid(
            _HEADER + 'cfg = json.loads(os.environ["TF_CONFIG"])\nif 0 == cfg["task"]["index"]:\n    print("writing")\n    model.save_weights("/w.weights.h5")\n',
            after=_fixed(
                'cfg = json.loads(os.environ["TF_CONFIG"])\nif 0 == cfg["task"]["index"]:\n    print("writing")\n'
                'model.save_weights(_worker_path("/w.weights.h5", strategy))\n_remove_worker_copy("/w.weights.h5", strategy)\n'
            ),
            note="index read from TF_CONFIG, reversed, save last: moved after",
        ),
        Invalid(
            _HEADER + 'manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), "/ckpt", max_to_keep=2)\nif strategy.cluster_resolver.task_type == "chief":\n    manager.save()\n',
            after=_fixed('manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), _worker_path("/ckpt", strategy), max_to_keep=2)\nmanager.save()\n'),
            note="a manager's save: its directory becomes per worker",
        ),
        Invalid(
            _HEADER + 'def export():\n    if not strategy.cluster_resolver.task_id == 0:\n        return\n    model.save("/m.keras")\n',
            after=None,
            note="an early return on the other workers: advice",
        ),
        Invalid(
            _HEADER + 'def export():\n    model.save("/m.keras")\n\n\nif strategy.cluster_resolver.task_type == "chief":\n    export()\n',
            after=None,
            note="a function only the chief calls: advice",
        ),
        Invalid(
            _HEADER + 'if debug:\n    print("debug")\nelif strategy.cluster_resolver.task_id == 0:\n    model.save("/m.keras")\n',
            after=None,
            note="an elif: advice",
        ),
        Valid(
            _HEADER + 'task_id = strategy.cluster_resolver.task_id\nmodel.save(_worker_path("/m.keras", strategy))\nif not task_id == 0:\n    tf.io.gfile.rmtree("/tmp/workertemp")\n',
            note="only the cleanup is guarded",
        ),
        Valid(
            _HEADER + 'for index, batch in enumerate(batches):\n    if index == 0:\n        model.save(_worker_path("/first.keras", strategy))\n',
            note="a loop index, not the task index",
        ),
        Valid(
            _HEADER + 'if strategy.cluster_resolver.task_type != "chief":\n    print("not the chief")\nmodel.save(_worker_path("/m.keras", strategy))\n',
            note="a non-chief branch without a save",
        ),
        Invalid(
            _FIT + 'is_chief = strategy.cluster_resolver.task_id == 0\n'
            'saving = [tf.keras.callbacks.ModelCheckpoint("/ckpt/weights-{epoch}.h5")] if is_chief else []\n'
            'model.fit(x, y, epochs=3, callbacks=saving)\n',
            after=_FIT + 'is_chief = strategy.cluster_resolver.task_id == 0\n'
            'saving = [tf.keras.callbacks.ModelCheckpoint("/ckpt/weights-{epoch}.h5")]\n'
            'model.fit(x, y, epochs=3, callbacks=saving)\n',
            note="a ModelCheckpoint callback only on the chief (conditional list): every worker gets it",
        ),
        Invalid(
            _FIT + 'import json\n\nworker = json.loads(os.environ["TF_CONFIG"])["task"]["index"]\ncallbacks = []\n'
            'if worker == 0:\n    callbacks.append(tf.keras.callbacks.BackupAndRestore("/backup"))\n'
            'model.fit(x, y, epochs=3, callbacks=callbacks)\n',
            after=_FIT + 'import json\n\nworker = json.loads(os.environ["TF_CONFIG"])["task"]["index"]\ncallbacks = []\n'
            'callbacks.append(tf.keras.callbacks.BackupAndRestore("/backup"))\n'
            'model.fit(x, y, epochs=3, callbacks=callbacks)\n',
            note="a saving callback appended under a rank-0 test (Horovod habit)",
        ),
        Invalid(
            _FIT + 'class Saver(tf.keras.callbacks.ModelCheckpoint):\n    pass\n\n\n'
            'chief = strategy.cluster_resolver.task_type == "chief"\n'
            'model.fit(x, y, callbacks=[] if not chief else [Saver("/ckpt/m.keras")])\n',
            after=_FIT + 'class Saver(tf.keras.callbacks.ModelCheckpoint):\n    pass\n\n\n'
            'chief = strategy.cluster_resolver.task_type == "chief"\n'
            'model.fit(x, y, callbacks=[Saver("/ckpt/m.keras")])\n',
            note="a ModelCheckpoint subclass, negated test, inline in fit",
        ),
        Invalid(
            _FIT + 'rank = strategy.cluster_resolver.task_id\n'
            'callbacks = [tf.keras.callbacks.ModelCheckpoint("/ckpt/m.keras")] if rank == 0 else [tf.keras.callbacks.History()]\n'
            'model.fit(x, y, callbacks=callbacks)\n',
            after=None,
            note="the other workers get other callbacks: advice",
        ),
        Valid(
            _FIT + 'callbacks = [tf.keras.callbacks.ModelCheckpoint("/ckpt/{epoch}.h5"), tf.keras.callbacks.BackupAndRestore("/backup")]\n'
            'if strategy.cluster_resolver.task_id == 0:\n    callbacks.append(tf.keras.callbacks.CSVLogger("/logs/train.csv"))\n'
            'model.fit(x, y, callbacks=callbacks)\n',
            note="saving callbacks on every worker; only a logger is chief-only",
        ),
    )

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        for save in save_calls(ctx):
            if save.kind == "manager":
                continue
            guard = chief_guard(ctx, save.call)
            if guard is None:
                continue
            where = {
                "if": "only the chief saves",
                "exit": "only the chief reaches this save (an earlier `if not chief: return`)",
                "caller": "only the chief saves (its function is called under a chief test)",
            }[guard.how]
            message = (
                f"{where}: saving can run collectives, so the chief may wait forever; every worker should save "
                "(the others to a temporary copy)"
            )
            if guard.how == "if":
                ctx.report(guard.node.test, message, edits=self._edits(ctx, guard, save))
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
            name = (callee or local).rsplit(".", 1)[-1]
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
            guard = chief_guard(ctx, call)
            if guard is None:
                continue
            if guard.how != "if":
                ctx.report(call, message)
                continue
            ctx.report(guard.node.test, message, edits=self._guard_edits(ctx, guard, call))

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


def _lifted(ctx: RuleContext, node: cst.If, statement: cst.BaseStatement, body: list, text: str) -> list[Edit]:
    """Edits taking ``statement``, the first or last of the `if` block's ``body``, out of it:
    ``text`` (the statement at the `if`'s indentation) goes just above or just below the `if`."""
    removed = Edit(
        ctx.textmap.line_starts[ctx.range(statement).start.line - 1], ctx.textmap.line_end(ctx.range(statement).end.line), ""
    )
    if statement is body[0]:
        at = ctx.textmap.line_starts[ctx.range(node).start.line - 1]
    else:
        at = ctx.textmap.line_end(ctx.range(node).end.line)
        if not ctx.text[:at].endswith(("\n", "\r")):
            text = ctx.newline + text
    return [removed, Edit(at, at, text)]


_SAVING_CALLBACKS = frozenset(
    {"keras.callbacks.ModelCheckpoint", "keras.callbacks.BackupAndRestore", "keras.callbacks.experimental.BackupAndRestore"}
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
            if child is ancestor.body and chief_test(ancestor.test, ctx):
                return ancestor, ancestor.body, ancestor.orelse
            if child is ancestor.orelse and not_chief_test(ancestor.test, ctx):
                return ancestor, ancestor.orelse, ancestor.body
        child = ancestor
    return None


def _empty(node: cst.BaseExpression) -> bool:
    """``[]``, ``()`` or ``None``: nothing given to the other workers."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return not node.elements
    return isinstance(node, cst.Name) and node.value == "None"
