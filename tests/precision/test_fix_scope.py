"""A fix inside one function is judged on that function alone (fixer/tf/fix_scope.py), with the
same verdict as when the whole fixed file is parsed."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from fixer.textmap import TextMap
from fixer.tf.fix_scope import OriginalFile, fixed_chunk, fixed_function
from fixer.tf.index import ModuleIndex
from fixer.tf.validity import removes_what_is_read, unbound_inserted_names
from fixer.types import Edit


def _original(text: str) -> OriginalFile:
    module = cst.parse_module(text)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return OriginalFile(text, module, ModuleIndex.build(module), lambda: positions, TextMap(text))


def _wrap_line(text: str, marker: str, header: str) -> list[Edit]:
    """Edits that put the line holding ``marker`` under ``header`` (one level deeper)."""
    start = text.index(marker)
    line_start = text.rindex("\n", 0, start) + 1
    line_end = text.index("\n", start) + 1
    indent = text[line_start:start]
    body = indent + "    " + text[start:line_end]
    return [Edit(line_start, line_end, f"{indent}{header}\n{body}")]


CASES = {
    "bound in one arm only": (
        """\
        class T:
            def test(self, multi):
                if multi:
                    strategy = make()
                model = build()
        """,
        "model = build()",
        "with strategy.scope():",
        "`strategy` is not bound on every path to where the fix would use it",
    ),
    "bound before": (
        """\
        class T:
            def test(self):
                strategy = make()
                model = build()
        """,
        "model = build()",
        "with strategy.scope():",
        None,
    ),
    "a parameter": (
        """\
        def test(strategy):
            model = build()
        """,
        "model = build()",
        "with strategy.scope():",
        None,
    ),
    "bound later in the function": (
        """\
        def test():
            model = build()
            strategy = make()
        """,
        "model = build()",
        "with strategy.scope():",
        "`strategy` is not bound on every path to where the fix would use it",
    ),
    "a module-level binding reaches a function": (
        """\
        strategy = make()

        def test():
            model = build()
        """,
        "model = build()",
        "with strategy.scope():",
        None,
    ),
    "a module-level None guard": (
        """\
        strategy = None

        def test():
            model = build()
        """,
        "model = build()",
        "with strategy.scope():",
        "`strategy` is not bound on every path to where the fix would use it",
    ),
    "bound only in another function": (
        """\
        def other():
            strategy = make()

        def test():
            model = build()
            strategy.run(step)
        """,
        "model = build()",
        "with strategy.scope():",
        "`strategy` is not bound on every path to where the fix would use it",
    ),
    "never bound in the file": (
        """\
        def test():
            model = build()
        """,
        "model = build()",
        "with strategy.scope():",
        None,
    ),
    "a nested function's closure (the walk stops at the inner function, as before)": (
        """\
        def outer():
            strategy = make()
            def inner():
                model = build()
            return inner
        """,
        "model = build()",
        "with strategy.scope():",
        "`strategy` is not bound on every path to where the fix would use it",
    ),
    "the last line of a method": (
        """\
        class T:
            def test(self, multi):
                if multi:
                    strategy = make()
                model = build(
                    1,
                )
            def other(self):
                pass
        """,
        "model = build(",
        "with strategy.scope():",
        "`strategy` is not bound on every path to where the fix would use it",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_function_alone_gives_the_whole_files_verdict(name):
    source, marker, header, expected = CASES[name]
    text = textwrap.dedent(source)
    if marker == "model = build(":  # a statement over several lines: wrap all of them
        start = text.index(marker)
        line_start = text.rindex("\n", 0, start) + 1
        end = text.index(")\n", start) + 2
        indent = text[line_start:start]
        block = "".join(indent + "    " + line[len(indent):] + "\n" for line in text[line_start:end].splitlines())
        edits = [Edit(line_start, end, f"{indent}{header}\n{block}")]
    else:
        edits = _wrap_line(text, marker, header)
    original = _original(text)
    assert fixed_function(original, edits) is not None  # the local path is the one taken
    assert unbound_inserted_names(text, edits, original_file=original) == expected
    assert unbound_inserted_names(text, edits) == expected  # the whole-file path agrees


def test_module_level_edits_are_left_to_the_whole_file_check():
    text = "if multi:\n    strategy = make()\nmodel = build()\n"
    edits = _wrap_line(text, "model = build()", "with strategy.scope():")
    original = _original(text)
    assert fixed_function(original, edits) is None
    assert unbound_inserted_names(text, edits, original_file=original) == (
        "`strategy` is not bound on every path to where the fix would use it"
    )


def test_an_edit_that_leaves_the_function_is_left_to_the_whole_file_check():
    text = "def test():\n    model = build()\n\nstrategy = None\n"
    at = text.index("    model")
    # Dedented text written into the body ends the function: the chunk is no longer one function.
    edits = [Edit(at, at, "strategy = make()\n")]
    assert fixed_function(_original(text), edits) is None


def test_a_fixed_function_maps_nodes_to_offsets_in_the_fixed_text():
    text = "class T:\n    def test(self):\n        model = build()\n"
    edits = _wrap_line(text, "model = build()", "with strategy.scope():")
    local = fixed_function(_original(text), edits)
    assert local is not None
    fixed = "class T:\n    def test(self):\n        with strategy.scope():\n            model = build()\n"
    (name,) = local.index.names["strategy"]
    assert fixed[local.offset(name) :].startswith("strategy.scope()")


# Removing what is read, judged on the edited lines ---------------------------------------------

REMOVALS = {
    "TF_CONFIG read back later at module level": (
        """\
        import json, os
        os.environ["TF_CONFIG"] = json.dumps(cluster)
        task = json.loads(os.environ["TF_CONFIG"])["task"]
        """,
        'os.environ["TF_CONFIG"] =',
        "it removes the environment variable TF_CONFIG, which the program still reads",
    ),
    "TF_CONFIG read only before": (
        """\
        import json, os
        previous = os.environ.get("TF_CONFIG")
        os.environ["TF_CONFIG"] = json.dumps(cluster)
        """,
        'os.environ["TF_CONFIG"] =',
        None,
    ),
    "TF_CONFIG set in a method, read in a later function": (
        """\
        import json, os

        class T:
            def test(self):
                os.environ["TF_CONFIG"] = json.dumps(cluster)
                run()

        def run():
            return json.loads(os.environ["TF_CONFIG"])
        """,
        'os.environ["TF_CONFIG"] =',
        "it removes the environment variable TF_CONFIG, which the program still reads",
    ),
    "TF_CONFIG set again elsewhere": (
        """\
        import os

        def first():
            os.environ["TF_CONFIG"] = "{}"
            print(os.environ["TF_CONFIG"])

        os.environ["TF_CONFIG"] = "{}"
        """,
        'os.environ["TF_CONFIG"] = "{}"\n    print',
        None,
    ),
    "a dict used again in the same function": (
        """\
        def main():
            config = {'a': 1}
            print(config)
        """,
        "config = ",
        "it removes `config`, which the program still reads",
    ),
}


@pytest.mark.parametrize("name", REMOVALS)
def test_removals_judged_on_the_edited_lines_match_the_whole_file(name):
    source, marker, expected = REMOVALS[name]
    text = textwrap.dedent(source)
    start = text.index(marker)
    line_start = text.rindex("\n", 0, start) + 1
    edits = [Edit(line_start, text.index("\n", start) + 1, "")]
    original = _original(text)
    assert fixed_chunk(original, edits) is not None  # the local path is the one taken
    assert removes_what_is_read(text, edits, original) == expected
    assert removes_what_is_read(text, edits) == expected  # the whole-file path agrees


def test_a_top_level_chunk_covers_whole_statements_and_the_lines_between():
    text = "import os\n\n# set it\nos.environ['A'] = (\n    '1'\n)\nx = 2\n"
    at = text.index("# set it")
    # A line inserted above the comment and a value changed inside the assignment: the chunk runs
    # from the comment line (where the first edit is) to the statement's last line; `x = 2` is not touched.
    inside = text.index("'1'")
    chunk = fixed_chunk(_original(text), [Edit(at, at, "y = 1\n"), Edit(inside, inside + 3, "'2'")])
    assert chunk is not None and chunk.function is None
    assert (chunk.start, chunk.end) == (at, text.index("x = 2"))
    assert chunk.module.code == "y = 1\n# set it\nos.environ['A'] = (\n    '2'\n)\n"
