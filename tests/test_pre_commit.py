"""The pre-commit hooks, run by the real ``pre-commit try-repo`` against a temporary git repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BAD = "import tensorflow as tf\nstrategy = tf.distribute.MirroredStrategy()\nstrategy.experimental_run_v2(fn)\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def staged_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "ci@example.invalid")
    _git(repo, "config", "user.name", "CI")
    (repo / "train.py").write_text(BAD)
    _git(repo, "add", "train.py")
    return repo


def _try_repo(repo: Path, hook: str, home: Path, files: tuple[str, ...] = ("train.py",)) -> subprocess.CompletedProcess:
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or "pre-commit"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [pre_commit, "try-repo", str(ROOT), hook, "--files", *files, "--verbose"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def test_check_hook_fails_on_a_staged_anti_pattern(staged_repo, pre_commit_home):
    result = _try_repo(staged_repo, "distfix-check", pre_commit_home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "train.py:3:10: TFD401" in result.stdout
    assert "Failed" in result.stdout


def test_fix_hook_rewrites_the_file(staged_repo, pre_commit_home):
    result = _try_repo(staged_repo, "distfix-fix", pre_commit_home)
    assert "files were modified by this hook" in result.stdout, result.stdout + result.stderr
    assert (staged_repo / "train.py").read_text() == BAD.replace("experimental_run_v2", "run")


def test_check_hook_prints_one_summary_for_many_files(staged_repo, pre_commit_home):
    # Without require_serial, pre-commit splits ten files between its processes (one per core),
    # and a clean share printed "All checks passed" inside the failing hook.
    clean = [f"clean_{n}.py" for n in range(9)]
    for name in clean:
        (staged_repo / name).write_text("x = 1\n")
    _git(staged_repo, "add", *clean)
    result = _try_repo(staged_repo, "distfix-check", pre_commit_home, ("train.py", *clean))
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.count("Found 1 finding in 1 of 10 files") == 1, result.stdout
    assert "All checks passed" not in result.stdout
