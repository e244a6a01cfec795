"""The incremental parser of the language server gives exactly what a whole-file parse gives.

Every corpus file and rule example is parsed both ways, then edited over and over (comments,
deletions, statements typed in, duplicated statements, CRLF, odd indentation); after each edit
the assembled module, its source text and every finding (with its fix) must equal those of a
fresh whole-file check.
"""

from __future__ import annotations

import random
from pathlib import Path

import libcst as cst
import pytest

from fixer.engine import check_source, parse_source
from fixer.expected_failure import expected_failure_lines
from fixer.incremental import DocumentParser, resplit, split_chunks
from fixer.registry import default_registry
from fixer.rule import Invalid, dedent_example
from fixer.tf.index import ModuleIndex
from fixer.types import Finding

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "corpus").rglob("*.py"))


def _examples() -> list[str]:
    return [dedent_example(e.code) for rule in default_registry().rules for e in rule.examples if isinstance(e, Invalid)]


def _assert_same(parser: DocumentParser, text: str) -> None:
    """The incremental parse and check of ``text`` equal the whole-file ones."""
    incremental, full = parser.parse("doc.py", text), parse_source("doc.py", text)
    if isinstance(full, Finding):
        assert incremental == full
        return
    assert not isinstance(incremental, Finding)
    # Compared with libcst's own result, not the text: libcst drops blank lines before a
    # trailing indented comment at the end of a file, and the assembled module must do the same.
    assert incremental.module.code == full.module.code
    assert incremental.module.deep_equals(full.module)
    _assert_index_of(incremental.index, incremental.module)
    if incremental.expected_failures is not None:  # assembled from the chunks' own
        assert incremental.expected_failures == expected_failure_lines(text)
    # Positions of every node in a fresh check, through the rules' own reports and fixes.
    expected = check_source("doc.py", text).findings
    assert check_source("doc.py", text, parser=parser.parse).findings == expected


def _assert_index_of(index: ModuleIndex, module: cst.Module) -> None:
    """``index`` (merged from the chunks' own, corrected from the previous version's) holds
    exactly the tables a walk of the assembled module gives."""
    walked = ModuleIndex.build(module)
    assert index.parent == walked.parent
    assert list(index.order.items()) == list(walked.order.items())
    for table in ("calls", "functions", "lambdas", "classes", "withs", "ifs", "fors", "assigns", "imports"):
        assert getattr(index, table) == getattr(walked, table), table
    assert index.returns == walked.returns and index.attributes == walked.attributes
    assert dict(index.names) == dict(walked.names)
    assert dict(index.functions_by_name) == dict(walked.functions_by_name)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT / "corpus")))
def test_corpus_files_parse_the_same(path: Path) -> None:
    _assert_same(DocumentParser(), path.read_text(encoding="utf-8"))


def test_rule_examples_parse_the_same() -> None:
    examples = _examples()
    assert len(examples) > 100
    for text in examples:
        _assert_same(DocumentParser(), text)


