"""The semantic model hangs off the index walk (``ModuleIndex.semantic``): helpers that hold only an
index ask it, and the per-module TFModel hands out the same object, so it is built once."""

from __future__ import annotations

from semantic_helpers import Snippet

from fixer.tf.strategies import visible_defs


def test_the_index_builds_its_semantic_model_once():
    s = Snippet("x = 1\n")
    assert s.index.semantic is s.index.semantic
    assert s.model is s.index.semantic


def _def_lines(s: Snippet, name: str, line: int) -> list[int]:
    call = s.use(name, line)
    return [s.line(f) for f in visible_defs(s.index, name, call)]


def test_a_redefined_function_reaches_the_calls_after_it_only():
    s = Snippet(
        """
        def step():
            return 1
        step()
        def step():
            return 2
        step()
        """
    )
    assert _def_lines(s, "step", 3) == [1]
    assert _def_lines(s, "step", 6) == [4]


def test_a_def_in_each_arm_of_an_if_both_reach_the_call_after_it():
    s = Snippet(
        """
        if fast:
            def step():
                return 1
        else:
            def step():
                return 2
        step()
        """
    )
    assert _def_lines(s, "step", 7) == [2, 5]


def test_a_call_before_every_def_or_in_a_nested_function_may_run_any_of_them():
    s = Snippet(
        """
        step()
        def step():
            return 1
        def step():
            return 2
        def later():
            step()
        """
    )
    assert _def_lines(s, "step", 1) == [2, 4]
    assert _def_lines(s, "step", 7) == [2, 4]
