"""The one walk of CPython's tree (fixer/ast_facts.py): it sees what a full walk of the tree sees."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fixer.ast_facts import ModuleFacts
from fixer.engine import MAX_BOOL_OPERANDS, PythonTree, check_source, parse_python

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
SAMPLES = sorted((ROOT / "corpus").rglob("*.py")) + sorted((ROOT / "fixer").rglob("*.py"))


def _deepest_chain(tree: ast.AST) -> int:
    """The most `and`/`or` operands along one path, by recursion (the test's own reading)."""
    below = max((_deepest_chain(child) for child in ast.iter_child_nodes(tree)), default=1)
    return below + len(tree.values) - 1 if isinstance(tree, ast.BoolOp) else below


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_walk_counts_every_node_and_finds_every_docstring(path):
    tree = ast.parse(path.read_text())
    facts = ModuleFacts.of(tree)
    assert facts.nodes == sum(1 for _ in ast.walk(tree))
    assert facts.bool_operands == _deepest_chain(tree)
    documented = [n for n in ast.walk(tree) if isinstance(n, DOCUMENTED)]
    assert {id(d) for d in facts.docstrings} == {id(doc) for n in documented if (doc := _docstring(n)) is not None}


def _docstring(node: ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Constant | None:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.value
    return None


def test_nodes_the_walk_skips_are_still_counted():
    # Names (with their context), constants, strings in `global`, None keys of `**` in a dict.
    code = "def f(x):\n    global g, h\n    return {**x, 'a': 1}\nmatch p:\n    case C(k=1):\n        pass\n"
    tree = ast.parse(code)
    assert ModuleFacts.of(tree).nodes == sum(1 for _ in ast.walk(tree))


def test_chains_nest_and_do_not_leak_to_siblings():
    code = "x = (a or b or (c and d and e)) and f\ny = g or h\n"
    facts = ModuleFacts.of(ast.parse(code))
    assert facts.bool_operands == 1 + 1 + 2 + 2  # one, and the extra operands of `and`, `or`, `and`


def test_a_def_in_a_scope_after_a_function_in_it_is_still_seen():
    # The context a function sets (inside it, no step of the scope's loop) ends with the function.
    code = "with strategy.scope():\n    def helper():\n        pass\n    def step(x):\n        pass\n"
    assert ModuleFacts.of(ast.parse(code)).def_in_with
    code = "def f():\n    with strategy.scope():\n        def step(x):\n            pass\n"
    assert not ModuleFacts.of(ast.parse(code)).def_in_with


def test_the_complexity_guard_reads_the_walk():
    chain = " or ".join(["x"] * (MAX_BOOL_OPERANDS + 1))
    result = check_source(
        "t.py", f"import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\ny = {chain}\n"
    )
    assert result.findings[0].code == "TFD000" and f"{MAX_BOOL_OPERANDS + 1:,} operands" in result.findings[0].message


def test_a_file_the_guard_walked_is_not_walked_again():
    text = "import tensorflow as tf\n" + "x = 1\n" * 30_000  # large enough for the guard to walk it
    python = parse_python("t.py", text)
    assert isinstance(python, PythonTree)
    assert "facts" in vars(python)  # taken by the guard, kept for the facts and the docstrings
