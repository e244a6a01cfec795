"""Whether a module builds a Keras model in a way only Keras 2 accepts (read with CPython's `ast`).

Measured on TensorFlow 2.21 (benchmarks/probe_ledger13a_premises.py): Keras 3 raises ValueError
for `Input(shape=150)` (an int, not a tuple: "Cannot convert '150' to a shape") and for
`tf.shape` of a symbolic Keras tensor while a functional model is built ("A KerasTensor cannot be
used as input to a TensorFlow function"); tf-keras (Keras 2) builds both. A program whose model
code does either stops under Keras 3 where its model is built, so it runs on Keras 2 only: the
project-target model takes that as it takes a Keras-2-only call (``Target.with_keras2_usage``).

Only what the probe measured counts: an int literal (or a name bound only to int literals in the
same function or at module level) as `Input`'s shape, and `tf.shape` of a name bound, earlier in
the same function, to an `Input(...)` or to a layer applied to one (`Dense(8)(inputs)`). The
module is read with `ast` because imported modules are summarised that way
(fixer/tf/module_summary.py); the checked file is read the same way, only when its text names
`Input(` or `.shape(`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from fixer.tf.names import canonical

if TYPE_CHECKING:
    from collections.abc import Iterator

_INPUTS = frozenset({"keras.Input", "keras.layers.Input"})
_SHAPE = "tensorflow.shape"


def may_build_for_keras2(text: str) -> bool:
    """Cheap test before parsing: the text names an `Input(` or a `.shape(` call."""
    return "Input(" in text or ".shape(" in text


def keras2_build(tree: ast.Module, imports: dict[str, str]) -> tuple[int, str] | None:
    """(line, what) of the first Keras-2-only model construction in ``tree``, or None.

    ``imports`` maps each imported name to the dotted name it binds (`tf` -> `tensorflow`)."""
    found: list[tuple[int, str]] = []
    module_ints = _int_names(tree.body)
    for scope in _scopes(tree):
        found.extend(_in_scope(scope, imports, module_ints))
    return min(found) if found else None


def _scopes(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    """The module's top level and each function's body (nested ones included)."""
    yield tree.body
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.body


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of ``body`` outside nested functions, classes and lambdas."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _in_scope(body: list[ast.stmt], imports: dict[str, str], module_ints: frozenset[str]) -> Iterator[tuple[int, str]]:
    """Keras-2-only constructions of one scope, in source order (names bound before their use)."""
    ints = _int_names(body) | module_ints
    symbolic: set[str] = set()
    nodes = sorted(
        (node for node in _own_nodes(body) if isinstance(node, (ast.Assign, ast.Call))),
        key=lambda node: (node.lineno, node.col_offset),
    )
    for node in nodes:
        if isinstance(node, ast.Call):
            name = _qualified(node.func, imports)
            if name in _INPUTS and _int_shape(node, ints):
                yield node.lineno, "Input(shape=<int>)"
            elif name == _SHAPE and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in symbolic:
                yield node.lineno, f"tf.shape({node.args[0].id}) of a Keras tensor"
        elif _symbolic_value(node.value, imports, symbolic):
            symbolic.update(target.id for target in node.targets if isinstance(target, ast.Name))


def _symbolic_value(value: ast.expr, imports: dict[str, str], symbolic: set[str]) -> bool:
    """``value`` is a Keras tensor: `Input(...)`, or a layer called on one (`Dense(8)(x)`)."""
    if not isinstance(value, ast.Call):
        return False
    if _qualified(value.func, imports) in _INPUTS:
        return True
    return isinstance(value.func, ast.Call) and any(
        isinstance(arg, ast.Name) and arg.id in symbolic for arg in value.args
    )


def _int_shape(call: ast.Call, ints: frozenset[str]) -> bool:
    """`Input`'s shape (keyword `shape` or the first argument) is an int."""
    shape = next((kw.value for kw in call.keywords if kw.arg == "shape"), call.args[0] if call.args else None)
    if isinstance(shape, ast.Constant):
        return isinstance(shape.value, int) and not isinstance(shape.value, bool)
    return isinstance(shape, ast.Name) and shape.id in ints


def _int_names(body: list[ast.stmt]) -> frozenset[str]:
    """Names every assignment of which, in ``body`` outside nested scopes, is an int literal."""
    values: dict[str, list[ast.expr]] = {}
    for node in _own_nodes(body):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    values.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            values.setdefault(node.target.id, []).append(node.value or ast.Constant(None))
    return frozenset(
        name
        for name, assigned in values.items()
        if all(
            isinstance(v, ast.Constant) and isinstance(v.value, int) and not isinstance(v.value, bool) for v in assigned
        )
    )


def _qualified(func: ast.expr, imports: dict[str, str]) -> str | None:
    """The canonical dotted name a call's function refers to through the module's imports."""
    parts: list[str] = []
    node = func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imports:
        return None
    return canonical(".".join([imports[node.id], *reversed(parts)]))
