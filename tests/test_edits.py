"""One re-indent (fixer/edits.py) for every fix that moves statements in or out of a block."""

from __future__ import annotations

import libcst as cst

from fixer.edits import reindent, reindented_lines, reindented_statements, string_continuation_lines
from fixer.engine import build_context


def _context(text: str):
    return build_context("t.py", text, cst.parse_module(text))


def _body(ctx) -> list[cst.BaseStatement]:
    """The statements of the first compound statement's block."""
    block = ctx.module.body[0]
    return list(block.body.body)


def test_reindent_replaces_the_old_indentation():
    assert reindent("    a = 1\n    b = 2\n", "    ", "        ") == "        a = 1\n        b = 2\n"
    assert reindent("        a = 1\n", "        ", "    ") == "    a = 1\n"


def test_reindent_leaves_blank_lines_empty_and_keeps_line_endings():
    assert reindent("a = 1\r\n\r\nb = 2", "", "    ") == "    a = 1\r\n\r\n    b = 2"


def test_reindent_puts_odd_indentation_at_the_new_level():
    assert reindent("    x = f(\n  1)\n", "    ", "") == "x = f(\n1)\n"


def test_reindent_keeps_the_lines_it_is_told_to():
    text = '    s = """\n    data\n    """\n'
    assert reindent(text, "    ", "", first_line=5, keep={6, 7}) == 's = """\n    data\n    """\n'


def test_string_continuation_lines_are_the_lines_after_a_string_opens():
    ctx = _context('x = 1\ns = f"""a\nb\nc"""\nt = "one line"\n')
    assert string_continuation_lines(ctx, ctx.module.body) == {3, 4}


def test_reindented_statements_moves_comments_and_keeps_strings():
    text = 'if True:\n    # the doc\n    doc = """\n  kept\n"""\n    n = 2\n'
    ctx = _context(text)
    moved = reindented_statements(ctx, _body(ctx), "")
    assert moved == '# the doc\ndoc = """\n  kept\n"""\nn = 2\n'


def test_reindented_lines_takes_the_statement_alone():
    text = "if chief:\n    # save it\n    model.save(path)\n"
    ctx = _context(text)
    assert reindented_lines(ctx, _body(ctx)[0], "") == "model.save(path)\n"
