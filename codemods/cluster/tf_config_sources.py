"""Shared analysis for the cluster rules: where code sets TF_CONFIG and literal values.

Not a rule: TFD601, TFD602 and TFD603 all need it, and so does ``fix --emit-launcher``.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

import libcst as cst

from fixer.engine import RuleContext

NOT_LITERAL = object()
_ENVIRON = "os.environ"


@dataclass(frozen=True)
class TfConfigSetter:
    """One statement that sets TF_CONFIG, and the expression it sets it to."""

    statement: cst.BaseStatement
    node: cst.CSTNode  # where to report
    value: cst.BaseExpression


def literal_value(ctx: RuleContext, expr: cst.BaseExpression, depth: int = 0) -> object:
    """The Python value of a literal-built expression, or NOT_LITERAL.

    Literals, containers of literals, f-strings whose parts are literals, `json.dumps(...)` of a
    literal, and names bound once in the module to any of these.
    """
    if depth > 16:  # names bound to names bound to ...: stop on cycles
        return NOT_LITERAL
    if isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float, cst.ConcatenatedString)):
        try:
            return ast.literal_eval(ctx.source(expr))
        except (ValueError, SyntaxError):
            return NOT_LITERAL
    if isinstance(expr, cst.Name):
        if expr.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[expr.value]
        bound = _single_binding(ctx, expr.value)
        return NOT_LITERAL if bound is None else literal_value(ctx, bound, depth + 1)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_value(ctx, expr.expression, depth + 1)
        return -inner if isinstance(inner, (int, float)) else NOT_LITERAL
    if isinstance(expr, (cst.List, cst.Tuple)):
        items = [literal_value(ctx, e.value, depth + 1) for e in expr.elements]
        return NOT_LITERAL if any(i is NOT_LITERAL for i in items) else items
    if isinstance(expr, cst.Dict):
        result = {}
        for element in expr.elements:
            if not isinstance(element, cst.DictElement):
                return NOT_LITERAL
            key, value = literal_value(ctx, element.key, depth + 1), literal_value(ctx, element.value, depth + 1)
            if key is NOT_LITERAL or value is NOT_LITERAL:
                return NOT_LITERAL
            result[key] = value
        return result
    if isinstance(expr, cst.FormattedString):
        parts = []
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
                continue
            value = literal_value(ctx, part.expression, depth + 1)
            if value is NOT_LITERAL or part.format_spec or part.conversion:
                return NOT_LITERAL
            parts.append(str(value))
        return "".join(parts).replace("{{", "{").replace("}}", "}")
    if isinstance(expr, cst.Call) and ctx.tf.names.callee(expr) == "json.dumps" and expr.args:
        value = literal_value(ctx, expr.args[0].value, depth + 1)
        return NOT_LITERAL if value is NOT_LITERAL else json.dumps(value)
    return NOT_LITERAL


def _single_binding(ctx: RuleContext, name: str) -> cst.BaseExpression | None:
    values = [
        a.value
        for a in ctx.index.assigns
        if isinstance(a, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name for t in a.targets)
    ]
    return values[0] if len(values) == 1 else None


def _is_environ(ctx: RuleContext, expr: cst.BaseExpression) -> bool:
    return ctx.tf.names.qualified(expr) == _ENVIRON


def _is_tf_config_key(ctx: RuleContext, expr: cst.BaseExpression) -> bool:
    return literal_value(ctx, expr) == "TF_CONFIG"


def tf_config_setters(ctx: RuleContext) -> list[TfConfigSetter]:
    """Every place the module sets the TF_CONFIG environment variable."""
    found: list[TfConfigSetter] = []
    for assign in ctx.index.assigns:
        if not isinstance(assign, cst.Assign):
            continue
        for target in assign.targets:
            node = target.target
            if (
                isinstance(node, cst.Subscript)
                and _is_environ(ctx, node.value)
                and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)
                and _is_tf_config_key(ctx, node.slice[0].slice.value)
            ):
                found.append(TfConfigSetter(ctx.index.statement_of(assign), assign, assign.value))
    for call in ctx.index.calls:
        func = call.func
        callee = ctx.tf.names.callee(call)
        if callee == "os.putenv" and len(call.args) == 2 and _is_tf_config_key(ctx, call.args[0].value):
            found.append(TfConfigSetter(ctx.index.statement_of(call), call, call.args[1].value))
            continue
        if not isinstance(func, cst.Attribute) or not _is_environ(ctx, func.value):
            continue
        if func.attr.value == "setdefault" and len(call.args) == 2 and _is_tf_config_key(ctx, call.args[0].value):
            found.append(TfConfigSetter(ctx.index.statement_of(call), call, call.args[1].value))
        elif func.attr.value == "update":
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "TF_CONFIG":
                    found.append(TfConfigSetter(ctx.index.statement_of(call), call, arg.value))
                elif arg.keyword is None and isinstance(arg.value, cst.Dict):
                    for element in arg.value.elements:
                        if isinstance(element, cst.DictElement) and _is_tf_config_key(ctx, element.key):
                            found.append(TfConfigSetter(ctx.index.statement_of(call), call, element.value))
    return found


def tf_config_of(ctx: RuleContext, setter: TfConfigSetter) -> object:
    """The TF_CONFIG text a setter writes if it is literal-built, else NOT_LITERAL."""
    value = literal_value(ctx, setter.value)
    if isinstance(value, dict):
        return json.dumps(value)
    return value if isinstance(value, str) else NOT_LITERAL


def cluster_problems(ctx: RuleContext) -> list[tuple[cst.CSTNode, object]]:
    """Every defect of every literal TF_CONFIG and `tf.train.ClusterSpec({...})` in the module."""
    from fixer.clusterspec import check_cluster, parse_tf_config

    found: list[tuple[cst.CSTNode, object]] = []
    for setter in tf_config_setters(ctx):
        config = tf_config_of(ctx, setter)
        if isinstance(config, str):
            found.extend((setter.value, problem) for problem in parse_tf_config(config)[1])
    for call in ctx.index.calls:
        if ctx.tf.names.callee(call) != "tensorflow.train.ClusterSpec" or not call.args:
            continue
        cluster = literal_value(ctx, call.args[0].value)
        if cluster is not NOT_LITERAL:
            found.extend((call.args[0].value, problem) for problem in check_cluster(cluster))
    return found
