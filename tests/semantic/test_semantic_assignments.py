"""SemanticModel.plain_assignments: every `name = value` statement of a name, in any scope, in
source order (flow-free, for questions about the text rather than about one use)."""

from __future__ import annotations

from semantic_helpers import Snippet


def _lines(s: Snippet, name: str) -> list[int]:
    return [s.line(statement) for statement in s.model.plain_assignments(name)]


def test_every_plain_assignment_in_every_scope_in_source_order():
    s = Snippet(
        """
        model = None
        def build():
            model = make()
            return model
        class Trainer:
            model = make()
            def setup(self):
                global model
                model = make()
        if flag:
            model = other()
        """
    )
    assert _lines(s, "model") == [1, 3, 6, 9, 11]


def test_one_entry_per_statement_and_only_the_name_itself():
    s = Snippet(
        """
        a = b = a = 1
        a, c = 2, 3
        a: int = 4
        a += 5
        self.a = 6
        for a in range(3):
            pass
        with open(p) as a:
            pass
        print(a := 7)
        (a) = 8
        """
    )
    assert _lines(s, "a") == [1, 11]
    assert _lines(s, "b") == [1]
    assert s.model.plain_assignments("c") == []  # tuple targets are left out
    assert s.model.plain_assignments("missing") == []


def test_the_statement_is_the_assignment_with_its_value():
    s = Snippet(
        """
        def f():
            loss_obj = make_loss()
        loss_obj = other_loss()
        """
    )
    found = s.model.plain_assignments("loss_obj")
    assert [s.code(statement.value) for statement in found] == ["make_loss()", "other_loss()"]
