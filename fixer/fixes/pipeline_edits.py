"""The edits of the input-pipeline rules (TFD202, TFD205, TFD501): a module-level helper from a
template, and one constant seed for the shuffles :func:`fixer.tf.pipelines.unseeded_shuffles` names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fixer.report import render
from fixer.tf.pipelines import SHUFFLE_SEED, unseeded_shuffles
from fixer.types import Edit

if TYPE_CHECKING:
    from fixer.context import RuleContext
    from fixer.tf.pipelines import Pipeline


def add_helper(ctx: RuleContext, template: str, name: str, **names: str) -> list[Edit]:
    """An edit adding a module-level helper function from a template after the module's leading
    imports (once).

    Only the imports before the module's first other statement count: a file that imports again
    further down (several programs pasted into one file, a notebook's later cells) may call the
    helper above that later import, and a definition placed after it would be unbound there."""
    if any(f.name.value == name for f in ctx.index.functions):
        return []
    last = ctx.last_leading_import()
    if last is None:
        offset = 0
    else:
        offset = ctx.textmap.line_end(ctx.range(last).end.line)
        if ctx.text[offset : offset + len(ctx.newline)] == ctx.newline:
            offset += len(ctx.newline)
    snippet = render(template, **names).strip("\n").replace("\n", ctx.newline)
    return [Edit(offset, offset, ctx.newline + snippet + ctx.newline * 3)]


def seed_shuffles(ctx: RuleContext, found: Pipeline) -> list[Edit] | None:
    """Edits that give every unseeded ``shuffle`` of ``found`` the one constant seed, or None when
    the order cannot be made identical on every worker here (see `unseeded_shuffles`)."""
    shuffles = unseeded_shuffles(ctx.tf, found)
    if shuffles is None:
        return None
    return [ctx.insert_after(shuffle.args[-1].value, f", seed={SHUFFLE_SEED}") for shuffle in shuffles]
