"""libcst's parse of checked text, without the node checks CPython's parse already made.

libcst builds every node of a parsed file through its dataclass constructor, whose ``__post_init__``
calls the node's ``_validate``: about 8 % of ``libcst.parse_module`` (401 -> 369 ms on a 5,128-line
file, benchmarks/README.md). The engine parses with libcst only text CPython's parser has accepted
(fixer/engine.py ``parse_python``), and every validator only raises, never completes a node, so the
checks repeat what the grammar and the tokenizer guarantee: a name is an identifier, a string has
matching quotes, whitespace is whitespace, a `try` has a handler, an import a name (none raised on
43,561 public files CPython parses: benchmarks/scan_libcst_validators.py).

One family is kept: the validators that ask whether an expression may touch a keyword operator
without a space (`_safe_to_use_with_word_operator`, `_safe_to_join_with_lambda`). libcst 1.9
raises TypeError there for text CPython accepts when a parenthesised lambda follows a keyword,
as in ``not(lambda: 1)`` or ``x or(lambda: 1)`` (its issue #1061): such a file is refused at
the parse (TFD000), and must stay refused, since any later rebuild of that node (a metadata
copy, a fix) would raise the same error. The classes whose validators read those helpers are
few and rare (a comparison, a `for`, a `with`...), so keeping them costs nothing measurable;
tests/test_checked_parse.py checks the list against libcst's sources.

Validation is turned off only for the duration of the parse and restored even when the parse
raises, so nodes built afterwards (codemods, fixes) are validated as usual. The switch is a class
attribute: it assumes no other thread builds libcst nodes during a parse (the language server's
only other thread reads its input).
"""

from __future__ import annotations

import libcst as cst
from libcst._nodes.base import CSTNode

# The node classes whose validators test the space around a keyword operator (see above), by name:
# libcst 1.4 (the oldest we accept) lacks the newest (StarredDictComp).
_SPACING_CHECKED_NAMES = (
    "AsName",
    "Assert",
    "Await",
    "BooleanOperation",
    "CompFor",
    "CompIf",
    "Comparison",
    "ComparisonTarget",
    "Del",
    "DictComp",
    "ExceptHandler",
    "For",
    "From",
    "GeneratorExp",
    "If",
    "IfExp",
    "Lambda",
    "ListComp",
    "Raise",
    "Return",
    "SetComp",
    "StarredDictComp",
    "UnaryOperation",
    "While",
    "With",
    "WithItem",
    "Yield",
)
SPACING_CHECKED: frozenset[type[CSTNode]] = frozenset(
    getattr(cst, name) for name in _SPACING_CHECKED_NAMES if hasattr(cst, name)
)

# libcst's own hook, put back after every parse.
VALIDATING_HOOK = CSTNode.__post_init__


def _validate_spacing_only(node: CSTNode) -> None:
    """The hook during a parse: validate only the classes whose checks CPython's did not make."""
    if type(node) in SPACING_CHECKED:
        node._validate()


def parse_checked(text: str) -> cst.Module:
    """``libcst.parse_module(text)`` for text CPython's parser accepted: the same tree, or the
    same exception, at less cost."""
    setattr(CSTNode, "__post_init__", _validate_spacing_only)  # noqa: B010 (mypy refuses assigning a method)
    try:
        return cst.parse_module(text)
    finally:
        setattr(CSTNode, "__post_init__", VALIDATING_HOOK)  # noqa: B010