def _random_edit(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    at = rng.randrange(len(lines) + 1)
    kind = rng.choice(["comment", "indented-comment", "delete", "blank", "statement", "duplicate", "typing"])
    if kind == "comment":
        lines.insert(at, "# a note\n")
    elif kind == "indented-comment":  # libcst may give it to the block above: no split there
        lines.insert(at, "    # an indented note\n")
    elif kind == "delete" and lines:
        del lines[min(at, len(lines) - 1)]
    elif kind == "blank":
        lines.insert(at, "\n")
    elif kind == "statement":
        lines.insert(at, "counter = tf.Variable(0.0)\n")
    elif kind == "duplicate":  # equal chunks must still get distinct nodes
        block = [line for line in lines if line and not line[0].isspace()][:1]
        lines[at:at] = block
    elif kind == "typing" and lines:
        line = lines[min(at, len(lines) - 1)]
        cut = rng.randrange(len(line) + 1)
        lines[min(at, len(lines) - 1)] = line[:cut] + "x" + line[cut:]
    return "".join(lines)


@pytest.mark.parametrize("seed", range(12))
def test_random_edits_keep_every_result_equal(seed: int) -> None:
    rng = random.Random(seed)
    path = CORPUS[seed * 7 % len(CORPUS)]
    text = path.read_text(encoding="utf-8")
    parser = DocumentParser()
    for _ in range(25):
        previous = split_chunks(text)
        text = _random_edit(text, rng)
        if previous is not None:
            assert resplit(previous, text) in (None, split_chunks(text))
        _assert_same(parser, text)


def test_an_edit_reparses_only_its_statement() -> None:
    text = (ROOT / "corpus" / "reduction" / "tfd303_mean_loss" / "before.py").read_text(encoding="utf-8")
    parser = DocumentParser()
    before = parser.parse("doc.py", text)
    after = parser.parse("doc.py", text + "\nextra = 1\n")
    assert not isinstance(before, Finding) and not isinstance(after, Finding)
    assert all(a is b for a, b in zip(before.module.body, after.module.body[:-1]))
    assert len(after.module.body) == len(before.module.body) + 1


def test_crlf_and_a_comment_above_the_first_statement() -> None:
    text = "# header\r\n\r\nimport tensorflow as tf\r\n\r\n# note\r\ns = tf.distribute.MirroredStrategy()\r\nv = tf.Variable(1)\r\n"
    _assert_same(DocumentParser(), text)


def test_blocks_indented_differently_are_parsed_whole() -> None:
    text = "def f():\n  return 1\n\n\ndef g():\n        return 2\n"
    _assert_same(DocumentParser(), text)


def test_a_syntax_error_gives_the_whole_file_finding() -> None:
    parser = DocumentParser()
    _assert_same(parser, "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy(\n")
    _assert_same(parser, "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\n")


def test_split_keeps_indented_comments_with_the_block_above() -> None:
    text = "def f():\n    x = 1\n    # still f's\n\ny = 2\n# about z\nz = 3\n"
    assert split_chunks(text) == ["def f():\n    x = 1\n    # still f's\n\ny = 2\n", "# about z\nz = 3\n"]
    assert cst.parse_module(text).code == "".join(split_chunks(text) or [])


NEGATIVE_TESTS = """\
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()


def replica_step(x):
    return x * 2


class StrategyTest(tf.test.TestCase):
    def test_old_name_rejected(self):
        with self.assertRaises(AttributeError):
            strategy.experimental_run_v2(replica_step, args=(1.0,))


def test_call_form():
    tc = tf.test.TestCase()
    tc.assertRaises(AttributeError, strategy.experimental_run_v2, replica_step)


strategy.experimental_run_v2(replica_step, args=(3.0,))
"""


def test_expected_failure_lines_follow_edits_that_move_them() -> None:
    """A test's expected-raise lines come from each chunk, shifted: after edits above, inside and
    between the blocks, the findings dropped are those a fresh check drops (one stays: the call
    outside every expectation)."""
    parser = DocumentParser()
    text = NEGATIVE_TESTS
    edits = [
        lambda t: "# note\n" + t,
        lambda t: t.replace("class StrategyTest", "\n\nclass StrategyTest"),
        lambda t: t.replace("(self):\n", "(self):\n        x = 1\n"),
        lambda t: t.replace("# note\n", ""),
        lambda t: t.replace("\n\n\nclass StrategyTest", "class StrategyTest"),
    ]
    for edit in [lambda t: t, *edits]:
        text = edit(text)
        _assert_same(parser, text)
        parsed = parser.parse("doc.py", text)
        assert not isinstance(parsed, Finding) and parsed.expected_failures
        findings = check_source("doc.py", text, parser=parser.parse).findings
        assert [f.code for f in findings] == ["TFD401"]


def test_assembled_positions_are_the_whole_module_positions() -> None:
    """The positions of an assembled module, read as a mapping, are libcst's for every node below it."""
    from fixer.incremental import ChunkPositions
    from fixer.positions import positions

    text = "import os\n\n\ndef f(a):\n    return a + 1\n\n\nclass C:\n    x = 1\n"
    parser = DocumentParser()
    parser.parse("doc.py", text)
    parsed = parser.parse("doc.py", text + "\n\nprint(f(2))\n")
    assert not isinstance(parsed, Finding) and isinstance(parsed.positions, ChunkPositions)
    whole = {node: found for node, found in positions(parsed.module).items() if node is not parsed.module}
    assert len(parsed.positions) == len(whole) > 50
    assert dict(parsed.positions) == whole
    assert parsed.module not in parsed.positions
