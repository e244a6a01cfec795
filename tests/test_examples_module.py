"""A rule's examples may live in its sibling ``<module>_examples.py``, loaded only when asked for."""

from __future__ import annotations

import sys
import textwrap

from fixer.rule import Invalid, Valid


def _write_rule_package(root, with_examples: bool) -> None:
    package = root / "demo_rules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "demo.py").write_text(
        textwrap.dedent(
            """
            from fixer.rule import Rule


            class Demo(Rule):
                code = "TFD999"
                name = "demo"
                message = "demo"
                triggers = ("demo",)
            """
        )
    )
    if with_examples:
        (package / "demo_examples.py").write_text(
            textwrap.dedent(
                """
                from fixer.rule import Invalid, Valid

                EXAMPLES = (Invalid("demo()\\n"), Valid("other()\\n"))
                """
            )
        )


def _forget_demo_modules() -> None:
    for name in [name for name in sys.modules if name == "demo_rules" or name.startswith("demo_rules.")]:
        del sys.modules[name]


def test_examples_come_from_the_sibling_module_on_first_use(tmp_path, monkeypatch):
    _write_rule_package(tmp_path, with_examples=True)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        from demo_rules.demo import Demo

        assert "demo_rules.demo_examples" not in sys.modules  # checking a file never needs them
        assert Demo.examples == (Invalid("demo()\n"), Valid("other()\n"))
        assert Demo.first_invalid() == Invalid("demo()\n")
    finally:
        _forget_demo_modules()


def test_a_rule_without_a_sibling_module_has_no_examples(tmp_path, monkeypatch):
    _write_rule_package(tmp_path, with_examples=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        from demo_rules.demo import Demo

        assert Demo.examples == ()
    finally:
        _forget_demo_modules()
