"""Python's own parser, safe to call from several threads at once.

CPython 3.11 keeps the depth counter of its AST constructor in interpreter-wide state, so two
threads building trees at the same moment can make one of them fail on valid code with
``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905; seen in our CI
when validate's two reference runs read the script together). distfix parses from threads
(validate's reference runs, migrate's parallel validations), so every parse of Python text in
fixer/ and codemods/ goes through here, where one lock is held while CPython builds the tree.
tests/test_syntax.py keeps other modules from calling ``ast.parse`` or ``ast.literal_eval`` themselves.
"""

from __future__ import annotations

import ast
import threading

# Re-entrant: a finalizer run by the garbage collector during a parse may itself parse.
_PARSING = threading.RLock()


def parse_module(text: str) -> ast.Module:
    """``ast.parse(text)``: the module's tree, or SyntaxError/ValueError as CPython raises them."""
    with _PARSING:
        return ast.parse(text)


def evaluate_literal(text: str) -> object:
    """``ast.literal_eval(text)``: the value of a Python literal written as text (ValueError,
    SyntaxError and the rest as CPython raises them)."""
    with _PARSING:
        return ast.literal_eval(text)
