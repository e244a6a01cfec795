"""Scopes and bindings: every binding form, shadowing, `global`/`nonlocal`, class and comprehension scopes."""

from __future__ import annotations

from semantic_helpers import Snippet

from fixer.semantic import BindingKind, ScopeKind


def test_every_binding_form_is_recorded_with_its_kind_and_value():
    s = Snippet(
        """
        import os.path
        from pkg.mod import thing as alias
        from . import sibling
        a = b = 1
        c: int = 2
        d += 3
        first, (second, third), *rest = 4, (5, 6), 7
        for i in range(3):
            pass
        with open(p) as handle:
            pass
        try:
            pass
        except ValueError as error:
            pass
        def function(param, *args, kw=None, **kwargs):
            global g
            g = 1
        class Klass:
            pass
        del a
        print(w := 8)
        """
    )
    kinds = {(b.name, b.kind) for b in s.model.bindings}
    assert {
        ("os", BindingKind.IMPORT),
        ("alias", BindingKind.IMPORT),
        ("sibling", BindingKind.IMPORT),
        ("a", BindingKind.ASSIGNMENT),
        ("b", BindingKind.ASSIGNMENT),
        ("c", BindingKind.ASSIGNMENT),
        ("d", BindingKind.AUGMENTED),
        ("first", BindingKind.ASSIGNMENT),
        ("second", BindingKind.ASSIGNMENT),
        ("rest", BindingKind.ASSIGNMENT),
        ("i", BindingKind.LOOP),
        ("handle", BindingKind.WITH),
        ("error", BindingKind.EXCEPT),
        ("function", BindingKind.FUNCTION),
        ("param", BindingKind.PARAMETER),
        ("args", BindingKind.PARAMETER),
        ("kw", BindingKind.PARAMETER),
        ("kwargs", BindingKind.PARAMETER),
        ("g", BindingKind.ASSIGNMENT),
        ("Klass", BindingKind.CLASS),
        ("a", BindingKind.DELETION),
        ("w", BindingKind.WALRUS),
    } <= kinds
    by_name = {b.name: b for b in s.model.bindings}
    assert by_name["os"].imported == ("os", "")
    assert by_name["alias"].imported == ("pkg.mod", "thing")
    assert by_name["sibling"].imported == (".", "sibling")
    assert s.code(by_name["first"].value) == "4"
    assert s.code(by_name["second"].value) == "5"
    assert by_name["rest"].value is None
    assert by_name["g"].scope is s.model.module_scope  # `global g` moves it to the module
    assert by_name["param"].scope.kind is ScopeKind.FUNCTION


def test_scopes_nest_module_class_function_lambda_comprehension():
    s = Snippet(
        """
        class Model:
            def call(self, x):
                f = lambda y: y + x
                return [f(v) for v in x]
        """
    )
    kinds = [scope.kind for scope in s.model.scopes]
    assert kinds == [ScopeKind.MODULE, ScopeKind.CLASS, ScopeKind.FUNCTION, ScopeKind.LAMBDA, ScopeKind.COMPREHENSION]
    assert s.reach("x", 3) == [2]  # the lambda reads the method's parameter
    assert s.reach("y", 3) == [3]
    assert s.reach("v", 4) == [4]
    assert s.reach("x", 4) == [2]  # the first iterable runs in the method's scope


def test_a_local_shadows_the_module_name_and_is_unbound_before_its_assignment():
    s = Snippet(
        """
        strategy = make()
        def train():
            run(strategy)
        def other():
            print(strategy)
            strategy = None
        """
    )
    assert s.reach("strategy", 3) == [1]
    assert s.reach("strategy", 5) == []


def test_a_function_reads_every_module_binding_of_a_global_and_global_declarations_point_there():
    s = Snippet(
        """
        path = "a"
        def save():
            write(path)
        path = "b"
        def reset():
            global path
            path = "c"
            print(path)
        """
    )
    assert s.reach("path", 3) == [1, 4, 7]
    assert s.reach("path", 8) == [1, 4, 7]


def test_nonlocal_binds_in_the_enclosing_function():
    s = Snippet(
        """
        def outer():
            count = 0
            def bump():
                nonlocal count
                count = count + 1
            bump()
            return count
        """
    )
    inner = [b for b in s.model.bindings if b.name == "count"]
    assert {b.scope.node for b in inner} == {s.index.functions[0]}
    assert s.reach("count", 7) == [2, 5]


def test_a_class_body_is_not_an_enclosing_scope_of_its_methods():
    s = Snippet(
        """
        size = 1
        class Layer:
            size = 2
            def build(self):
                return size
        """
    )
    assert s.reach("size", 5) == [1]


def test_decorators_and_defaults_run_in_the_enclosing_scope():
    s = Snippet(
        """
        strategy = make()
        def step(s=strategy):
            strategy = None
            return s
        """
    )
    assert s.reach("strategy", 2) == [1]


def test_branch_records_the_arms_that_hold_a_binding():
    s = Snippet(
        """
        if strategy is None:
            strategy = default()
        else:
            for i in range(2):
                pass
        """
    )
    guard = s.model.bindings_of("strategy")[0]
    assert [(b.node.test is not None, b.arm) for b in guard.branch] == [(True, "body")]
    loop = s.model.bindings_of("i")[0]
    assert [b.arm for b in loop.branch] == ["else"]
    assert guard.is_conditional


def test_conditions_name_the_tests_known_at_a_node_including_early_exits():
    s = Snippet(
        """
        def f(strategy):
            if strategy is None:
                return
            if multi:
                print(strategy)
            else:
                use(strategy)
        """
    )
    first = s.model.conditions(s.use("strategy", 5))
    assert [(s.code(c.test), c.holds) for c in first] == [("strategy is None", False), ("multi", True)]
    second = s.model.conditions(s.use("strategy", 7))
    assert [(s.code(c.test), c.holds) for c in second] == [("strategy is None", False), ("multi", False)]


def test_only_binding_and_value_of():
    s = Snippet(
        """
        opt = make(1)
        if c:
            opt = make(2)
        use(opt)
        single = make(3)
        use(single)
        """
    )
    assert s.model.only_binding(s.use("opt", 4)) is None
    assert s.code(s.model.value_of(s.use("single", 6))) == "make(3)"
