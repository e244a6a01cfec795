"""Alternative paths through a function: "can these two statements run in the same pass?"

A model built in the `else:` of `if use_multi_gpu:` never meets the strategy of the `if:` arm.
(Whether a name is bound on every path to a statement is a Python fact:
``fixer.semantic.bound_on_every_path``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from fixer.tf.index import ModuleIndex


def _arm(index: ModuleIndex, node: cst.CSTNode, branch: cst.If) -> str | None:
    """Which part of ``branch`` holds ``node``: ``"body"``, ``"else"``, or None (the test)."""
    if index.is_within(node, branch.body):
        return "body"
    if branch.orelse is not None and index.is_within(node, branch.orelse):
        return "else"
    return None


def exclusive(index: ModuleIndex, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """True when ``first`` and ``second`` lie in different arms of one if/elif/else.

    Then no single run of the code executes both (a loop around the `if` aside, which can
    take both arms in different iterations: that is not one object's story either).
    """
    first_ifs = {id(a) for a in index.ancestors(first) if isinstance(a, cst.If)}
    for ancestor in index.ancestors(second):
        if not isinstance(ancestor, cst.If) or id(ancestor) not in first_ifs:
            continue
        arms = (_arm(index, first, ancestor), _arm(index, second, ancestor))
        if None not in arms and arms[0] != arms[1]:
            return True
    return False
