"""Which bindings reach a use: flow across if/else, try/except, loops, early exits and `del`."""

from __future__ import annotations

from semantic_helpers import Snippet


def test_if_else_both_arms_reach_the_code_after_the_if_not_the_guard_before():
    s = Snippet(
        """
        strategy = None
        if multi:
            strategy = make()
        else:
            strategy = other()
        run(strategy)
        """
    )
    assert s.reach("strategy", 6) == [3, 5]


def test_an_if_without_else_keeps_the_earlier_binding_alive():
    s = Snippet(
        """
        strategy = None
        if multi:
            strategy = make()
        run(strategy)
        """
    )
    assert s.reach("strategy", 4) == [1, 3]


def test_inside_an_arm_only_that_arms_binding_reaches():
    s = Snippet(
        """
        x = 1
        if c:
            x = 2
            print(x)
        else:
            print(x)
        """
    )
    assert s.reach("x", 4) == [3]
    assert s.reach("x", 6) == [1]


def test_an_arm_that_returns_or_raises_does_not_reach_past_the_if():
    s = Snippet(
        """
        def f(c):
            x = 1
            if c:
                x = 2
                return x
            if not c:
                x = 3
                raise ValueError(x)
            return x
        """
    )
    assert s.reach("x", 9) == [2]
    assert s.reach("x", 5) == [4]


def test_a_definite_binding_hides_older_ones_and_an_elif_chain_with_else_is_definite():
    s = Snippet(
        """
        x = 0
        if a:
            x = 1
        elif b:
            x = 2
        else:
            x = 3
        use(x)
        x = 4
        use(x)
        """
    )
    assert s.reach("x", 8) == [3, 5, 7]
    assert s.reach("x", 10) == [9]


def test_try_body_bindings_reach_the_handlers_and_both_reach_after():
    s = Snippet(
        """
        x = 0
        try:
            x = 1
        except ValueError:
            print(x)
            x = 2
        else:
            print(x)
        finally:
            print(x)
        use(x)
        """
    )
    assert s.reach("x", 5) == [1, 3]
    assert s.reach("x", 8) == [3]
    assert s.reach("x", 10) == [1, 3, 6]
    assert s.reach("x", 11) == [3, 6]  # the body and every handler bind it


def test_loops_may_run_zero_times_and_carry_bindings_to_the_next_iteration():
    s = Snippet(
        """
        total = 0
        for item in items:
            print(total)
            total = total + item
        print(total, item)
        while more():
            step = 1
        print(step)
        """
    )
    assert s.reach("total", 3) == [1, 4]
    assert s.reach("total", 5) == [1, 4]
    assert s.reach("item", 5) == [2]
    assert s.reach("step", 8) == [7]


def test_a_del_unbinds_on_its_path():
    s = Snippet(
        """
        x = 1
        del x
        print(x)
        y = 1
        if c:
            del y
        print(y)
        """
    )
    assert s.reach("x", 3) == []
    assert s.reach("y", 7) == [4]


def test_with_as_and_except_as_bind_for_their_bodies():
    s = Snippet(
        """
        s = None
        with make() as s:
            use(s)
        try:
            pass
        except ValueError as s:
            use(s)
        """
    )
    assert s.reach("s", 3) == [2]
    assert s.reach("s", 7) == [6]
    assert s.code(s.model.only_binding(s.use("s", 3)).value) == "make()"


def test_a_walrus_reaches_the_rest_of_its_statement_and_the_arms_it_guards():
    s = Snippet(
        """
        if (m := match(text)) and m.group(1):
            print(m)
        """
    )
    assert s.reach("m", 1) == [1]
    assert s.reach("m", 2) == [1]


def test_a_statement_does_not_see_its_own_binding():
    s = Snippet(
        """
        x = 1
        x = x + 1
        x += 1
        """
    )
    assert s.reach("x", 2) == [1]
    assert s.lines(s.model.reaching("x", s.index.assigns[2])) == [2]


def test_notebook_cells_joined_in_order_see_the_last_cell_that_bound_the_name():
    s = Snippet(
        """
        # %%
        step = make_step()
        # %%
        step = tf_function(step)
        # %%
        run(step)
        """
    )
    assert s.reach("step", 4) == [2]
    assert s.reach("step", 6) == [4]


def test_never_runs_marks_code_after_return_and_under_if_false():
    import libcst as cst

    from fixer.semantic.model import SemanticModel
    from fixer.tf.index import ModuleIndex

    source = "def f():\n    a = 1\n    return a\n    b = 2\nif False:\n    c = 3\nif flag:\n    d = 4\n"
    module = cst.parse_module(source)
    semantic = SemanticModel(ModuleIndex.build(module))
    func = module.body[0]
    live, dead = func.body.body[0], func.body.body[2]
    assert not semantic.never_runs(live) and semantic.never_runs(dead)
    assert semantic.never_runs(module.body[1].body.body[0])
    assert not semantic.never_runs(module.body[2].body.body[0])


def test_a_function_does_not_see_a_module_binding_replaced_before_its_def():
    s = Snippet(
        """
        # %%
        strategy = make(["a", "b"])
        # %%
        strategy = make()
        # %%
        def step():
            return strategy.run()
        strategy = other()
        """
    )
    # The def runs after the second cell: the first binding is gone before `step` can be called.
    assert s.reach("strategy", 7) == [4, 8]


def test_a_module_binding_that_reaches_the_def_on_some_path_is_still_seen():
    s = Snippet(
        """
        strategy = make()
        if multi:
            strategy = other()
        def step():
            return strategy
        """
    )
    assert s.reach("strategy", 5) == [1, 3]


def test_a_binding_earlier_in_a_loop_that_holds_the_def_runs_again_after_it():
    s = Snippet(
        """
        for config in configs:
            strategy = make(config)
            def step():
                return strategy
            strategy = wrap(strategy)
            step()
        """
    )
    assert s.reach("strategy", 4) == [2, 5]


def test_methods_lambdas_and_nested_functions_start_from_their_outermost_definition():
    s = Snippet(
        """
        model = build()
        model = rebuild()
        class Trainer:
            def fit(self):
                def inner():
                    return model
                return inner
        model = last()
        step = lambda: model
        """
    )
    assert s.reach("model", 6) == [2, 8]
    assert s.reach("model", 9) == [8]


def test_a_definition_sees_its_own_name_and_global_assignments_from_elsewhere():
    s = Snippet(
        """
        def f():
            return f()
        g = lambda: g
        strategy = make()
        def reset():
            global strategy
            strategy = other()
        strategy = third()
        def use():
            return strategy
        """
    )
    assert s.reach("f", 2) == [1]
    assert s.reach("g", 3) == [3]
    assert s.reach("strategy", 10) == [7, 8]
