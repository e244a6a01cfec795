"""ruff (the rules and format of [tool.ruff] in pyproject.toml) and mypy --strict ([tool.mypy]) are
clean on the packages and modules listed here.

Issue 25 brings the whole of fixer/ and codemods/ under them a package (or a top-level module) at a
time: one joins the list once it is clean, and the list only grows.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLEAN = (
    "fixer/semantic",
    "fixer/target",
    "fixer/migrate",
    "fixer/doctor",
    "fixer/output",
    "fixer/launcher",
    "fixer/validate",
    "fixer/lsp",
    "fixer/dev",
    "fixer/tf",
    # fixer's top-level modules (engine, prefilter, context, rule, runner and code_text are not clean yet).
    "fixer/__init__.py",
    "fixer/__main__.py",
    "fixer/cache.py",
    "fixer/cache_format.py",
    "fixer/class_members.py",
    "fixer/cli.py",
    "fixer/cli_choices.py",
    "fixer/clusterspec.py",
    "fixer/codes.py",
    "fixer/config.py",
    "fixer/edits.py",
    "fixer/example_programs.py",
    "fixer/expected_failure.py",
    "fixer/explain.py",
    "fixer/extras.py",
    "fixer/facts.py",
    "fixer/incremental.py",
    "fixer/interactive.py",
    "fixer/magics.py",
    "fixer/notebook.py",
    "fixer/notebook_launches.py",
    "fixer/pool.py",
    "fixer/positions.py",
    "fixer/ray_session.py",
    "fixer/ray_start.py",
    "fixer/registry.py",
    "fixer/report.py",
    "fixer/sources.py",
    "fixer/suppress.py",
    "fixer/test_files.py",
    "fixer/textmap.py",
    "fixer/types.py",
    "fixer/written_modules.py",
    # codemods/: the rule families and the package itself.
    "codemods/api",
    "codemods/cluster",
    "codemods/multiworker",
    "codemods/reduction",
    "codemods/input",
    "codemods/placement",
    "codemods/__init__.py",
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_rules_are_clean():
    result = _run("ruff", "check", "--no-cache", *CLEAN)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    result = _run("ruff", "format", "--check", "--no-cache", *CLEAN)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean():
    # Imports of packages not yet listed are followed silently: their errors are theirs to fix.
    result = _run("mypy", "--follow-imports=silent", "--no-incremental", *CLEAN)
    assert result.returncode == 0, result.stdout + result.stderr


_TOP_FOLDERS = ("fixer", "codemods")


def _pre_commit_pattern() -> str:
    """The ``files:`` pattern of the hooks: the listed packages' folders and the listed modules,
    under each top folder."""
    alternatives = []
    for top in _TOP_FOLDERS:
        entries = [entry.removeprefix(f"{top}/") for entry in CLEAN if entry.startswith(f"{top}/")]
        packages = [entry for entry in entries if not entry.endswith(".py")]
        modules = [entry.removesuffix(".py") for entry in entries if entry.endswith(".py")]
        inside = [f"({'|'.join(packages)})/"] if packages else []
        inside += [rf"({'|'.join(modules)})\.py$"] if modules else []
        alternatives.append(f"{top}/({'|'.join(inside)})")
    return f"^({'|'.join(alternatives)})"


def test_the_pre_commit_hooks_check_the_same_files():
    import re

    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    patterns = re.findall(r"^\s*files: (\S+)$", hooks, re.M)
    assert patterns == [_pre_commit_pattern()] * 3, patterns


def test_the_pre_commit_pattern_takes_exactly_the_listed_files():
    import re

    pattern = re.compile(_pre_commit_pattern())
    files = [path for top in _TOP_FOLDERS for path in ROOT.glob(f"{top}/**/*.py")]
    listed = [path for path in files if any(_holds(entry, path) for entry in CLEAN)]
    unlisted = [path for path in files if path not in listed]
    assert listed and unlisted
    assert [p for p in listed if not pattern.search(p.relative_to(ROOT).as_posix())] == []
    assert [p for p in unlisted if pattern.search(p.relative_to(ROOT).as_posix())] == []


def _holds(entry: str, path: Path) -> bool:
    """True when the CLEAN entry (a package folder or a module file) covers ``path``."""
    target = ROOT / entry
    return path == target if entry.endswith(".py") else target in path.parents


def test_the_configuration_is_the_one_the_issue_asks_for():
    """The rule families and strictness cannot be weakened without this test saying so."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert set(config["tool"]["ruff"]["lint"]["select"]) >= {"E", "F", "I", "B", "UP", "TC"}
    assert config["tool"]["mypy"]["strict"] is True
