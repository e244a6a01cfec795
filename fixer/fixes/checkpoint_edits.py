"""The per-worker path fix of the checkpoint rules (TFD502, TFD503): `_worker_path` helpers added
once, a save (or its manager's directory) rewritten to write this worker's path, and a save moved
under a chief guard. Which saves and where the strategy is come from fixer/tf/checkpoints.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.edits import reindent, string_continuation_lines
from fixer.report import render
from fixer.tf.checkpoints import may_be_multi_worker, per_worker
from fixer.tf.reach import strategy_in_reach
from fixer.types import Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.checkpoints import Save


def helper_edits(ctx: RuleContext) -> tuple[str, list[Edit]]:
    """Edits that add the `_worker_path` helpers once (identical edits merge across findings)."""
    tf, tf_import = ctx.import_module("tensorflow", "tf")
    os_name, os_import = ctx.import_module("os", "os")
    if any(f.name.value == "_worker_path" for f in ctx.index.functions):
        return tf, [*tf_import, *os_import]
    offset = _after_imports(ctx)
    snippet = render("snippets/multiworker_paths.py.j2", tf=tf, os=os_name).strip("\n").replace("\n", ctx.newline)
    # Two blank lines around top-level definitions (one already follows the imports).
    return tf, [*tf_import, *os_import, Edit(offset, offset, ctx.newline + snippet + ctx.newline * 3)]


def helpers_run_on_target(ctx: RuleContext) -> bool:
    """The `_worker_path` helpers read `strategy.cluster_resolver`, which TensorFlow has from 2.3
    (fixer/target/apis.py): on an older target the rewritten save would raise `AttributeError`
    where the script ran before, so no rewrite is offered there (ledger14c, a TF 2.1 image)."""
    return ctx.tf.target.has("cluster_resolver")


def _after_imports(ctx: RuleContext) -> int:
    """Just after the last top-level import (where module-level helpers can go)."""
    last = None
    for statement in ctx.module.body:
        if isinstance(statement, cst.SimpleStatementLine) and isinstance(
            statement.body[0], (cst.Import, cst.ImportFrom)
        ):
            last = statement
    if last is None:
        return 0
    end = ctx.textmap.line_end(ctx.range(last).end.line)
    return end + len(ctx.newline) if ctx.text[end : end + len(ctx.newline)] == ctx.newline else end


def _simple(ctx: RuleContext, call: cst.Call) -> cst.SimpleStatementLine | None:
    statement = ctx.index.statement_of(call)
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    return statement


def rewrite_save(ctx: RuleContext, save: Save) -> list[Edit] | None:
    """Edits that make ``save`` write a per-worker path where it stands (and clean up non-chief copies).

    For a manager save, the manager's construction gets the per-worker directory.
    """
    target = save.manager if save.kind == "manager_save" and save.manager is not None else save
    statement = _simple(ctx, target.call)
    strategy = strategy_in_reach(ctx.tf, statement) if statement is not None else None
    if target.kind == "manager" and per_worker(ctx.tf, target.path):
        return []
    if strategy is None or statement is None:  # no statement means no strategy either
        return None
    if not may_be_multi_worker(ctx.tf, strategy, statement) or not helpers_run_on_target(ctx):
        return None
    _, edits = helper_edits(ctx)
    path_text = ctx.source(target.path)
    edits.append(ctx.replace(target.path, f"_worker_path({path_text}, {strategy})"))
    if target.kind == "save":
        insert_at = ctx.textmap.line_end(ctx.range(statement).end.line)
        newline = ctx.newline if ctx.text[:insert_at].endswith(("\n", "\r")) else ""
        cleanup = f"{ctx.indentation(statement)}_remove_worker_copy({path_text}, {strategy}){ctx.newline}"
        edits.append(Edit(insert_at, insert_at, ("" if newline else ctx.newline) + cleanup))
    return edits


def moved_save(ctx: RuleContext, save: Save, indent: str) -> tuple[str, list[Edit]] | None:
    """The text of ``save`` rewritten to per-worker paths, as lines indented by ``indent``, and the
    other edits it needs (helpers, a manager's directory); None when it cannot be rewritten."""
    statement = _simple(ctx, save.call)
    if statement is None:
        return None
    strategy = strategy_in_reach(ctx.tf, statement)
    if strategy is None or not may_be_multi_worker(ctx.tf, strategy, statement) or not helpers_run_on_target(ctx):
        return None
    lines_start = ctx.textmap.line_starts[ctx.range(statement).start.line - 1]
    lines_end = ctx.textmap.line_end(ctx.range(statement).end.line)
    old_indent = ctx.indentation(statement)
    text = ctx.text[lines_start:lines_end].rstrip("\r\n")
    if save.kind == "save":
        start, end = (offset - lines_start for offset in ctx.span(save.path))
        path_text = ctx.source(save.path)
        text = text[:start] + f"_worker_path({path_text}, {strategy})" + text[end:]
        text += f"{ctx.newline}{old_indent}_remove_worker_copy({path_text}, {strategy})"
        _, edits = helper_edits(ctx)
    else:
        rewritten = rewrite_save(ctx, save)
        if rewritten is None:
            return None
        edits = rewritten
    keep = string_continuation_lines(ctx, [statement])
    return reindent(
        text, old_indent, indent, first_line=ctx.range(statement).start.line, keep=keep
    ) + ctx.newline, edits
