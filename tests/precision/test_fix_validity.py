"""Unit tests of the checks a fix passes before it is offered (fixer/tf/validity.py)."""

from __future__ import annotations

import textwrap

import libcst as cst

from fixer.tf.index import ModuleIndex
from fixer.tf.names import NameResolver
from fixer.tf.validity import (
    candidate_reads,
    fix_failure,
    inserts_tensorflow_import,
    removes_what_is_read,
    unbound_inserted_names,
)
from fixer.types import Edit


def _names(source: str) -> NameResolver:
    return NameResolver(ModuleIndex.build(cst.parse_module(source)))


def _insert_before(text: str, marker: str, content: str) -> Edit:
    at = text.index(marker)
    return Edit(at, at, content)


def _remove_line(text: str, marker: str) -> Edit:
    start = text.index(marker)
    return Edit(start, text.index("\n", start) + 1, "")


# TensorFlow imports ----------------------------------------------------------------------------

def test_a_tensorflow_import_into_a_file_without_one_fails():
    text = "import ray\n\ndef step():\n    pass\n"
    edit = Edit(0, 0, "import tensorflow as tf\n")
    assert inserts_tensorflow_import(_names(text), [edit]) == "the file does not import TensorFlow"


def test_a_tensorflow_import_into_a_keras_file_passes():
    text = "import keras\n"
    assert inserts_tensorflow_import(_names(text), [Edit(0, 0, "import tensorflow as tf\n")]) is None


# Names bound on every path ---------------------------------------------------------------------

def test_candidate_reads_skip_attributes_strings_keywords_and_builtins():
    assert candidate_reads('with strategy.scope():\n    x = len(y, key="a b")  # z\n') == {"strategy", "x", "y", "key"}


def test_a_name_bound_only_in_one_arm_fails():
    text = textwrap.dedent(
        """\
        if multi:
            strategy = make()
        model = build()
        """
    )
    edits = [_insert_before(text, "model = build()", "with strategy.scope():\n    pass\n")]
    assert unbound_inserted_names(text, edits) == "`strategy` is not bound on every path to where the fix would use it"


def test_a_name_bound_later_fails_and_bound_before_passes():
    later = "model = build()\nstrategy = make()\n"
    before = "strategy = make()\nmodel = build()\n"
    content = "with strategy.scope():\n    pass\n"
    assert unbound_inserted_names(later, [_insert_before(later, "model", content)]) is not None
    assert unbound_inserted_names(before, [_insert_before(before, "model", content)]) is None


def test_names_the_file_never_binds_are_not_judged():
    # `decode` comes from a star import or an earlier notebook kernel: the original code
    # already relies on it, moving it does not make anything worse.
    text = "from helpers import *\nds = load()\n"
    edit = Edit(len(text), len(text), "x = decode(ds)\n")
    assert unbound_inserted_names(text, [edit]) is None
    assert unbound_inserted_names(text, [_insert_before(text, "ds", "x = decode(ds)\n")]) is not None  # ds: later


def test_module_imports_and_defs_are_always_in_reach():
    text = "def main():\n    pass\n\nimport tensorflow as tf\n"
    edit = _insert_before(text, "    pass", "    tf.print(1)\n")
    assert unbound_inserted_names(text, [edit]) is None


# A name bound again below the insertion (ledger24a: a cell that makes its strategy after the model)

_WRAP = "with strategy.scope():\n    model = build()\n"


def _wrap_model(text: str) -> list[Edit]:
    start = text.index("model = build()\n")
    return [Edit(start, start + len("model = build()\n"), _WRAP)]


def test_a_strategy_made_again_below_the_wrap_in_a_script_fails():
    # The first experiment's strategy is bound above; the wrap would enter it while the
    # model is compiled under the second one below (a mix of strategies raises).
    text = textwrap.dedent(
        """\
        strategy = make()
        baseline = fit_baseline(strategy)
        model = build()
        strategy = make()
        with strategy.scope():
            model.compile()
        """
    )
    assert unbound_inserted_names(text, _wrap_model(text)) == (
        "`strategy` is bound again below where the fix would use it"
    )


def test_a_strategy_made_again_below_in_the_same_function_fails():
    text = textwrap.dedent(
        """\
        def train():
            strategy = make()
            if ready:
                model = build()
            strategy = make()
            return model
        """
    )
    start = text.index("model = build()")
    edits = [Edit(start, start + len("model = build()"), "with strategy.scope():\n            model = build()")]
    assert unbound_inserted_names(text, edits) is not None


def test_a_strategy_bound_only_above_or_rebound_in_a_nested_def_passes():
    above = "strategy = make()\nmodel = build()\nmodel.compile()\n"
    nested = "strategy = make()\nmodel = build()\n\ndef other():\n    strategy = make()\n    return strategy\n"
    assert unbound_inserted_names(above, _wrap_model(above)) is None
    assert unbound_inserted_names(nested, _wrap_model(nested)) is None


def test_in_a_notebook_only_a_rebinding_in_the_same_cell_counts():
    # Combined notebook text: a binding in a later cell belongs to that cell's own run.
    same_cell = "# distfix-cell 1\n\nstrategy = make()\n# distfix-cell 2\n\nmodel = build()\nstrategy = make()\n"
    later_cell = same_cell.replace("strategy = make()\n", "# distfix-cell 3\n\nstrategy = make()\n").replace(
        "# distfix-cell 3\n\n", "", 1
    )
    assert unbound_inserted_names(same_cell, _wrap_model(same_cell)) is not None
    assert unbound_inserted_names(later_cell, _wrap_model(later_cell)) is None


# Removing what is read -------------------------------------------------------------------------

def test_removing_tf_config_that_the_script_reads_back_fails():
    text = textwrap.dedent(
        """\
        import json, os
        os.environ["TF_CONFIG"] = json.dumps(cluster)
        task = json.loads(os.environ["TF_CONFIG"])["task"]
        """
    )
    edit = _remove_line(text, 'os.environ["TF_CONFIG"] =')
    assert removes_what_is_read(text, [edit]) == "it removes the environment variable TF_CONFIG, which the program still reads"


def test_removing_tf_config_read_only_before_passes():
    text = textwrap.dedent(
        """\
        import json, os
        previous = os.environ.get("TF_CONFIG")
        os.environ["TF_CONFIG"] = json.dumps(cluster)
        """
    )
    assert removes_what_is_read(text, [_remove_line(text, 'os.environ["TF_CONFIG"] =')]) is None


def test_removing_a_dict_that_is_used_again_fails():
    text = "config = {'a': 1}\nos_env = config\nprint(config)\n"
    assert removes_what_is_read(text, [_remove_line(text, "config = ")]) == "it removes `config`, which the program still reads"


def test_moving_a_binding_is_not_removing_it():
    text = "model = build()\nwith s.scope():\n    pass\nmodel.fit()\n"
    edits = [_remove_line(text, "model = build()"), _insert_before(text, "    pass", "    model = build()\n")]
    assert removes_what_is_read(text, edits) is None
    assert fix_failure(text, _names(text), edits) is None


def test_a_renamed_attribute_is_not_a_read():
    assert candidate_reads("run", after_dot=True) == set()
    assert candidate_reads("run(step)", after_dot=True) == {"step"}
