"""ruff (the rules and format of [tool.ruff] in pyproject.toml) and mypy --strict ([tool.mypy]) are
clean on the packages listed here.

Issue 25 brings the whole of fixer/ and codemods/ under them a package at a time: a package joins
the list once it is clean, and the list only grows.
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


def test_the_pre_commit_hooks_check_the_same_packages():
    import re

    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    patterns = set(re.findall(r"files: \^fixer/\(([^)]*)\)/", hooks))
    assert patterns == {"|".join(package.removeprefix("fixer/") for package in CLEAN)}, patterns


def test_the_configuration_is_the_one_the_issue_asks_for():
    """The rule families and strictness cannot be weakened without this test saying so."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert set(config["tool"]["ruff"]["lint"]["select"]) >= {"E", "F", "I", "B", "UP", "TC"}
    assert config["tool"]["mypy"]["strict"] is True
