"""What a call of a local function with constant arguments does not run.

``def make(mode="local"): if mode == "local": return A() ... if mode == "multi": return B()``
called as ``make()`` runs the first arm and returns: the ``B()`` arm never runs for that call.
Parameters get the call's literal arguments (or their literal defaults); tests of ``if``/``elif``
that compare them with literals (``==``, ``!=``, ``in``, ``not in``, ``is``, ``is not``, ``not``,
``and``, ``or``, a bare parameter) are decided, and a decided arm that always returns or raises
ends the walk. Anything else (a loop, ``try``, a test on other names) is left undecided: its arms
may run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from fixer.semantic.bindings import BindingKind
from fixer.syntax import evaluate_literal

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fixer.semantic.bindings import Scope

_UNKNOWN = object()  # an undecided value or test


def parameter_values(func: cst.FunctionDef, call: cst.Call, scope: Scope) -> dict[str, object] | None:
    """The literal value each parameter of ``func`` has in ``call`` (its default when the call does
    not pass it); None when the call unpacks arguments (``*args``, ``**kw``). Parameters the body
    rebinds, and those given a non-literal, are left out."""
    if any(arg.star for arg in call.args):
        return None
    params = func.params
    positional = [*params.posonly_params, *params.params]
    values: dict[str, object] = {}
    for param in [*positional, *params.kwonly_params]:
        if param.default is not None:
            values[param.name.value] = literal(param.default)
    for position, arg in enumerate(call.args):
        if arg.keyword is not None:
            values[arg.keyword.value] = literal(arg.value)
        elif position < len(positional):
            values[positional[position].name.value] = literal(arg.value)
        else:
            return None  # more arguments than named parameters: a `*args` function
    return {
        name: value
        for name, value in values.items()
        if value is not _UNKNOWN and all(b.kind is BindingKind.PARAMETER for b in scope.of(name))
    }


def not_run(body: Sequence[cst.BaseStatement], values: dict[str, object]) -> list[cst.CSTNode]:
    """The statements and blocks of ``body`` (a function's) that cannot run with ``values``."""
    skipped: list[cst.CSTNode] = []
    _walk(body, values, skipped)
    return skipped


def _walk(statements: Sequence[cst.BaseStatement], values: dict[str, object], skipped: list[cst.CSTNode]) -> bool:
    """Record in ``skipped`` what cannot run among ``statements``; True when they always leave
    (return or raise) on every path that is decided."""
    for position, statement in enumerate(statements):
        if _leaves(statement, values, skipped):
            skipped.extend(statements[position + 1 :])
            return True
    return False


def _leaves(statement: cst.BaseStatement, values: dict[str, object], skipped: list[cst.CSTNode]) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(isinstance(s, cst.Return | cst.Raise) for s in statement.body)
    if isinstance(statement, cst.If):
        return _if_leaves(statement, values, skipped)
    return False


def _if_leaves(branch: cst.If, values: dict[str, object], skipped: list[cst.CSTNode]) -> bool:
    """An `if`/`elif`/`else` chain: the arms a decided test rules out are skipped."""
    decided = _truth(branch.test, values)
    other = branch.orelse
    if decided is True:
        if other is not None:
            skipped.append(other)
        return _suite_leaves(branch.body, values, skipped)
    if decided is False:
        skipped.append(branch.body)
        return _orelse_leaves(other, values, skipped)
    body_leaves = _suite_leaves(branch.body, values, skipped)
    return _orelse_leaves(other, values, skipped) and body_leaves


def _orelse_leaves(other: cst.If | cst.Else | None, values: dict[str, object], skipped: list[cst.CSTNode]) -> bool:
    if other is None:
        return False
    if isinstance(other, cst.If):
        return _if_leaves(other, values, skipped)
    return _suite_leaves(other.body, values, skipped)


def _suite_leaves(suite: cst.BaseSuite, values: dict[str, object], skipped: list[cst.CSTNode]) -> bool:
    if isinstance(suite, cst.SimpleStatementSuite):
        return any(isinstance(s, cst.Return | cst.Raise) for s in suite.body)
    return _walk(list(suite.body), values, skipped)  # type: ignore[arg-type]  # an IndentedBlock's statements


def _truth(test: cst.BaseExpression, values: dict[str, object]) -> bool | None:
    """The truth of ``test`` given the parameter values, or None when undecided."""
    if isinstance(test, cst.BooleanOperation):
        left, right = _truth(test.left, values), _truth(test.right, values)
        if isinstance(test.operator, cst.And):
            if left is False or right is False:
                return False
            return True if left is True and right is True else None
        if left is True or right is True:
            return True
        return False if left is False and right is False else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, values)
        return None if inner is None else not inner
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        return _compare(test, values)
    value = _value(test, values)
    return None if value is _UNKNOWN else bool(value)


def _compare(test: cst.Comparison, values: dict[str, object]) -> bool | None:
    target = test.comparisons[0]
    left, right = _value(test.left, values), _value(target.comparator, values)
    if left is _UNKNOWN or right is _UNKNOWN:
        return None
    operator = target.operator
    try:
        if isinstance(operator, cst.Equal):
            return bool(left == right)
        if isinstance(operator, cst.NotEqual):
            return bool(left != right)
        if isinstance(operator, cst.Is):
            return left is None and right is None if None in (left, right) else None
        if isinstance(operator, cst.IsNot):
            return not (left is None and right is None) if None in (left, right) else None
        if isinstance(operator, cst.In):
            return left in right  # type: ignore[operator]  # a TypeError is caught below
        if isinstance(operator, cst.NotIn):
            return left not in right  # type: ignore[operator]
    except TypeError:
        return None
    return None


def _value(node: cst.BaseExpression, values: dict[str, object]) -> object:
    if isinstance(node, cst.Name) and node.value in values:
        return values[node.value]
    return literal(node)


def literal(node: cst.BaseExpression) -> object:
    """The value of a literal expression (strings, numbers, ``True``/``False``/``None``, tuples,
    lists and sets of them), or ``_UNKNOWN``."""
    if isinstance(node, cst.Name):
        return {"True": True, "False": False, "None": None}.get(node.value, _UNKNOWN)
    if isinstance(node, cst.SimpleString | cst.Integer | cst.Float | cst.ConcatenatedString):
        try:
            return evaluate_literal(cst.Module([]).code_for_node(node))
        except (ValueError, SyntaxError):
            return _UNKNOWN
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal(node.expression)
        return -inner if isinstance(inner, int | float) else _UNKNOWN
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        items = [literal(e.value) for e in node.elements if not isinstance(e, cst.StarredElement)]
        if len(items) != len(node.elements) or any(i is _UNKNOWN for i in items):
            return _UNKNOWN
        return tuple(items)
    return _UNKNOWN
