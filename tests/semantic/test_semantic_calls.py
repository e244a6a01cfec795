"""Call resolution (names, aliases, `self.m`, `super().m`, imports) and the call graph."""

from __future__ import annotations

from semantic_helpers import Snippet

from fixer.semantic import CallResolver


def _names(nodes) -> list[str]:
    return [getattr(getattr(n, "name", None), "value", "<lambda>") for n in nodes]


def _calls(s: Snippet, callee: str):
    return [c for c in s.index.calls if s.code(c.func) == callee]


def test_a_name_call_follows_the_def_that_reaches_it_and_aliases():
    s = Snippet(
        """
        def step(): pass
        def run(): step()
        run()
        alias = run
        alias()
        def step(): pass
        step()
        square = lambda v: v * v
        square(2)
        """
    )
    resolver = CallResolver(s.model)
    first, second = _calls(s, "step")
    assert [s.line(f) for f in resolver.targets(first)] == [1, 6]  # a later def may be the one run
    assert [s.line(f) for f in resolver.targets(second)] == [6]
    assert _names(resolver.targets(_calls(s, "alias")[0])) == ["run"]
    assert _names(resolver.targets(_calls(s, "square")[0])) == ["<lambda>"]


def test_self_and_super_methods_follow_the_classes_of_the_module():
    s = Snippet(
        """
        class Base:
            def forward(self): pass
            def train(self):
                self.forward()
        class Child(Base):
            def forward(self):
                super().forward()
        other.forward()
        """
    )
    resolver = CallResolver(s.model)
    from_train, from_child, from_other = (
        _calls(s, "self.forward") + _calls(s, "super().forward") + _calls(s, "other.forward")
    )
    assert [s.line(f) for f in resolver.targets(from_train)] == [2, 6]  # own method plus the override
    assert [s.line(f) for f in resolver.targets(from_child)] == [2]  # never the overriding method
    assert resolver.targets(from_other) == []
    assert resolver.bases(s.index.classes[1]) == [s.index.classes[0]]


def test_imported_names_say_what_they_import():
    s = Snippet(
        """
        from .models import build_model
        model = build_model()
        """
    )
    resolver = CallResolver(s.model)
    call = _calls(s, "build_model")[0]
    assert resolver.targets(call) == []
    assert resolver.imported(call) == [(".models", "build_model")]


def test_the_call_graph_lists_callers_callees_and_what_is_reachable():
    s = Snippet(
        """
        def leaf(): pass
        def middle():
            return [leaf() for _ in range(2)]
        def top():
            middle()
        top()
        """
    )
    resolver = CallResolver(s.model)
    leaf, middle, top = s.index.functions
    assert resolver.callees(middle) == [leaf]  # the comprehension runs in middle
    assert resolver.callees(s.module) == [top]
    assert [s.line(c) for c in resolver.calls_of(middle)] == [5]
    assert resolver.reachable_from(s.module) == [leaf, middle, top]
