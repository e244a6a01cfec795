"""The module layout the developers' guide asks for, checked on the source: rules stand alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULE_MODULES = sorted(path for path in (ROOT / "codemods").rglob("*.py") if path.name != "__init__.py")


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (imports inside functions and TYPE_CHECKING count)."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # a relative import stays inside codemods/
                imported.add("codemods." + (node.module or ""))
            elif node.module:
                imported.add(node.module)
    return imported


def test_the_rule_modules_are_found():
    assert len(RULE_MODULES) >= 20


@pytest.mark.parametrize("path", RULE_MODULES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_rule_module_imports_another(path):
    # What two rules share belongs to the semantic layer (fixer/tf/) or fixer/, where both can import it.
    assert not {name for name in _imported_modules(path) if name == "codemods" or name.startswith("codemods.")}


@pytest.mark.parametrize("path", RULE_MODULES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_rules_do_not_import_the_engine(path):
    # The engine imports the registry, which imports every rule: rules use fixer.context instead.
    assert not {name for name in _imported_modules(path) if name in ("fixer.engine", "fixer.registry")}


@pytest.mark.parametrize("path", RULE_MODULES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_examples_come_after_the_logic(path):
    # A reader meets the check first: examples live in the sibling `<module>_examples.py` (EXAMPLES).
    tree = ast.parse(path.read_text(encoding="utf-8"))
    listed = [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "examples" for target in statement.targets)
    ]
    assert listed == [], "examples go in the sibling module <rule module>_examples.py, as EXAMPLES"
