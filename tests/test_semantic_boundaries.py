"""The boundaries issue 25 sets, checked on the source with `ast` (no import of the checked code):
no import cycle (at run time or through annotation-only imports), and no module outside
fixer/semantic/ with its own "which binding reaches here" helper."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("fixer", "codemods")

# Function names that say the function decides what a name is bound to ("bound" but not "boundary").
_BINDING_HELPER = re.compile(r"reaching|binding|last_assign|bound(?!ar)")


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path], type_checking: bool) -> set[str]:
    """The project modules ``name`` imports when it is imported (function bodies do not run then)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.body if type_checking else [])
                visit(node.orelse)
            elif isinstance(node, ast.If | ast.With):
                visit(node.body)
                visit(getattr(node, "orelse", []))
            elif isinstance(node, ast.Try):
                visit([*node.body, *node.orelse, *node.finalbody, *(s for h in node.handlers for s in h.body)])
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    resolved = set()
    for imported in found:
        while imported and imported not in modules:
            imported = imported.rpartition(".")[0]
        if imported and imported != name:
            resolved.add(imported)
    return resolved


def _cycles(type_checking: bool, root: Path = ROOT) -> list[set[str]]:
    """The strongly connected components (more than one module) of the import graph."""
    modules = _modules(root)
    graph = {name: _imports(name, path, modules, type_checking) for name, path in modules.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def connect(start: str) -> None:  # Tarjan's algorithm, iterative: the graph is deep
        work = [(start, iter(sorted(graph[start])))]
        order[start] = low[start] = len(order)
        stack.append(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in stack:
                    low[node] = min(low[node], order[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == order[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(component)

    for name in sorted(graph):
        if name not in order:
            connect(name)
    return components


def test_no_import_cycle_at_run_time():
    assert _cycles(type_checking=False) == []


def test_no_import_cycle_through_annotation_only_imports():
    """Not even for the type checker: a context does not import the rules' base class (it asks a
    ReportingRule protocol), the rules' base class names the pre-filter's Evidence in its own
    module, and the cache reads the version from fixer/version.py, not the package's public face."""
    assert _cycles(type_checking=True) == []


def test_the_cycle_check_finds_a_cycle_and_skips_function_level_imports(tmp_path):
    package = tmp_path / "fixer"
    package.mkdir()
    (tmp_path / "codemods").mkdir()
    files = {
        "__init__.py": "",
        "a.py": "from fixer import b\n",
        "b.py": "import fixer.a\n",
        "c.py": "def late():\n    from fixer import d\n",
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fixer.c import late\nfrom . import c\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    assert _cycles(type_checking=False, root=tmp_path) == [{"fixer.a", "fixer.b"}]
    assert sorted(map(sorted, _cycles(type_checking=True, root=tmp_path))) == [["fixer.a", "fixer.b"]]


def _binding_helpers(root: Path = ROOT) -> dict[str, bool]:
    """``path::function`` of every helper named for bindings outside fixer/semantic, and whether it
    delegates to fixer.semantic: its body asks ``.semantic``, calls a function imported from
    fixer.semantic, or calls a helper of its own module that does."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative.startswith("fixer/semantic/"):
                continue
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
            asked = {
                alias.asname or alias.name
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fixer.semantic")
                for alias in node.names
            }
            functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
            reads = {id(f): {n.id for n in ast.walk(f) if isinstance(n, ast.Name)} for f in functions}
            delegating = {f.name for f in functions if ".semantic" in (ast.get_source_segment(text, f) or "")}
            while True:  # through the module's own helpers, until nothing more delegates
                more = {f.name for f in functions if reads[id(f)] & (asked | delegating)} - delegating
                if not more:
                    break
                delegating |= more
            for node in functions:
                if _BINDING_HELPER.search(node.name):
                    found[f"{relative}::{node.name}"] = node.name in delegating
    return found


def test_no_module_outside_fixer_semantic_decides_which_binding_reaches_a_use():
    helpers = _binding_helpers()
    own = {name for name, delegates in helpers.items() if not delegates}
    assert own == set(), "ask fixer.semantic (ctx.tf.semantic, index.semantic) instead of a binding helper of your own"


def test_migrated_helpers_delegate_to_the_semantic_model():
    helpers = _binding_helpers()
    assert helpers["fixer/tf/loss_scaling.py::last_assignment"] is True
    assert helpers["codemods/placement/per_replica_value_used_as_tensor.py::_reaching_value"] is True
    assert helpers["codemods/reduction/gradient_clipping_before_aggregation.py::_comprehension_binding"] is True
    assert helpers["fixer/tf/strategies.py::_reaching"] is True
    # Through fixer.semantic.bound_on_every_path, directly and through the module's own helper.
    assert helpers["fixer/tf/validity.py::_first_unbound"] is True
    assert helpers["fixer/tf/validity.py::unbound_inserted_names"] is True


def test_the_helper_check_follows_delegation_and_finds_a_helper_that_decides_itself(tmp_path):
    (tmp_path / "codemods").mkdir()
    (tmp_path / "fixer" / "semantic").mkdir(parents=True)
    (tmp_path / "fixer" / "semantic" / "flow.py").write_text("def reaching(name): ...\n")
    (tmp_path / "fixer" / "paths.py").write_text(
        "from fixer.semantic.flow import reaching\n"
        "def _bound(name):\n    return reaching(name)\n"
        "def unbound_names(names):\n    return [n for n in names if not _bound(n)]\n"
        "def last_binding(index, name):\n    return index.assigns[name][-1]\n"
        "def asks_the_model(ctx, use):\n    return ctx.tf.semantic.resolve(use)\n"
        "def only_binding(ctx, use):\n    return asks_the_model(ctx, use)\n"
    )
    assert _binding_helpers(tmp_path) == {
        "fixer/paths.py::_bound": True,
        "fixer/paths.py::unbound_names": True,
        "fixer/paths.py::last_binding": False,
        "fixer/paths.py::only_binding": True,
    }
