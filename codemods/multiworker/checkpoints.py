"""Shared analysis for the checkpoint rules: save calls, chief guards, and the per-worker fix.

Not a rule: TFD502 (every worker writes one path) and TFD503 (only the chief saves) both use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from fixer.engine import RuleContext
from fixer.report import render
from fixer.tf.dataflow import names_in
from fixer.tf.reach import strategy_in_reach
from fixer.types import Edit

_SAVES = frozenset({"save", "save_weights", "write"})
_CHECKPOINTS = ("tensorflow.train.Checkpoint", "tensorflow.train.CheckpointManager")
_MODELS = ("keras.Sequential", "keras.Model", "keras.models.", "keras.applications.")
_TASK_WORDS = frozenset({"task_id", "task_type", "is_chief", "task_index", "worker_id", "rank", "_worker_path", "write_filepath", "write_dirpath", "chief"})
_CHIEF_WORDS = frozenset({"is_chief", "task_id", "task_index", "chief", "worker_id", "rank"})


@dataclass(frozen=True)
class Save:
    """One save call and the expression of the path it writes."""

    call: cst.Call
    path: cst.BaseExpression
    kind: str  # "save" (model/checkpoint) or "manager"


def _savers(ctx: RuleContext) -> set[str]:
    keys = set()
    for assign in ctx.index.assigns:
        if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call):
            callee = ctx.tf.names.callee(assign.value) or ""
            if callee.startswith(_MODELS) or callee == "tensorflow.train.Checkpoint":
                keys.update(ctx.source(t.target) for t in assign.targets)
    return keys


def save_calls(ctx: RuleContext) -> list[Save]:
    """Saves of Keras models and `tf.train.Checkpoint`s, and `CheckpointManager` directories."""
    savers = _savers(ctx)
    found = []
    for call in ctx.index.calls:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SAVES and ctx.source(func.value) in savers:
            path = _argument(call, 0, ("filepath", "file_prefix", "filepath"))
            if path is not None:
                found.append(Save(call, path, "save"))
        elif ctx.tf.names.callee(call) == "tensorflow.train.CheckpointManager":
            path = _argument(call, 1, ("directory",))
            if path is not None:
                found.append(Save(call, path, "manager"))
    return found


def _argument(call: cst.Call, position: int, keywords: tuple[str, ...]) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in keywords:
            return arg.value
    positional = [a for a in call.args if a.keyword is None]
    return positional[position].value if len(positional) > position else None


def per_worker(path: cst.BaseExpression) -> bool:
    """True when the path already depends on the task (so workers do not collide)."""
    words = names_in(path)
    if isinstance(path, cst.Attribute):
        words.add(path.attr.value)
    return bool(words & _TASK_WORDS)


def chief_guard(ctx: RuleContext, node: cst.CSTNode) -> cst.If | None:
    """The `if is_chief:` / `if task_id == 0:` (without else) that encloses ``node``, if any."""
    for ancestor in ctx.index.ancestors(node):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda)):
            return None
        if isinstance(ancestor, cst.If):
            words = names_in(ancestor.test)
            attributes = {a.attr.value for a in ctx.index.attributes if ctx.index.is_within(a, ancestor.test)}
            if (words | attributes) & _CHIEF_WORDS or "chief" in ctx.source(ancestor.test):
                return ancestor
    return None


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


def _after_imports(ctx: RuleContext) -> int:
    """Just after the last top-level import (where module-level helpers can go)."""
    last = None
    for statement in ctx.module.body:
        if isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], (cst.Import, cst.ImportFrom)):
            last = statement
    if last is None:
        return 0
    end = ctx.textmap.line_end(ctx.range(last).end.line)
    return end + len(ctx.newline) if ctx.text[end:end + len(ctx.newline)] == ctx.newline else end


def rewrite_save(ctx: RuleContext, save: Save, indent: str | None = None) -> list[Edit] | None:
    """Edits that make ``save`` write a per-worker path (and clean up non-chief copies).

    ``indent`` is the indentation the save statement will have (when another edit moves it).
    """
    statement = ctx.index.statement_of(save.call)
    strategy = strategy_in_reach(ctx, statement)
    if strategy is None or not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    _, edits = helper_edits(ctx)
    path_text = ctx.source(save.path)
    edits.append(ctx.replace(save.path, f"_worker_path({path_text}, {strategy})"))
    if save.kind == "save":
        insert_at = ctx.textmap.line_end(ctx.range(statement).end.line)
        indent = ctx.indentation(statement) if indent is None else indent
        cleanup = f"{indent}_remove_worker_copy({path_text}, {strategy}){ctx.newline}"
        edits.append(Edit(insert_at, insert_at, cleanup))
    return edits
