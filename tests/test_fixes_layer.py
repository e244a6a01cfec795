"""The layers under the rules, checked on the source with `ast` (issue 25): fixer/tf answers
TensorFlow questions of one module's model and builds no fixes. It imports neither the fix recipes
(fixer/fixes), nor template rendering (fixer.report), nor the rule context (fixer.context), not even
for annotations. The modules that still do are listed; the lists may only shrink."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# fixer/tf modules whose functions still take a RuleContext: none left (issue 25); keep it empty.
STILL_TAKE_RULE_CONTEXT: frozenset[str] = frozenset()

# fixer/tf modules that still render templates to build fixes: none left; they go in fixer/fixes.
STILL_BUILD_FIXES: frozenset[str] = frozenset()


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (function bodies and `if TYPE_CHECKING:` too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _importers(*prefixes: str) -> set[str]:
    """The fixer/tf modules that import a module named by one of ``prefixes`` (or inside it)."""
    found = set()
    for path in sorted((ROOT / "fixer" / "tf").rglob("*.py")):
        if any(m == p or m.startswith(p + ".") for m in imported_modules(path) for p in prefixes):
            found.add(path.relative_to(ROOT).as_posix())
    return found


def test_fixer_tf_never_imports_the_fix_recipes():
    assert _importers("fixer.fixes") == set()


def test_fixer_tf_renders_no_templates_beyond_the_listed_modules():
    found = _importers("fixer.report")
    assert found - STILL_BUILD_FIXES == set(), "build the fix in fixer/fixes, not in fixer/tf"
    assert STILL_BUILD_FIXES - found == set(), f"moved: take these off STILL_BUILD_FIXES: {STILL_BUILD_FIXES - found}"


def test_no_rule_context_below_the_rules_beyond_the_listed_modules():
    found = _importers("fixer.context")
    assert found - STILL_TAKE_RULE_CONTEXT == set(), "fixer/tf takes the per-module TFModel, not a RuleContext"
    gone = STILL_TAKE_RULE_CONTEXT - found
    assert gone == set(), f"migrated: take these off STILL_TAKE_RULE_CONTEXT: {sorted(gone)}"


def test_the_import_check_sees_imports_under_type_checking_and_in_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from fixer.context import RuleContext\n"
        "def late():\n    import fixer.fixes.optimizer_build\n"
        "from . import sibling\n"
    )
    found = imported_modules(module)
    assert {"fixer.context", "fixer.context.RuleContext", "fixer.fixes.optimizer_build"} <= found
    assert not any("sibling" in name for name in found)
