"""fixer.semantic.bound_on_every_path: is a name bound on every path to a statement, asked of a
module's index and of a fix check's spliced index (the fixed function on its own, the original's
module level)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from fixer.semantic import bound_on_every_path
from fixer.tf.fix_scope import SplicedIndex
from fixer.tf.index import ModuleIndex


def _use(index: ModuleIndex, name: str) -> cst.Name:
    """The read of ``name`` in the arguments of ``use(...)`` (not a parameter or a loop target there)."""
    reads = [
        node
        for node in index.names[name]
        if not isinstance(index.parent[node], cst.Param | cst.CompFor)
        and any(
            isinstance(a, cst.Call) and isinstance(a.func, cst.Name) and a.func.value == "use"
            for a in index.ancestors(node)
        )
    ]
    assert len(reads) == 1, f"{len(reads)} reads of {name} in use(...)"
    return reads[0]


def _bound(source: str, name: str = "s") -> bool:
    index = ModuleIndex.build(cst.parse_module(textwrap.dedent(source).lstrip("\n")))
    return bound_on_every_path(index, name, _use(index, name))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("s = make()\nuse(s)\n", True),
        ("if flag:\n    s = make()\nuse(s)\n", False),
        ("if flag:\n    s = make()\nelse:\n    s = other()\nuse(s)\n", True),
        ("if flag:\n    s = make()\nelse:\n    raise SystemExit\nuse(s)\n", True),
        ("try:\n    s = make()\nexcept OSError:\n    s = other()\nuse(s)\n", True),
        ("try:\n    s = make()\nexcept OSError:\n    pass\nuse(s)\n", False),
        ("for s in items:\n    pass\nuse(s)\n", False),
        ("for s in items:\n    use(s)\n", True),
        ("with open(p) as s:\n    use(s)\n", True),
        ("import tensorflow as s\nuse(s)\n", True),
        ("import s.path\nuse(s)\n", True),
        ("use([s for s in items])\n", True),
        ("use(lambda s: s)\n", True),
        ("def f(s):\n    use(s)\n", True),
        ("def f(*s):\n    use(s)\n", True),
        # A module-level binding reaches a function body, which runs later...
        ("def f():\n    use(s)\ns = make()\n", True),
        # ... unless the function binds the name itself, or the module binds it to None too.
        ("s = make()\ndef f():\n    if flag:\n        s = other()\n    use(s)\n", False),
        ("s = None\nif flag:\n    s = make()\ndef f():\n    use(s)\n", False),
        ("use(s)\ns = make()\n", False),
    ],
)
def test_bound_on_every_path(source: str, expected: bool) -> None:
    assert _bound(source) is expected


def test_a_spliced_index_answers_from_the_fixed_function_and_the_original_module_level() -> None:
    original = ModuleIndex.build(cst.parse_module("s = make()\n\ndef f():\n    pass\n"))
    # The fixed function, re-parsed on its own: it now reads `s` and `t`.
    fixed = ModuleIndex.build(cst.parse_module("def f():\n    t = 1\n    use(s, t, u)\n"))
    spliced = SplicedIndex(fixed, original)
    assert bound_on_every_path(spliced, "s", _use(fixed, "s"))  # the original's module level
    assert bound_on_every_path(spliced, "t", _use(fixed, "t"))  # the fixed function's own
    assert not bound_on_every_path(spliced, "u", _use(fixed, "u"))
