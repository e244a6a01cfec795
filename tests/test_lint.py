"""ruff (the rules and format of [tool.ruff] in pyproject.toml) and mypy --strict ([tool.mypy]) are
clean on the whole of fixer/ and codemods/, the product's code.

Issue 25 brought them under both a package at a time; since stop 37 the list is the two packages
themselves, so a new module is checked from its first commit.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLEAN = ("fixer", "codemods")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_rules_are_clean():
    result = _run("ruff", "check", "--no-cache", *CLEAN)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    result = _run("ruff", "format", "--check", "--no-cache", *CLEAN)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean():
    # Modules outside the two packages that they import are followed silently: not ours to type.
    result = _run("mypy", "--follow-imports=silent", "--no-incremental", *CLEAN)
    assert result.returncode == 0, result.stdout + result.stderr


def _pre_commit_pattern() -> str:
    """The ``files:`` pattern of the hooks: every file under the checked packages."""
    return f"^({'|'.join(CLEAN)})/"


def test_the_pre_commit_hooks_check_the_same_files():
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    patterns = re.findall(r"^\s*files: (\S+)$", hooks, re.M)
    assert patterns == [_pre_commit_pattern()] * 3, patterns


def test_the_pre_commit_pattern_takes_the_product_and_leaves_the_rest():
    pattern = re.compile(_pre_commit_pattern())
    product = [path for top in CLEAN for path in ROOT.glob(f"{top}/**/*.py")]
    others = [path for top in ("tests", "benchmarks", "corpus") for path in ROOT.glob(f"{top}/**/*.py")]
    assert product and others
    assert [p for p in product if not pattern.search(p.relative_to(ROOT).as_posix())] == []
    assert [p for p in others if pattern.search(p.relative_to(ROOT).as_posix())] == []


def test_the_configuration_is_the_one_the_issue_asks_for():
    """The rule families and strictness cannot be weakened without this test saying so."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert set(config["tool"]["ruff"]["lint"]["select"]) >= {"E", "F", "I", "B", "UP", "TC"}
    assert config["tool"]["mypy"]["strict"] is True
