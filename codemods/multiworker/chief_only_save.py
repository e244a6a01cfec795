"""TFD503: a save under MultiWorkerMirroredStrategy that only the chief runs."""

from __future__ import annotations

import libcst as cst

from codemods.multiworker.checkpoint_path_shared_by_workers import _HEADER, _fixed
from codemods.multiworker.checkpoints import chief_guard, rewrite_save, save_calls
from fixer.engine import RuleContext
from fixer.rule import Invalid, Rule, Valid
from fixer.types import Applicability, Edit


class ChiefOnlySave(Rule):
    """
    ## What it does
    Under `MultiWorkerMirroredStrategy`, finds `model.save`, `save_weights` and checkpoint saves
    guarded by a chief test (`if is_chief:`, `if task_id == 0:`, `if task_type == "chief":`).

    ## Why is this bad in distributed training?
    Saving can take part in collectives (for example for variables synchronised on read): the
    TensorFlow guide warns that a save run by the chief alone can deadlock the job, the chief
    waiting for peers that never join. In the measured TensorFlow 2.21 case (a small dense model)
    the chief-only `Checkpoint.write` happened to work, so the hang depends on the model: the
    safe pattern is the one the guide prescribes.

    ## Fix safety
    Unsafe. When the guard holds only the save statements and has no `else`, the guard is
    removed and every worker saves: the chief to the real path, the others to a temporary
    copy they delete (TFD502's helpers). Otherwise the finding says what to change.

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
            after=None,
            note="more under the guard: advice",
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
    )

    def check(self, ctx: RuleContext) -> None:
        if not ctx.tf.strategies.uses_multi_worker:
            return
        for save in save_calls(ctx):
            guard = chief_guard(ctx, save.call)
            if guard is None:
                continue
            message = (
                "only the chief saves: saving can run collectives, so the chief may wait forever for the others; "
                "every worker should save (the chief to this path, the others to a temporary copy)"
            )
            edits = self._edits(ctx, guard, save)
            ctx.report(guard.test, message, edits=edits)

    def _edits(self, ctx: RuleContext, guard: cst.If, save) -> list[Edit] | None:
        body = guard.body.body if isinstance(guard.body, cst.IndentedBlock) else ()
        statement = ctx.index.statement_of(save.call)
        if guard.orelse is not None or list(body) != [statement]:
            return None
        outer, inner = ctx.indentation(guard), ctx.indentation(statement)
        rewrite = rewrite_save(ctx, save, indent=outer)
        if rewrite is None:
            return None
        # Drop the guard line and dedent its body; the save's own edits apply inside it.
        guard_line = ctx.textmap.line_starts[ctx.range(guard).start.line - 1]
        body_line = ctx.textmap.line_starts[ctx.range(statement).start.line - 1]
        edits = [Edit(guard_line, body_line + len(inner), outer)]
        return edits + rewrite
