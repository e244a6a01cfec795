"""Two `if` statements that test the same thing: the second's arm runs where the first's same arm ran.

`if n_gpus > 1: strategy = MirroredStrategy() else: strategy = None`, later `if n_gpus > 1: with
strategy.scope(): model = build() else: model = build()`: the second `else` runs only where the
first `else` left the strategy None, so what it builds is the single-device path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.tf.names import dotted_name

if TYPE_CHECKING:
    from fixer.semantic.conditions import Condition
    from fixer.tf.model import TFModel

_CODE = cst.Module([])


def earlier_arm_left_none(tf: TFModel, condition: Condition, names: set[str]) -> bool:
    """An earlier `if` of the same block, with the same test over the same bindings of its names,
    sets every one of ``names`` to None in the arm that ``condition`` repeats.

    Conservative: the test may read names, attributes and constants but call nothing (a call may
    answer differently the second time), and each name in it must be reached by the same
    bindings at both tests (nothing rebinds it between them).
    """
    statement = condition.statement
    if not names or not isinstance(statement, cst.If) or not _without_calls(condition.test):
        return False
    parent = tf.index.parent.get(statement)
    body = getattr(parent, "body", None)
    if not isinstance(body, tuple | list) or statement not in body:
        return False
    text = _CODE.code_for_node(condition.test)
    for earlier in body[: body.index(statement)]:
        if not isinstance(earlier, cst.If) or _CODE.code_for_node(earlier.test) != text:
            continue
        if not _same_bindings(tf, earlier.test, condition.test):
            continue
        arm = earlier.body if condition.holds else earlier.orelse
        if isinstance(arm, cst.Else):
            arm = arm.body
        if isinstance(arm, cst.IndentedBlock) and names <= _set_to_none(arm):
            return True
    return False


def _without_calls(test: cst.BaseExpression) -> bool:
    found: list[cst.Call] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    test.visit(_Calls())
    return not found


def _read_names(test: cst.BaseExpression) -> list[cst.Name]:
    """The names ``test`` reads (not the attribute names after a dot)."""
    found: list[cst.Name] = []

    class _Names(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

    test.visit(_Names())
    return found


def _same_bindings(tf: TFModel, first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
    firsts, seconds = _read_names(first), _read_names(second)
    if len(firsts) != len(seconds):
        return False
    for one, two in zip(firsts, seconds, strict=True):
        if one.value == "None":
            continue
        reaching_one = [b.node for b in tf.semantic.resolve(one)]
        reaching_two = [b.node for b in tf.semantic.resolve(two)]
        if len(reaching_one) != len(reaching_two) or any(
            a is not b for a, b in zip(reaching_one, reaching_two, strict=True)
        ):
            return False
    return True


def _set_to_none(block: cst.IndentedBlock) -> set[str]:
    """The names (dotted) that statements directly in ``block`` assign None."""
    found: set[str] = set()
    for statement in block.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Name) and small.value.value == "None":
                found.update(n for t in small.targets if (n := dotted_name(t.target)) is not None)
    return found
