"""Lines of code that a test expects to raise: findings there describe the failure being tested.

A negative test (``with self.assertRaises(ValueError): strategy.run(...)``, ``pytest.raises``,
``self.assertRaisesRegex(..., fn, arg)``) writes the mistake on purpose to check that TensorFlow
rejects it; reporting it tells the author what the test already says. The engine drops findings
that start on these lines.
"""

from __future__ import annotations

import ast
from typing import TypeGuard

from fixer.ast_facts import ModuleFacts
from fixer.syntax import parse_module

# Cheap pre-check on the text: a file without these words has no expected-failure block.
_MARKERS = ("assertRaises", "raises(")  # not "Raises:" in docstrings


def _is_raise_expectation(call: ast.AST) -> TypeGuard[ast.Call]:
    """True for ``self.assertRaises*(...)``, ``pytest.raises(...)`` and a bare ``raises(...)``."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    if isinstance(func, ast.Attribute):
        if func.attr.startswith("assertRaises"):
            return True
        return func.attr == "raises" and isinstance(func.value, ast.Name) and func.value.id == "pytest"
    return isinstance(func, ast.Name) and func.id == "raises"


def expected_failure_lines(
    text: str, tree: ast.Module | None = None, facts: ModuleFacts | None = None
) -> frozenset[int]:
    """The 1-based lines inside ``with <expect a raise>:`` blocks and inside the call form
    ``self.assertRaises(Error, callable, *args)``, whose callable and arguments run inside it.

    ``tree`` is CPython's tree of ``text`` and ``facts`` the walk of it (fixer/ast_facts.py), when
    the caller has them (parsing again costs as much as the walk on a large test file).
    """
    if not any(marker in text for marker in _MARKERS):
        return frozenset()
    if facts is None:
        if tree is None:
            try:
                tree = parse_module(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return frozenset()
        facts = ModuleFacts.of(tree)
    lines: set[int] = set()
    for node in facts.with_blocks:
        if any(_is_raise_expectation(item.context_expr) for item in node.items) and node.body:
            lines.update(range(node.body[0].lineno, (node.body[-1].end_lineno or node.body[-1].lineno) + 1))
    for call in facts.calls:
        if _is_raise_expectation(call) and len(call.args) >= 2:
            # The call form: the exception, then the callable and its arguments.
            lines.update(range(call.lineno, (call.end_lineno or call.lineno) + 1))
    return frozenset(lines)
