"""What a project module, run on import, sets TF_USE_LEGACY_KERAS to (read with CPython's `ast`).

A training script often leaves the switch to a module it imports first (`import config` whose
top level sets `os.environ["TF_USE_LEGACY_KERAS"] = "1"`) or to its package's `__init__.py`.
TensorFlow 2.21 decides at the first `tf.keras` use (for `from tensorflow.keras import`: at
`import tensorflow`), `benchmarks/probe_legacy_switch_order.py`; so only settings the module's
top level runs (not a function's body) before it uses or imports Keras count here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

KEY = "TF_USE_LEGACY_KERAS"
_TRUE = frozenset({"1", "true", "True"})  # what TensorFlow 2.21 accepts
_ENVIRON = frozenset({"os.environ", "environ"})
_KERAS = frozenset({"keras", "tf_keras"})


def legacy_switch(tree: ast.Module) -> str | None:
    """What the module's top level sets TF_USE_LEGACY_KERAS to before it uses or imports Keras (the
    last such setting): "on", "off", "unknown" (not a literal); None when it does not set it."""
    value: str | None = None
    for statement in top_level_statements(tree.body):
        if _touches_keras(statement):
            break
        for setting in _settings(statement):
            value = "unknown" if setting is None else "on" if setting in _TRUE else "off"
    return value


def top_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements the module's top level runs, in order: into `if`/`try`/`with` blocks, not
    into functions or classes."""
    for statement in body:
        if isinstance(statement, (ast.If, ast.Try, ast.With)):
            yield from top_level_statements(statement.body)
            for handler in getattr(statement, "handlers", ()):
                yield from top_level_statements(handler.body)
            yield from top_level_statements(getattr(statement, "orelse", []))
            yield from top_level_statements(getattr(statement, "finalbody", []))
        else:
            yield statement


def _touches_keras(statement: ast.stmt) -> bool:
    """``statement`` imports Keras (`keras`, `tf_keras`, `tensorflow.keras`) or uses `<x>.keras`:
    after it the switch is read (`import tensorflow` alone does not read it for `tf.keras`)."""
    if isinstance(statement, ast.Import):
        return any(_is_keras_module(alias.name) for alias in statement.names)
    if isinstance(statement, ast.ImportFrom):
        module = statement.module or ""
        return not statement.level and (
            _is_keras_module(module) or (module == "tensorflow" and any(a.name == "keras" for a in statement.names))
        )
    return any(isinstance(node, ast.Attribute) and node.attr == "keras" for node in ast.walk(statement))


def _is_keras_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] in _KERAS or parts[:2] == ["tensorflow", "keras"]


def _settings(statement: ast.stmt) -> Iterator[str | None]:
    """The values ``statement`` sets the switch to (None for one that is not a literal)."""
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Subscript) and _is_environ(target.value) and _is_key(target.slice):
                yield _literal(statement.value)
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        func = call.func
        if not isinstance(func, ast.Attribute) or not _is_environ(func.value):
            return
        if func.attr == "setdefault" and len(call.args) == 2 and _is_key(call.args[0]):
            yield _literal(call.args[1])
        elif func.attr == "update":
            for keyword in call.keywords:
                if keyword.arg == KEY:
                    yield _literal(keyword.value)
            for arg in call.args:
                if isinstance(arg, ast.Dict):
                    yield from (
                        _literal(v) for k, v in zip(arg.keys, arg.values, strict=True) if k is not None and _is_key(k)
                    )


def _is_environ(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _ENVIRON
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and f"{node.value.id}.{node.attr}" in _ENVIRON
    )


def _is_key(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == KEY


def _literal(node: ast.expr) -> str | None:
    return str(node.value) if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)) else None
