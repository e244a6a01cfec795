"""fixer/syntax.py is the one place that asks CPython to build a tree from text (its lock keeps
threads from corrupting CPython 3.11's AST constructor state), and it behaves as ``ast`` does."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fixer.syntax import evaluate_literal, parse_module

ROOT = Path(__file__).resolve().parent.parent
_PARSERS = {"parse", "literal_eval"}


def direct_parses(path: Path) -> list[int]:
    """Lines of ``path`` that call ``ast.parse``/``ast.literal_eval`` or import them from ``ast``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _PARSERS
            and isinstance(node.value, ast.Name)
            and node.value.id == "ast"
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "ast" and {a.name for a in node.names} & _PARSERS:
            lines.append(node.lineno)
    return lines


def test_only_fixer_syntax_parses_python_text():
    offenders = {
        str(path.relative_to(ROOT)): lines
        for package in ("fixer", "codemods")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != ROOT / "fixer" / "syntax.py" and (lines := direct_parses(path))
    }
    assert offenders == {}, "parse through fixer.syntax (thread-safe on CPython 3.11)"


def test_the_check_finds_a_direct_parse(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import ast\nfrom ast import literal_eval\n\ntree = ast.parse('x = 1')\nast.dump(tree)\n")
    assert direct_parses(module) == [2, 4]


def test_parse_module_gives_cpythons_tree_and_errors():
    assert ast.dump(parse_module("x = [1, 2]\n")) == ast.dump(ast.parse("x = [1, 2]\n"))
    with pytest.raises(SyntaxError):
        parse_module("def f(:\n")
    with pytest.raises(SyntaxError, match="null bytes"):
        parse_module("x = 1\0\n")


def test_evaluate_literal_reads_literals_only():
    assert evaluate_literal("{'cluster': {'worker': ['a:1']}, 'n': -2}") == {"cluster": {"worker": ["a:1"]}, "n": -2}
    with pytest.raises(ValueError):
        evaluate_literal("os.environ")
    with pytest.raises(SyntaxError):
        evaluate_literal("'unterminated")
