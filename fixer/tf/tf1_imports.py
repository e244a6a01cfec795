"""Which of its package's modules an `__init__.py` imports only for TensorFlow 1 (CPython's `ast`).

A package written for both major versions often picks its implementation on import:
`if in_tensorflow2(): from . import v2 as impl else: from . import v1 as impl`. The `v1` module
is then TensorFlow 1 code, whatever the project's target: its `experimental` names are the only
ones TensorFlow 1 has. The arm is read from the test's own words (a helper or flag naming TF 2 or
TF 1, ``tf.__version__.startswith("1")``), since the helper usually lives in another module.
"""

from __future__ import annotations

import ast
import re

# A test that holds on TensorFlow 2 (`in_tensorflow2()`, `is_tf2`, `tf2.enabled()`,
# `tf.executing_eagerly()`) or on TensorFlow 1 (`is_tf1()`, `tf.__version__.startswith("1")`).
_SAYS_TF2 = re.compile(r"(tf|tensorflow)_?2(?!\d)|executing_eagerly|startswith\(['\"]2")
_SAYS_TF1 = re.compile(r"(tf|tensorflow)_?1(?!\d)|startswith\(['\"]1")
_TF1 = "tf1"
_OTHER = "other"


def tf1_only_imports(tree: ast.Module) -> frozenset[str]:
    """The modules the package's top level imports, every time, in an arm that runs only on
    TensorFlow 1: relative ones dotted from the package with a leading dot (``.v1``,
    ``.core.variable_v1``), absolute ones as written (``pkg.core.variable_v1``)."""
    arms: dict[str, set[str]] = {}
    _collect(tree.body, _OTHER, arms)
    return frozenset(name for name, seen in arms.items() if seen == {_TF1})


def _collect(body: list[ast.stmt], arm: str, arms: dict[str, set[str]]) -> None:
    for statement in body:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            for name in _imported(statement):
                arms.setdefault(name, set()).add(arm)
        elif isinstance(statement, ast.If):
            major = _major(statement.test)
            _collect(statement.body, _TF1 if major == 1 else _OTHER if major == 2 else arm, arms)
            _collect(statement.orelse, _TF1 if major == 2 else _OTHER if major == 1 else arm, arms)
        elif isinstance(statement, ast.Try):
            for block in (statement.body, *(h.body for h in statement.handlers), statement.orelse):
                _collect(block, arm, arms)


def _imported(statement: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules ``statement`` may import: ``from .a import b`` gives ``.a`` and ``.a.b`` (``b``
    may be a submodule)."""
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    if statement.level > 1:
        return []
    base = ("." if statement.level else "") + (statement.module or "")
    joined = [f"{base}.{alias.name}" if statement.module else f"{base}{alias.name}" for alias in statement.names]
    return [base, *joined] if statement.module else joined


def _major(test: ast.expr) -> int | None:
    """2 when ``test`` holds on TensorFlow 2 only, 1 on TensorFlow 1 only, else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _major(test.operand)
        return None if inner is None else 3 - inner
    text = ast.unparse(test).lower()
    two, one = bool(_SAYS_TF2.search(text)), bool(_SAYS_TF1.search(text))
    if two == one:
        return None
    return 2 if two else 1
