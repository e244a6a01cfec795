"""A long class is re-parsed one member at a time (fixer/class_members.py), and the result is
still exactly a whole-file parse: module, code, positions of every node, index tables, and the
findings of a fresh check."""

from __future__ import annotations

import random

import libcst as cst
import pytest

from fixer.class_members import ClassChunk, cut_class
from fixer.engine import ParsedSource, check_source, parse_source
from fixer.expected_failure import expected_failure_lines
from fixer.incremental import DocumentParser
from fixer.positions import positions
from fixer.types import Finding

METHOD = """\
    def test_{n}(self):
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD()  # created outside the scope
        with self.assertRaises(ValueError):
            strategy.run(lambda: tf.Variable(1.0))
        return model, optimizer

"""
TEXT = (
    "import tensorflow as tf\n\n\n@tf.test.with_eager_op_as_function\n"
    "class StrategyTest(tf.test.TestCase):\n    '''Tests.'''\n\n"
    + "".join(METHOD.format(n=n) for n in range(8))
    + "    # about the last one\n    last = 1\n\n\nclass Small:\n    x = 1\n    y = 2\n\n\nv = tf.Variable(0.0)\n"
)


def _assert_whole(parser: DocumentParser, text: str) -> ParsedSource:
    """The incremental parse of ``text`` is the whole-file parse, to every node's position."""
    incremental, full = parser.parse("doc.py", text), parse_source("doc.py", text)
    assert not isinstance(incremental, Finding) and not isinstance(full, Finding)
    assert incremental.module.code == full.module.code == text
    assert incremental.module.deep_equals(full.module)
    nodes, expected = list(incremental.index.order), list(full.index.order)
    assert [type(n) for n in nodes] == [type(n) for n in expected]
    assert [incremental.index.order[n] for n in nodes] == list(range(len(nodes)))
    whole = positions(full.module)
    assert [incremental.positions[n] for n in nodes[1:]] == [whole[n] for n in expected[1:]]  # type: ignore[index]
    parents = [type(incremental.index.parent.get(n)) for n in nodes]
    assert parents == [type(full.index.parent.get(n)) for n in expected]
    for table in ("calls", "functions", "classes", "withs", "assigns", "attributes", "returns"):
        assert len(getattr(incremental.index, table)) == len(getattr(full.index, table)), table
    assert {k: len(v) for k, v in incremental.index.names.items()} == {k: len(v) for k, v in full.index.names.items()}
    assert incremental.expected_failures == expected_failure_lines(text)
    assert check_source("doc.py", text, parser=parser.parse).findings == check_source("doc.py", text).findings
    return incremental


def _class_chunks(parser: DocumentParser) -> list[ClassChunk]:
    return [chunk for chunk in parser._chunks.values() if isinstance(chunk, ClassChunk)]


def test_a_long_class_is_cut_at_its_members() -> None:
    parser = DocumentParser()
    _assert_whole(parser, TEXT)
    long_class, small = _class_chunks(parser)
    assert len(long_class.members) == 9  # the docstring is the head; test_0 ... test_7, last
    assert long_class.members[-1].text == "\n    # about the last one\n    last = 1\n"
    assert len(small.members) == 1


def test_an_edit_in_a_method_reparses_only_that_method() -> None:
    parser = DocumentParser()
    before = _assert_whole(parser, TEXT)
    text = TEXT.replace("def test_3(self):\n", "def test_3(self):\n        extra = tf.Variable(2.0)\n")
    after = _assert_whole(parser, text)
    old, new = before.module.body[1], after.module.body[1]
    assert isinstance(old, cst.ClassDef) and isinstance(new, cst.ClassDef)
    changed = [a is not b for a, b in zip(old.body.body, new.body.body)]
    assert changed == [False, False, False, False, True, False, False, False, False, False]
    assert before.module.body[2] is after.module.body[2]  # the next class was not parsed again


EDITS = [
    lambda t: t.replace("    def test_2", "    # a note at the members' indentation\n    def test_2"),
    lambda t: t.replace("    def test_2", "# a note in column 0\n    def test_2"),
    lambda t: t.replace(
        "        return model, optimizer\n\n    def test_5",
        "        return model, optimizer\n        # still test_4's\n\n    def test_5",
    ),
    lambda t: t.replace("    def test_6(self):", "    @staticmethod\n    def test_6():"),
    lambda t: t.replace("    def test_1(self):", "def test_1(self):"),  # the class ends: a top-level function
    lambda t: t.replace("class StrategyTest", "class StrategyTests"),  # the head
    lambda t: t.replace("    last = 1\n", "    last = 1; first = 2\n"),
    lambda t: t.replace(
        "        return model, optimizer\n\n    def test_7",
        "        return model, optimizer\n\n    def test_7b(self):\n        pass\n    def test_7",
    ),
    lambda t: t.replace("    def test_4(self):\n", "    def test_4(self):\n  # odd\n"),
    lambda t: t.replace("(self):\n        strategy", "(self):\n\tstrategy", 1),  # a syntax error
    lambda t: t.replace("\n", "\r\n"),
    lambda t: t.replace("    def test_3(self):", "    def test_3(self):\n        '''A\ndocstring.'''"),
]


@pytest.mark.parametrize("edit", range(len(EDITS)))
def test_edits_around_members_equal_a_whole_parse(edit: int) -> None:
    parser = DocumentParser()
    _assert_whole(parser, TEXT)
    text = EDITS[edit](TEXT)
    assert text != TEXT
    full = parse_source("doc.py", text)
    if isinstance(full, Finding):
        assert parser.parse("doc.py", text) == full
    else:
        _assert_whole(parser, text)
    _assert_whole(parser, TEXT)  # and back


def test_random_typing_inside_a_long_class() -> None:
    rng = random.Random(7)
    parser = DocumentParser()
    text = TEXT
    for _ in range(40):
        lines = text.splitlines(keepends=True)
        at = rng.randrange(4, len(lines))
        choice = rng.choice(["    # note\n", "\n", "        x = 1\n", "    y = 2\n", "", "        # deep\n"])
        if choice:
            lines.insert(at, choice)
        else:
            del lines[at]
        candidate = "".join(lines)
        if isinstance(parse_source("doc.py", candidate), Finding):
            continue
        text = candidate
        _assert_whole(parser, text)


def test_cut_class_refuses_what_it_cannot_cut_safely() -> None:
    assert cut_class("class A:\n    x = 1\n") is None  # one member: nothing to gain
    assert cut_class("class A:\n\tx = 1\n\ty = 2\n") is None  # tabs
    assert cut_class("x = 1\n") is None
    assert cut_class("class A:\n    x = 1\n    y = 2\n# footer\n") is None  # lines after the class
    assert cut_class("class A:\n    x = 1\n        # deep\n    y = 2\n") is None  # libcst gives it to x
    assert cut_class("class A:\n    x = 1\n\n    # y's\n    y = 2\n") == (
        "class A:\n    x = 1\n",
        ["\n    # y's\n    y = 2\n"],
    )
