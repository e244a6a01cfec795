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
