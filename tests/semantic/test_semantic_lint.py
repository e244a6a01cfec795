"""ruff (E, F, I, B, UP, TC; fixer/semantic/ruff.toml) and mypy --strict are clean on the semantic core.

The rest of the codebase follows in its own change (issue 25): this keeps the new core clean from
its first commit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "fixer" / "semantic"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_is_clean_on_the_semantic_core():
    result = _run("ruff", "check", "--no-cache", str(CORE.relative_to(ROOT)))
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean_on_the_semantic_core():
    result = _run(
        "mypy", "--strict", "--python-version", "3.11", "--follow-imports=silent", "--no-incremental",
        str(CORE.relative_to(ROOT)),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
