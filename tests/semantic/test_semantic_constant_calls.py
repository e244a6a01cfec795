"""`SemanticModel.not_run_in_call`: what a call of a local function with literal arguments cannot
run (fixer/semantic/constant_calls.py), on plain Python."""

from __future__ import annotations

import libcst as cst

from tests.semantic.semantic_helpers import Snippet

FACTORY = """
def make(mode="local", verbose=False):
    if mode == "cpu":
        return "one device"
    elif mode == "local":
        print("local")
        return "mirrored"
    elif mode in ("multi", "cluster"):
        return "multi worker"
    if verbose:
        print(mode)
    raise ValueError(mode)

make()
make("multi")
make(mode="cpu")
make(other_mode)
make(*args)
"""


def _returns_run(snippet: Snippet, call_line: int) -> list[str] | None:
    """The values of the `return` statements a call on ``call_line`` can reach."""
    func = next(f for f in snippet.index.functions if f.name.value == "make")
    call = next(c for c in snippet.index.calls if snippet.line(c) == call_line and isinstance(c.func, cst.Name))
    skipped = snippet.model.not_run_in_call(func, call)
    if skipped is None:
        return None
    returns = snippet.index.returns
    return [
        cst.Module([]).code_for_node(r.value)
        for r in returns
        if r.value is not None and not any(snippet.index.is_within(r, node) for node in skipped)
    ]


def test_the_default_argument_runs_only_its_own_arm():
    assert _returns_run(Snippet(FACTORY), 13) == ['"mirrored"']


def test_a_positional_literal_and_an_in_test():
    assert _returns_run(Snippet(FACTORY), 14) == ['"multi worker"']


def test_a_keyword_literal():
    assert _returns_run(Snippet(FACTORY), 15) == ['"one device"']


def test_a_non_literal_argument_leaves_every_arm():
    assert _returns_run(Snippet(FACTORY), 16) == ['"one device"', '"mirrored"', '"multi worker"']


def test_unpacked_arguments_decide_nothing():
    assert _returns_run(Snippet(FACTORY), 17) is None


def test_a_rebound_parameter_is_not_the_argument():
    source = """
    def make(mode="local"):
        mode = mode.lower()
        if mode == "local":
            return "mirrored"
        return "multi worker"

    make()
    """
    snippet = Snippet(source)
    func = snippet.index.functions[0]
    call = snippet.index.calls[-1]
    assert snippet.model.not_run_in_call(func, call) == []


def test_an_arm_that_does_not_return_lets_later_statements_run():
    source = """
    def make(mode="local"):
        if mode == "local":
            print("no return here")
        if mode != "local":
            return "multi worker"
        return "mirrored"

    make()
    """
    snippet = Snippet(source)
    func = snippet.index.functions[0]
    skipped = snippet.model.not_run_in_call(func, snippet.index.calls[-1])
    assert skipped is not None
    kept = [r for r in snippet.index.returns if not any(snippet.index.is_within(r, n) for n in skipped)]
    assert [snippet.line(r) for r in kept] == [6]
