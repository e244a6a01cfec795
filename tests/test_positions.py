"""fixer/positions.py gives libcst's own positions, without the resolver's extra visit."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from fixer.positions import positions

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def test_positions_equal_the_resolvers_on_corpus_files():
    files = sorted(CORPUS.rglob("before.py"))[:20]
    assert files
    for path in files:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        assert dict(positions(module)) == dict(expected), path


def test_positions_cover_every_node_with_its_range():
    module = cst.parse_module("def f(x):\n    return x + 1\n")
    found = positions(module)
    ret = module.body[0].body.body[0].body[0]
    assert (found[ret].start.line, found[ret].start.column) == (2, 4)
    assert (found[ret].end.line, found[ret].end.column) == (2, 16)


# Statements of every kind, nested blocks with their own indentation, comments libcst gives to
# a block's footer, a tab-indented block, `elif` beside `else: if`, and a last line without a
# line break: where generating one statement could go wrong.
_TRICKY = '''"""Doc."""
import os, sys; del sys
x = 1; y = 2


@decorator(
    arg=1,
)
# a comment between the decorator and the function
async def f(a,
            b):
    async with a as c:
        async for d in c:
            pass
    if a:
        return 1
    elif b:
        return 2
    else:
        if a and b:
            return 3
        # a footer comment
  # dedented comment
    try:
        pass
    except ValueError as e:
        raise
    else:
        pass
    finally:
        del a
    while b: b -= 1; continue


class C(Base):
\tdef m(self):
\t\tglobal x
\t\treturn [i for i in (
\t\t\t1, 2)]


match x:
    case [1, *rest] if rest:
        y: int = 3
    case _:
        lambda: 0
z = {"k": (lambda q: q)(1)}'''


def _lazy(text: str):
    from fixer.engine import ParsedSource, parse_source
    from fixer.positions import StatementPositions

    parsed = parse_source("t.py", text)
    assert isinstance(parsed, ParsedSource)
    lazy = StatementPositions(parsed.module, parsed.index.parent, parsed.index.order, parsed.text or text, parsed.tree)
    return parsed, lazy


def _assert_same_as_whole(text: str) -> None:
    parsed, lazy = _lazy(text)
    whole = positions(parsed.module)
    # Nodes held by statements first, innermost first: the module, its header and footer force
    # the whole-module path, which must not hide a wrong statement-by-statement answer.
    nodes = sorted(parsed.index.order, key=lambda n: -parsed.index.order[n])
    outside = [node for node in nodes if next(lazy._statements_holding(node), None) is None]
    for node in nodes:
        if node in outside:
            continue
        assert lazy[node] == whole[node], (type(node).__name__, lazy[node], whole[node])
        if isinstance(node, cst.BaseStatement):
            assert lazy.line_span(node) == (whole[node].start.line, whole[node].end.line)
    assert lazy._whole is None, "a statement fell back to the whole module"
    assert all(lazy[node] == whole[node] for node in outside)


def test_statement_positions_equal_the_whole_modules_on_tricky_code():
    _assert_same_as_whole(_TRICKY)
    _assert_same_as_whole(_TRICKY.replace("\n", "\r\n"))
    _assert_same_as_whole(_TRICKY + "\n\n# a trailing comment\n")


def test_statement_positions_equal_the_whole_modules_on_corpus_files():
    files = sorted(CORPUS.rglob("*.py"))
    assert len(files) > 50
    for path in files:
        _assert_same_as_whole(path.read_text(encoding="utf-8"))


def test_statement_positions_generate_only_the_statements_asked_for():
    parsed, lazy = _lazy("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    ret = parsed.module.body[1].body.body[0]
    assert (lazy[ret].start.line, lazy[ret].start.column) == (6, 4)
    assert list(lazy._generated) == [ret]


def test_statement_positions_fall_back_when_the_text_is_not_the_parsed_one():
    # A text that does not hold the generated code where ast places it: the whole module answers.
    from fixer.positions import StatementPositions

    module = cst.parse_module("a = 1\nb = 2\n")
    from fixer.tf.index import ModuleIndex

    index = ModuleIndex.build(module)
    lazy = StatementPositions(module, index.parent, index.order, "a = 1\nb = 3\n")
    second = module.body[1]
    assert lazy[second] == positions(module)[second]
    assert lazy._whole is not None
